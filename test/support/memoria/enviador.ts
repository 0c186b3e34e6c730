import type { EnvioWebhook, ResultadoEnvio } from '../../../webhooks/enviar';
import { crearGuion } from './guion';

/** A receiver's answers: a 2xx unless a test scripts otherwise. */
export const RESPUESTA_OK: ResultadoEnvio = {
  ok: true,
  status: 200,
  latenciaMs: 42,
  error: null,
  respuesta: 'ok',
};

/** webhooks/enviar.ts without a network: each request is recorded and answered from the script. */
export function crearEnviadorEnMemoria() {
  const envios: EnvioWebhook[] = [];
  const respuestas = crearGuion<ResultadoEnvio>(() => RESPUESTA_OK);
  return {
    envios,
    responder: respuestas.poner,
    async enviar(e: EnvioWebhook): Promise<ResultadoEnvio> {
      envios.push({ ...e, cuerpo: Buffer.from(e.cuerpo), encabezados: { ...e.encabezados } });
      return { ...respuestas.siguiente() };
    },
  };
}

export type EnviadorEnMemoria = ReturnType<typeof crearEnviadorEnMemoria>;
