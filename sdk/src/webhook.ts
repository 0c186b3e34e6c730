import { createHmac, timingSafeEqual } from 'node:crypto';
import { ErrorFirmaWebhook } from './errores';
import type { Evento } from './tipos';

/** Request headers as Node (`req.headers`), fetch (`Headers`) or a plain object give them. */
export type Encabezados = Headers | Record<string, string | string[] | undefined>;

export interface EntradaVerificacion {
  /**
   * The raw body exactly as received (bytes, or the same bytes decoded as UTF-8). Not a re-serialized JSON: a
   * single changed byte breaks the signature. With Express: `express.raw({ type: 'application/json' })`.
   */
  cuerpo: Uint8Array | string;
  encabezados: Encabezados;
  /**
   * The webhook's `secreto_firma` (`whsec_…`). During a rotation give both, new and old: a delivery signed
   * with any of them is accepted.
   */
  secretos: string | readonly string[];
  /** Largest distance between the signature's `t` and this machine's clock (default 300 s). */
  toleranciaSegundos?: number;
  /** Current time in ms (tests). */
  ahoraMs?: number;
}

export const ENCABEZADO_FIRMA_TIEMPO = 'x-facturacion-firma-tiempo';

function encabezado(e: Encabezados, nombre: string): string | undefined {
  if (typeof (e as Headers).get === 'function') return (e as Headers).get(nombre) ?? undefined;
  for (const [k, v] of Object.entries(e as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === nombre) return Array.isArray(v) ? v.join(',') : v;
  }
  return undefined;
}

/** `t=<unix s>,v1=<hex>[,v1=<hex>]`; unknown keys are skipped so a future scheme can be added beside v1. */
function leerFirmaTiempo(valor: string): { t: number; firmas: string[] } {
  let t: number | undefined;
  const firmas: string[] = [];
  for (const parte of valor.split(',')) {
    const igual = parte.indexOf('=');
    if (igual < 0) throw new ErrorFirmaWebhook('encabezado_mal_formado', `Parte sin "=": ${parte}.`);
    const clave = parte.slice(0, igual).trim();
    const v = parte.slice(igual + 1).trim();
    if (clave === 't') {
      if (t !== undefined || !/^\d{1,15}$/.test(v)) {
        throw new ErrorFirmaWebhook('encabezado_mal_formado', 'El tiempo de la firma no es válido.');
      }
      t = Number(v);
    } else if (clave === 'v1') firmas.push(v.toLowerCase());
  }
  if (t === undefined || firmas.length === 0) {
    throw new ErrorFirmaWebhook('encabezado_mal_formado', 'Faltan t o v1 en la firma.');
  }
  return { t, firmas };
}

const utf8 = new TextEncoder();

/**
 * Checks a webhook delivery as the server signs it (webhooks/firma.ts): `X-Facturacion-Firma-Tiempo` =
 * `t=<unix s>,v1=<hex>…`, each v1 the lowercase hex HMAC-SHA256 of `"<t>."` + raw body keyed with a secret
 * (the whole `whsec_…` string as UTF-8), one v1 per secret during a rotation. The time binding refuses a
 * captured delivery replayed later. Returns the event; throws `ErrorFirmaWebhook` otherwise.
 */
export function verificarWebhook(entrada: EntradaVerificacion): Evento {
  const secretos = (typeof entrada.secretos === 'string' ? [entrada.secretos] : [...entrada.secretos]).filter(
    (s) => s.length > 0,
  );
  if (secretos.length === 0) throw new TypeError('Se necesita al menos un secreto de webhook.');
  const valor = encabezado(entrada.encabezados, ENCABEZADO_FIRMA_TIEMPO);
  if (!valor) throw new ErrorFirmaWebhook('firma_ausente', 'Falta X-Facturacion-Firma-Tiempo.');
  const { t, firmas } = leerFirmaTiempo(valor);

  const ahoraS = (entrada.ahoraMs ?? Date.now()) / 1000;
  const tolerancia = entrada.toleranciaSegundos ?? 300;
  if (!(Math.abs(ahoraS - t) <= tolerancia)) {
    throw new ErrorFirmaWebhook('fuera_de_tolerancia', `La firma es de t=${t}, fuera de ±${tolerancia} s.`);
  }

  const cuerpo = typeof entrada.cuerpo === 'string' ? utf8.encode(entrada.cuerpo) : entrada.cuerpo;
  const recibidas = firmas.map((f) => utf8.encode(f));
  let valida = false;
  // Every secret against every v1, no early exit: the timing tells nothing about which one matched.
  for (const secreto of secretos) {
    const esperada = utf8.encode(createHmac('sha256', secreto).update(`${t}.`).update(cuerpo).digest('hex'));
    for (const r of recibidas) {
      valida = (r.length === esperada.length && timingSafeEqual(r, esperada)) || valida;
    }
  }
  if (!valida)
    throw new ErrorFirmaWebhook('firma_invalida', 'Ninguna firma corresponde a los secretos dados.');

  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(cuerpo)) as Evento;
  } catch {
    throw new ErrorFirmaWebhook('cuerpo_invalido', 'El cuerpo firmado no es JSON UTF-8.');
  }
}
