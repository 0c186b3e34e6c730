import { fechaEnZona, zonaIana } from '../cfdi/fecha';

/*
 * Sentences for people (ops, finance), in Spanish: the pending view's causes and an invoice's history. Times are
 * said as the issuer reads them, in the zone of the invoice's place of issue (the CFDI's own clock), or in central
 * Mexico's when the operation has no invoice.
 */

const ZONA_POR_OMISION = 'America/Mexico_City';

/** A local time's fields, from the one formatter of local times (cfdi/fecha). */
function partes(instante: Date, zona: string) {
  const [year, month, day, hour, minute] = fechaEnZona(instante, zona).split(/[-T:]/);
  return { year, month, day, hour, minute };
}

/** The IANA zone of a `huso_horario` of the postal-code catalog; central Mexico's when unknown. */
export function zonaDe(huso: string | null | undefined): string {
  if (!huso) return ZONA_POR_OMISION;
  try {
    return zonaIana(huso);
  } catch {
    return ZONA_POR_OMISION;
  }
}

/** `10:42` the same local day as `ahora`, `27/11 10:42` another day of its year, `27/11/2025 10:42` before. */
export function hora(instante: Date, huso: string | null | undefined, ahora: Date): string {
  const zona = zonaDe(huso);
  const p = partes(instante, zona);
  const h = `${p.hour}:${p.minute}`;
  const hoy = partes(ahora, zona);
  if (p.year === hoy.year && p.month === hoy.month && p.day === hoy.day) return h;
  return p.year === hoy.year ? `${p.day}/${p.month} ${h}` : `${p.day}/${p.month}/${p.year} ${h}`;
}

export const veces = (n: number, singular: string, plural = `${singular}s`) =>
  `${n} ${n === 1 ? singular : plural}`;

/**
 * What a PAC transport failure means to a person, from the message the PAC port writes (`stamp: el PAC no
 * respondió en 20000 ms`, `stamped: falla de transporte (ECONNREFUSED)`, `stamp: HTTP 500, …`).
 */
export function fallaDelPac(mensaje: string | null | undefined): string {
  const m = (mensaje ?? '').toLowerCase();
  if (!m) return 'sin detalle';
  if (/no respondió en \d+ ?ms|timeout|tiempo|aborted|etimedout/.test(m)) return 'tiempo agotado';
  const http = /http (\d{3})/.exec(m);
  if (http) return `respondió HTTP ${http[1]}`;
  if (/econnrefused|econnreset|und_err|socket|fetch failed|transporte|enotfound|ehostunreach/.test(m))
    return 'falla de conexión';
  return (mensaje ?? '').replace(/\s+/g, ' ').slice(0, 160);
}

/** `2026-11-27 10:42:01`: a whole local date and time, for a log read line by line (`historia.txt`). */
export const fechaHora = (instante: Date, huso: string | null | undefined): string =>
  fechaEnZona(instante, zonaDe(huso)).replace('T', ' ');
