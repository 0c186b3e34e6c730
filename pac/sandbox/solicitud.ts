import { CODIGOS, MENSAJES, OPERACIONES, RUTAS, type Servicio } from '../finkok/protocolo';
import { campo, leerSolicitud, type SolicitudLeida } from '../soap/sobre';
import type { ConfigSandbox } from './configuracion';
import { camposTimbre, soap, type Respuesta } from './respuesta';
import { rechazo, type Rechazo } from './timbrado';

/** Reading what a SOAP call brings: pure functions, so each rule is tested without HTTP. */

export type Operacion = (typeof OPERACIONES)[Servicio][number];

/** The operation if it belongs to the service called (stamp is not served on the cancel path). */
export function operacionDe(servicio: Servicio, nombre: string): Operacion | undefined {
  return (OPERACIONES[servicio] as readonly string[]).includes(nombre) ? (nombre as Operacion) : undefined;
}

/** Without configured credentials any pair is accepted, as the README promises integrators. */
export function credencialesAceptadas(
  credenciales: ConfigSandbox['credenciales'],
  parametros: Readonly<Record<string, string>>,
): boolean {
  return (
    !credenciales ||
    (parametros['username'] === credenciales.usuario && parametros['password'] === credenciales.contrasena)
  );
}

/** The `xml` parameter: the document in base64 (raw XML is tolerated). Null when it is neither. */
export function decodificarXml(valor: string | undefined): string | null {
  if (!valor) return null;
  if (valor.startsWith('<')) return valor;
  if (!/^[A-Za-z0-9+/=\s]+$/.test(valor)) return null;
  const texto = Buffer.from(valor, 'base64').toString('utf8');
  return texto.trimStart().startsWith('<') ? texto : null;
}

export const RECHAZO_BASE64: Rechazo = {
  codigo: CODIGOS.xmlMalFormado,
  mensaje: `${MENSAJES[CODIGOS.xmlMalFormado]}: el parámetro xml debe ser el CFDI sellado en base64`,
};

/** A call with wrong credentials, answered the way each operation reports its errors. */
export function respuestaSinCredenciales(
  servicio: Servicio,
  operacion: Operacion,
  fechaLocal: string,
): Respuesta {
  const r = rechazo(CODIGOS.credenciales);
  if (servicio === 'timbrado' && operacion !== 'query_pending') {
    return soap(camposTimbre(undefined, [r], fechaLocal));
  }
  const campoError = operacion === 'cancel_signature' ? 'CodEstatus' : 'error';
  return soap([campo(campoError, `${r.codigo} - ${r.mensaje}`)]);
}

export type Entrada =
  | { tipo: 'operacion'; operacion: Operacion; solicitud: SolicitudLeida }
  /** Answered before any handler runs: not SOAP, an operation of another service, bad credentials. */
  | { tipo: 'respuesta'; respuesta: Respuesta; operacion?: Operacion };

/** What a POST to a service's path asks for, or the answer it gets without reaching a handler. */
export function leerEntrada(
  servicio: Servicio,
  cuerpo: unknown,
  credenciales: ConfigSandbox['credenciales'],
  fechaLocal: () => string,
): Entrada {
  const falta = (mensaje: string): Entrada => ({
    tipo: 'respuesta',
    respuesta: { tipo: 'falta', codigo: 'Client', mensaje },
  });
  let solicitud: SolicitudLeida;
  try {
    solicitud = leerSolicitud(typeof cuerpo === 'string' ? cuerpo : '');
  } catch (e) {
    return falta(`Solicitud SOAP inválida: ${(e as Error).message}`);
  }
  const operacion = operacionDe(servicio, solicitud.operacion);
  if (!operacion) return falta(`Operación desconocida en ${RUTAS[servicio]}: ${solicitud.operacion}`);
  if (!credencialesAceptadas(credenciales, solicitud.parametros)) {
    const respuesta = respuestaSinCredenciales(servicio, operacion, fechaLocal());
    return { tipo: 'respuesta', respuesta, operacion };
  }
  return { tipo: 'operacion', operacion, solicitud };
}
