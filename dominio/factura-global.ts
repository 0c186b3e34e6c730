import { d, Decimal, DECIMALES_CONCEPTO, fijo } from '../cfdi/decimal';
import type { ConceptoEntrada, ImpuestoConcepto } from '../cfdi/comprobante/tipos';
import type { DocumentoRecibo } from './recibo';

/** c_Periodicidad: 01 diario, 02 semanal, 03 quincenal, 04 mensual, 05 bimestral (only régimen 621). */
export type Periodicidad = '01' | '02' | '03' | '04' | '05';
export const PERIODICIDADES: readonly Periodicidad[] = ['01', '02', '03', '04', '05'];
export const NOMBRE_PERIODICIDAD: Record<Periodicidad, string> = {
  '01': 'diaria',
  '02': 'semanal',
  '03': 'quincenal',
  '04': 'mensual',
  '05': 'bimestral',
};
/** Bimestral is for the Régimen de Incorporación Fiscal (621) only (CFDI40132). */
export const REGIMEN_BIMESTRAL = '621';

/** Local dates (`YYYY-MM-DD`), both days included: the sales a global invoice covers. */
export interface Periodo {
  periodicidad: Periodicidad;
  desde: string;
  hasta: string;
}

const dos = (n: number) => String(n).padStart(2, '0');
const iso = (y: number, m: number, dia: number) => `${y}-${dos(m)}-${dos(dia)}`;
const partes = (f: string) => f.split('-').map(Number) as [number, number, number];
const diasDelMes = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** The day before or after a local date, by the calendar (no clock involved). */
export function sumarDias(fecha: string, dias: number): string {
  const [y, m, dia] = partes(fecha);
  return new Date(Date.UTC(y, m - 1, dia + dias)).toISOString().slice(0, 10);
}

/**
 * The period of a periodicity that contains a local date. A period never crosses a month (InformacionGlobal
 * names one month, or one pair of months): a week is Monday to Sunday, cut at the month's ends; a fortnight is
 * the 1st–15th or the 16th–end; a bimester is January–February, March–April…
 */
export function periodoDe(periodicidad: Periodicidad, fecha: string): Periodo {
  const [y, m, dia] = partes(fecha);
  const fin = diasDelMes(y, m);
  switch (periodicidad) {
    case '01':
      return { periodicidad, desde: fecha, hasta: fecha };
    case '02': {
      const semana = (new Date(Date.UTC(y, m - 1, dia)).getUTCDay() + 6) % 7; // Monday 0
      return {
        periodicidad,
        desde: iso(y, m, Math.max(1, dia - semana)),
        hasta: iso(y, m, Math.min(fin, dia - semana + 6)),
      };
    }
    case '03':
      return dia <= 15
        ? { periodicidad, desde: iso(y, m, 1), hasta: iso(y, m, 15) }
        : { periodicidad, desde: iso(y, m, 16), hasta: iso(y, m, fin) };
    case '04':
      return { periodicidad, desde: iso(y, m, 1), hasta: iso(y, m, fin) };
    case '05': {
      const primero = m % 2 === 1 ? m : m - 1;
      return {
        periodicidad,
        desde: iso(y, primero, 1),
        hasta: iso(y, primero + 1, diasDelMes(y, primero + 1)),
      };
    }
  }
}

/** The latest period that has closed by a local date `hoy` (its last day is before today). */
export function ultimoPeriodoCerrado(periodicidad: Periodicidad, hoy: string): Periodo {
  const p = periodoDe(periodicidad, sumarDias(hoy, -1));
  return p.hasta < hoy ? p : periodoDe(periodicidad, sumarDias(p.desde, -1));
}

/** InformacionGlobal of a period: Meses is the month, or 13–18 for the bimesters (CFDI40133–40135). */
export function informacionGlobal(p: Periodo): { periodicidad: string; meses: string; anio: string } {
  const [y, m] = partes(p.desde);
  const meses = p.periodicidad === '05' ? String(12 + (m + 1) / 2) : dos(m);
  return { periodicidad: p.periodicidad, meses, anio: String(y) };
}

