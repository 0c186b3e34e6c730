import { ErrorCorreoTransitorio, type MensajeCorreo, type ResultadoCorreo } from '../../../correo/puerto';
import { crearGuion } from './guion';

/** The SMTP server's answer unless a test scripts otherwise. */
export const CORREO_ACEPTADO: ResultadoCorreo = {
  tipo: 'enviado',
  respuesta: '250 2.0.0 Ok: queued as PRUEBA',
  rechazados: [],
};

/** correo/smtp.ts without a server: each message is recorded and answered from the script (an error is thrown). */
export function crearCorreoEnMemoria() {
  const mensajes: MensajeCorreo[] = [];
  const respuestas = crearGuion<ResultadoCorreo | ErrorCorreoTransitorio>(() => CORREO_ACEPTADO);
  return {
    mensajes,
    responder: respuestas.poner,
    async enviar(m: MensajeCorreo): Promise<ResultadoCorreo> {
      mensajes.push(m);
      const r = respuestas.siguiente();
      if (r instanceof ErrorCorreoTransitorio) throw r;
      return r;
    },
  };
}

export type CorreoEnMemoria = ReturnType<typeof crearCorreoEnMemoria>;
