import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signatures of webhook deliveries: HMAC-SHA256 keyed with the whole secret string (`whsec_…`, as UTF-8), so a
 * receiver can copy the secret as shown and use it as is.
 *
 * - `X-Facturacion-Firma`: hex HMAC of the raw body with the current secret.
 * - `X-Facturacion-Firma-Anterior`: the same with the previous secret, only while a rotation overlaps.
 * - `X-Facturacion-Firma-Tiempo`: `t=<unix s>,v1=<hex>[,v1=<hex>]`, each v1 the HMAC of `<t>.` + body with one
 *   secret (newest first). Binding the time lets a receiver refuse a captured request replayed later.
 */

export const PREFIJO_SECRETO = 'whsec_';

const ENCABEZADO_FIRMA = 'X-Facturacion-Firma';
const ENCABEZADO_FIRMA_ANTERIOR = 'X-Facturacion-Firma-Anterior';
const ENCABEZADO_FIRMA_TIEMPO = 'X-Facturacion-Firma-Tiempo';

/** 32 random bytes, base64url without padding. */
export function nuevoSecretoWebhook(): string {
  return PREFIJO_SECRETO + randomBytes(32).toString('base64url');
}

function hmac(secreto: string, ...partes: Buffer[]): string {
  if (!secreto) throw new TypeError('Secreto de webhook vacío.');
  const h = createHmac('sha256', Buffer.from(secreto, 'utf8'));
  for (const p of partes) h.update(p);
  return h.digest('hex');
}

/** Lowercase hex HMAC-SHA256 of the raw body. */
export function firmaCuerpo(cuerpo: Buffer, secreto: string): string {
  return hmac(secreto, cuerpo);
}

const prefijoTiempo = (t: number) => Buffer.from(`${t}.`, 'utf8');

/** `t=<t>,v1=<hex>…`, one v1 per secret in the order given (newest first). */
export function firmaConTiempo(cuerpo: Buffer, secretos: string[], t: number): string {
  if (!Number.isSafeInteger(t) || t < 0) throw new TypeError(`Tiempo de firma inválido: ${t}.`);
  if (secretos.length === 0) throw new TypeError('Se necesita al menos un secreto.');
  const prefijo = prefijoTiempo(t);
  return [`t=${t}`, ...secretos.map((s) => `v1=${hmac(s, prefijo, cuerpo)}`)].join(',');
}

/** The signature headers of one delivery; a second secret is the previous one during a rotation. */
export function encabezadosFirma(cuerpo: Buffer, secretos: string[], t: number): Record<string, string> {
  const [actual, anterior] = secretos;
  if (actual === undefined || secretos.length > 2) {
    throw new TypeError(`Se esperaban uno o dos secretos, no ${secretos.length}.`);
  }
  return {
    [ENCABEZADO_FIRMA]: firmaCuerpo(cuerpo, actual),
    ...(anterior !== undefined ? { [ENCABEZADO_FIRMA_ANTERIOR]: firmaCuerpo(cuerpo, anterior) } : {}),
    [ENCABEZADO_FIRMA_TIEMPO]: firmaConTiempo(cuerpo, secretos, t),
  };
}

/** Constant time once the lengths match; a length mismatch says nothing about the secret. */
function igualesHex(esperada: string, recibida: string): boolean {
  const a = Buffer.from(esperada, 'utf8');
  const b = Buffer.from(recibida.toLowerCase(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What a receiver does with `X-Facturacion-Firma`. */
export function verificarFirmaCuerpo(cuerpo: Buffer, firmaHex: string, secreto: string): boolean {
  return igualesHex(firmaCuerpo(cuerpo, secreto), firmaHex.trim());
}

/**
 * What a receiver does with `X-Facturacion-Firma-Tiempo`: the time must be within `toleranciaS` of now and any
 * one v1 must match (during a rotation the receiver may hold either secret).
 */
export function verificarFirmaConTiempo(
  cuerpo: Buffer,
  encabezado: string,
  secreto: string,
  ahoraS: number,
  toleranciaS = 300,
): boolean {
  let t: number | null = null;
  const firmas: string[] = [];
  for (const parte of encabezado.split(',')) {
    const igual = parte.indexOf('=');
    if (igual < 0) return false;
    const clave = parte.slice(0, igual).trim();
    const valor = parte.slice(igual + 1).trim();
    if (clave === 't') {
      if (t !== null || !/^\d{1,15}$/.test(valor)) return false;
      t = Number(valor);
    } else if (clave === 'v1') firmas.push(valor);
  }
  if (t === null || firmas.length === 0 || !(Math.abs(ahoraS - t) <= toleranciaS)) return false;
  const esperada = hmac(secreto, prefijoTiempo(t), cuerpo);
  // Compare against every v1 (no early exit), so timing does not tell which one matched.
  let alguna = false;
  for (const f of firmas) alguna = igualesHex(esperada, f) || alguna;
  return alguna;
}
