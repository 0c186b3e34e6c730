import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { ApiError } from '../errores';
import { claveDeDireccion, errorDemasiadosFallos, type LimiteDeFallos } from './limite';

export interface OpcionesOperador {
  /** TOKEN_OPERADOR; absent: only loopback gets in. */
  token?: string;
  /** Shared with the API keys: a wrong token counts as a failed authentication of the address. */
  fallos: LimiteDeFallos;
}

const ENCABEZADOS_REENVIO = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/**
 * A request from this machine. A reverse proxy on the same host makes every stranger look local, so a
 * request that carries forwarding headers is not taken as local.
 */
export function desdeLoopback(req: Request): boolean {
  const ip = req.socket.remoteAddress ?? '';
  const local = ip === '::1' || /^(::ffff:)?127\./.test(ip);
  return local && ENCABEZADOS_REENVIO.every((h) => req.headers[h] === undefined);
}

// Both sides hashed: timingSafeEqual needs equal lengths, and comparing digests does not leak the length.
const huella = (s: string) => createHash('sha256').update(s).digest();
const mismoToken = (enviado: string, esperado: string) => timingSafeEqual(huella(enviado), huella(esperado));

/**
 * The guard of the operator routes (detailed health; metrics and the sandbox's fault switch reuse it):
 * loopback, or `Authorization: Bearer <TOKEN_OPERADOR>`. Anyone else gets one 401, whatever was wrong.
 */
export function soloOperador(op: OpcionesOperador): RequestHandler {
  return (req, _res, next) => {
    if (desdeLoopback(req)) return next();
    const cliente = claveDeDireccion(req.socket.remoteAddress);
    const espera = op.fallos.espera(cliente);
    if (espera !== null) throw errorDemasiadosFallos(espera);
    const enviado = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
    if (op.token && enviado !== undefined && mismoToken(enviado, op.token)) return next();
    if (op.fallos.registrarFallo(cliente))
      req.log.warn({ cliente }, 'operador: límite de intentos fallidos alcanzado');
    throw new ApiError(
      'autenticacion',
      'operador_requerido',
      'Esta ruta es solo para el operador del servicio: consúltela desde el propio equipo o con el token de operador (Authorization: Bearer).',
      undefined,
      { 'WWW-Authenticate': 'Bearer realm="operador", charset="UTF-8"' },
    );
  };
}
