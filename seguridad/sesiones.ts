import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A console session's token (the cookie's value): 256 random bits; only its hash is stored. */
export function nuevaSesion(): { token: string; hash: Buffer } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSesion(token) };
}

export const hashSesion = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/**
 * The CSRF token of a session: an HMAC keyed by the session's secret token. Another site can make the browser
 * send the cookie but cannot read it, so it cannot compute the value every form must carry; nothing to store.
 */
export const tokenCsrf = (token: string): string =>
  createHmac('sha256', token).update('csrf').digest('base64url');

export function csrfValido(token: string, enviado: unknown): boolean {
  if (typeof enviado !== 'string') return false;
  const a = Buffer.from(tokenCsrf(token));
  const b = Buffer.from(enviado);
  return a.length === b.length && timingSafeEqual(a, b);
}