/** A receipt as the global invoice needs it. */
export interface ReciboEnGlobal {
  id: string;
  folio: string | null;
  documento: Pick<DocumentoRecibo, 'conceptos' | 'importes' | 'forma_pago'>;
}

/** The lines of one receipt with one tax treatment, summed. */
interface Grupo {
  importe: Decimal;
  descuento: Decimal;
  impuestos?: ConceptoEntrada['impuestos'];
  objeto: string;
  /** A Cuota line's own quantity and unit value (its tax is per unit). */
  cantidad?: string;
  valor?: string;
}

const firmaImpuestos = (c: ConceptoEntrada) =>
  JSON.stringify([
    c.objeto_imp,
    (c.impuestos?.traslados ?? []).map((i) => [i.impuesto, i.tipo_factor, i.tasa_o_cuota ?? '']),
    (c.impuestos?.retenciones ?? []).map((i) => [i.impuesto, i.tipo_factor, i.tasa_o_cuota ?? '']),
  ]);

/**
 * The concepts of a global invoice, as the SAT's guide asks: one per receipt, ClaveProdServ 01010101, ClaveUnidad
 * ACT, Descripcion "Venta", NoIdentificacion the receipt's folio (its id when it has none), quantity 1, the
 * receipt's amount before taxes and its discount, and its own taxes. A receipt whose lines are taxed differently
 * (16 % and 0 %, say) gives one concept per treatment, all with its NoIdentificacion, since a concept's taxes
 * share one base. Concepts with a Cuota (IEPS per unit) keep their own quantity and unit value instead.
 */
export function conceptosGlobales(recibos: ReciboEnGlobal[]): ConceptoEntrada[] {
  const salida: ConceptoEntrada[] = [];
  for (const r of recibos) {
    const grupos = new Map<string, Grupo>();
    r.documento.importes.conceptos.forEach((c, i) => {
      const entrada = r.documento.conceptos[i]!;
      const cuota = [...(entrada.impuestos?.traslados ?? []), ...(entrada.impuestos?.retenciones ?? [])].some(
        (t: ImpuestoConcepto) => t.tipo_factor === 'Cuota',
      );
      const clave = cuota ? `cuota-${i}` : firmaImpuestos(entrada);
      const g = grupos.get(clave) ?? {
        importe: d(0),
        descuento: d(0),
        impuestos: entrada.impuestos,
        objeto: entrada.objeto_imp,
        ...(cuota ? { cantidad: entrada.cantidad, valor: entrada.valor_unitario } : {}),
      };
      g.importe = g.importe.plus(d(c.importe));
      g.descuento = g.descuento.plus(d(c.descuento ?? '0'));
      grupos.set(clave, g);
    });
    for (const g of grupos.values()) {
      salida.push({
        clave_prod_serv: '01010101',
        no_identificacion: r.folio ?? r.id,
        cantidad: g.cantidad ?? '1',
        clave_unidad: 'ACT',
        descripcion: 'Venta',
        valor_unitario: g.valor ?? fijo(g.importe, DECIMALES_CONCEPTO),
        ...(g.descuento.isZero() ? {} : { descuento: fijo(g.descuento, DECIMALES_CONCEPTO) }),
        objeto_imp: g.objeto,
        ...(g.impuestos ? { impuestos: g.impuestos } : {}),
      });
    }
  }
  return salida;
}

/**
 * FormaPago of a global invoice: the form through which the greatest amount was received, as the SAT's guide asks
 * when the period's sales were paid in several ways (ties: the lowest code).
 */
export function formaPagoGlobal(recibos: ReciboEnGlobal[]): string {
  const sumas = new Map<string, Decimal>();
  for (const r of recibos) {
    const f = r.documento.forma_pago;
    sumas.set(f, (sumas.get(f) ?? d(0)).plus(d(r.documento.importes.total)));
  }
  return [...sumas.entries()].sort((a, b) => b[1].comparedTo(a[1]) || a[0].localeCompare(b[0]))[0]![0];
}
