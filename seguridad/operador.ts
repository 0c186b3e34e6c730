import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who the operator is, for every process that has operator routes (the API's detailed health, the sandbox
 * PAC's fault switch): a request from this machine, or one with `Authorization: Bearer <TOKEN_OPERADOR>`.
 * Pure checks over the request; each process answers a refusal in its own style.
 */

const ENCABEZADOS_REENVIO = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/**
 * A request from this machine. A reverse proxy on the same host makes every stranger look local, so a
 * request that carries forwarding headers is not taken as local.
 */
export function desdeLoopback(req: IncomingMessage): boolean {
  const ip = req.socket.remoteAddress ?? '';
  const local = ip === '::1' || /^(::ffff:)?127\./.test(ip);
  return local && ENCABEZADOS_REENVIO.every((h) => req.headers[h] === undefined);
}

// Both sides hashed: timingSafeEqual needs equal lengths, and comparing digests does not leak the length.
const huella = (s: string) => createHash('sha256').update(s).digest();

/** The request carries `Authorization: Bearer <token>` with the expected token; without one, nobody does. */
export function conTokenOperador(req: IncomingMessage, esperado: string | undefined): boolean {
  if (!esperado) return false;
  const enviado = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  return enviado !== undefined && timingSafeEqual(huella(enviado), huella(esperado));
}
