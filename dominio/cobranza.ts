/**
 * Pure rules of the console's reads: the ageing of an outstanding balance, the periods of the billing summary and
 * how a person types a serie-folio. Dates are calendar days `YYYY-MM-DD` (the CFDI's local dates), never instants.
 */

export type Agrupacion = 'dia' | 'mes';

/** Ageing buckets of an outstanding balance, by days since the invoice's date. */
export const CUBETAS_ANTIGUEDAD = ['de_0_a_30', 'de_31_a_60', 'de_61_a_90', 'mas_de_90'] as const;
export type CubetaAntiguedad = (typeof CUBETAS_ANTIGUEDAD)[number];

/** An invoice dated after the cut-off (a negative age) is as young as one of today. */
export function cubetaAntiguedad(dias: number): CubetaAntiguedad {
  if (dias <= 30) return 'de_0_a_30';
  if (dias <= 60) return 'de_31_a_60';
  if (dias <= 90) return 'de_61_a_90';
  return 'mas_de_90';
}

const DIA_MS = 86_400_000;
const aUtc = (fecha: string) => Date.parse(`${fecha.slice(0, 10)}T00:00:00Z`);

/** Whole days from `desde` to `hasta` (both `YYYY-MM-DD`, or a local date-time whose day counts). */
export const diasEntre = (desde: string, hasta: string): number =>
  Math.round((aUtc(hasta) - aUtc(desde)) / DIA_MS);

export const sumarDias = (fecha: string, dias: number): string =>
  new Date(aUtc(fecha) + dias * DIA_MS).toISOString().slice(0, 10);

/** A real calendar day (2026-02-30 is not). */
export const esFechaValida = (fecha: string): boolean =>
  /^\d{4}-\d{2}-\d{2}$/.test(fecha) && new Date(`${fecha}T00:00:00Z`).toISOString().slice(0, 10) === fecha;

/** The period a local date (or date-time) falls in: its day, or its month. */
export const periodoDe = (fecha: string, agrupacion: Agrupacion): string =>
  fecha.slice(0, agrupacion === 'dia' ? 10 : 7);

export interface Periodo {
  /** `YYYY-MM-DD` or `YYYY-MM`. */
  periodo: string;
  /** The days of the range it covers (a month cut by the range covers only its part). */
  desde: string;
  hasta: string;
}

/** Every period from `desde` to `hasta` (inclusive), oldest first, empty ones included: a chart's x axis. */
export function periodos(desde: string, hasta: string, agrupacion: Agrupacion): Periodo[] {
  const lista: Periodo[] = [];
  let dia = desde;
  while (dia <= hasta) {
    const periodo = periodoDe(dia, agrupacion);
    let fin = dia;
    if (agrupacion === 'mes') {
      const [y, m] = periodo.split('-').map(Number) as [number, number];
      const ultimo = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
      fin = ultimo < hasta ? ultimo : hasta;
    }
    lista.push({ periodo, desde: dia, hasta: fin });
    dia = sumarDias(fin, 1);
  }
  return lista;
}

/** How many periods a range has, without building them (to refuse a range too long first). */
export function cuentaPeriodos(desde: string, hasta: string, agrupacion: Agrupacion): number {
  if (agrupacion === 'dia') return diasEntre(desde, hasta) + 1;
  const meses = (f: string) => Number(f.slice(0, 4)) * 12 + Number(f.slice(5, 7));
  return meses(hasta) - meses(desde) + 1;
}

export interface SerieFolio {
  /** Null: any serie (or none). */
  serie: string | null;
  folio: string;
}

/**
 * What a person may mean by a serie-folio as typed: `A-123` (serie A, folio 123), `123` (folio 123 of any serie),
 * `A123` (letters then digits). A serie or a folio may itself hold a dash (`FAC-MX-77`), so every dash is tried as
 * the separator; the folio alone is always a candidate. Spaces around the separator are ignored.
 */
export function candidatosSerieFolio(texto: string): SerieFolio[] {
  const t = texto.trim();
  const lista: SerieFolio[] = [{ serie: null, folio: t }];
  for (let i = t.indexOf('-'); i > 0 && i < t.length - 1; i = t.indexOf('-', i + 1)) {
    const serie = t.slice(0, i).trim();
    const folio = t.slice(i + 1).trim();
    if (serie && folio) lista.push({ serie, folio });
  }
  const pegado = /^([A-Za-zÑñ]+)\s*(\d+)$/.exec(t);
  if (pegado) lista.push({ serie: pegado[1]!, folio: pegado[2]! });
  return lista;
}

/** The serie-folio as people read it: `A-123`, or the folio alone. */
export const serieFolio = (serie: string | null, folio: string | null): string | null =>
  folio === null ? serie : serie ? `${serie}-${folio}` : folio;
