import type { Esquema } from '../contrato';
import { d, fijo, type Decimal } from '../cfdi/decimal';
import type { FacturaDeCuenta, PagoDeCuenta } from '../db/repositorios/cobranza';
import type { FilaCliente } from '../db/repositorios/clientes';
import type { Modo } from '../dominio/alcance';
import { CUBETAS_ANTIGUEDAD, cubetaAntiguedad, diasEntre, serieFolio } from '../dominio/cobranza';
import { csv, type Celda } from './csv';

export type EstadoDeCuenta = Esquema<'EstadoDeCuenta'>;
type Totales = EstadoDeCuenta['totales'][number];

interface Acumulado {
  decimales: number;
  facturas: number;
  facturado: Decimal;
  cobrado: Decimal;
  antiguedad: Record<(typeof CUBETAS_ANTIGUEDAD)[number], Decimal>;
}

/**
 * A client's statement as of `fecha` (a local day), from its invoices and the ledger's vigente instalments: what
 * was issued and received up to that day. A PUE invoice was paid at issue; a PPD one owes its total minus its
 * instalments; a cancelled one owes nothing and counts in no total.
 */
export function armarEstadoDeCuenta(e: {
  modo: Modo;
  cliente: FilaCliente;
  fecha: string;
  facturas: FacturaDeCuenta[];
  pagos: PagoDeCuenta[];
  /** Decimals of a currency (c_Moneda): amounts are shown with them. */
  decimalesDe: (moneda: string) => number;
}): EstadoDeCuenta {
  const facturas = e.facturas.filter((f) => f.fecha.slice(0, 10) <= e.fecha);
  const porId = new Map(facturas.map((f) => [f.id, f]));
  const pagos = e.pagos.filter((p) => p.fecha_pago.slice(0, 10) <= e.fecha && porId.has(p.factura_id));
  const pagadoPpd = new Map<string, Decimal>();
  for (const p of pagos)
    pagadoPpd.set(p.factura_id, (pagadoPpd.get(p.factura_id) ?? d(0)).plus(p.imp_pagado));

  const totales = new Map<string, Acumulado>();
  const lineas = facturas.map((f) => {
    const decimales = e.decimalesDe(f.moneda);
    const total = d(f.total);
    const cancelada = f.estado === 'cancelada';
    const pagado = cancelada ? d(0) : f.metodo_pago === 'PPD' ? (pagadoPpd.get(f.id) ?? d(0)) : total;
    const saldo = cancelada ? d(0) : total.minus(pagado);
    const dias = diasEntre(f.fecha, e.fecha);
    const cubeta = saldo.gt(0) ? cubetaAntiguedad(dias) : null;
    if (!cancelada) {
      const t = totales.get(f.moneda) ?? {
        decimales,
        facturas: 0,
        facturado: d(0),
        cobrado: d(0),
        antiguedad: { de_0_a_30: d(0), de_31_a_60: d(0), de_61_a_90: d(0), mas_de_90: d(0) },
      };
      t.facturas += 1;
      t.facturado = t.facturado.plus(total);
      t.cobrado = t.cobrado.plus(pagado);
      if (cubeta) t.antiguedad[cubeta] = t.antiguedad[cubeta].plus(saldo);
      totales.set(f.moneda, t);
    }
    return {
      id: f.id,
      uuid: f.uuid,
      serie: f.serie,
      folio: f.folio,
      serie_folio: serieFolio(f.serie, f.folio),
      fecha: f.fecha,
      estado: f.estado,
      metodo_pago: f.metodo_pago as 'PUE' | 'PPD' | null,
      moneda: f.moneda,
      total: fijo(total, decimales),
      pagado: fijo(pagado, decimales),
      saldo_pendiente: fijo(saldo, decimales),
      dias,
      antiguedad: cubeta,
    };
  });

  return {
    objeto: 'estado_de_cuenta',
    modo: e.modo,
    cliente: {
      id: e.cliente.id,
      organizacion: e.cliente.organizacion_id,
      rfc: e.cliente.rfc,
      nombre: e.cliente.nombre,
    },
    fecha: e.fecha,
    facturas: lineas,
    pagos: pagos.map((p) => {
      const f = porId.get(p.factura_id)!;
      const m = (v: string) => fijo(d(v), e.decimalesDe(f.moneda));
      return {
        pago: p.pago_id,
        factura_pago: p.factura_pago_id,
        uuid: p.uuid_pago,
        serie_folio: serieFolio(p.serie_pago, p.folio_pago),
        factura: p.factura_id,
        factura_uuid: f.uuid,
        fecha_pago: p.fecha_pago,
        moneda: f.moneda,
        num_parcialidad: p.num_parcialidad,
        imp_saldo_anterior: m(p.imp_saldo_anterior),
        imp_pagado: m(p.imp_pagado),
        imp_saldo_insoluto: m(p.imp_saldo_insoluto),
      };
    }),
    totales: [...totales]
      .sort(([x], [y]) => (x < y ? -1 : 1))
      .map(
        ([moneda, t]): Totales => ({
          moneda,
          facturas: t.facturas,
          facturado: fijo(t.facturado, t.decimales),
          cobrado: fijo(t.cobrado, t.decimales),
          saldo: fijo(t.facturado.minus(t.cobrado), t.decimales),
          antiguedad: {
            de_0_a_30: fijo(t.antiguedad.de_0_a_30, t.decimales),
            de_31_a_60: fijo(t.antiguedad.de_31_a_60, t.decimales),
            de_61_a_90: fijo(t.antiguedad.de_61_a_90, t.decimales),
            mas_de_90: fijo(t.antiguedad.mas_de_90, t.decimales),
          },
        }),
      ),
  };
}

export const COLUMNAS_CSV = [
  'tipo',
  'fecha',
  'uuid',
  'serie_folio',
  'factura_uuid',
  'estado',
  'metodo_pago',
  'moneda',
  'cargo',
  'abono',
  'num_parcialidad',
  'saldo',
  'dias',
  ...CUBETAS_ANTIGUEDAD,
] as const;

const NUMERICAS = new Set<string>([
  'cargo',
  'abono',
  'num_parcialidad',
  'saldo',
  'dias',
  ...CUBETAS_ANTIGUEDAD,
]);

/**
 * The statement as a ledger a spreadsheet opens: each invoice (its total as `cargo`, what was paid at issue or
 * cancelled as `abono`), then each payment applied to it (`abono`, and the balance it left), then a total per
 * currency with the ageing. Per invoice, `cargo` minus every `abono` is its `saldo`.
 */
export function csvEstadoDeCuenta(e: EstadoDeCuenta): string {
  const filas: Celda[][] = [];
  const vacias = CUBETAS_ANTIGUEDAD.map(() => null);
  const pagosDe = new Map<string, EstadoDeCuenta['pagos']>();
  for (const p of e.pagos) pagosDe.set(p.factura, [...(pagosDe.get(p.factura) ?? []), p]);
  for (const f of e.facturas) {
    filas.push([
      'factura',
      f.fecha,
      f.uuid,
      f.serie_folio,
      null,
      f.estado,
      f.metodo_pago,
      f.moneda,
      f.total,
      // Paid at issue (PUE) or cancelled: it owes nothing from the start. A PPD one's payments follow.
      f.estado === 'cancelada' || f.metodo_pago !== 'PPD' ? f.total : null,
      null,
      f.saldo_pendiente,
      f.dias,
      ...vacias,
    ]);
    for (const p of pagosDe.get(f.id) ?? [])
      filas.push([
        'pago',
        p.fecha_pago,
        p.uuid,
        p.serie_folio,
        p.factura_uuid,
        null,
        null,
        p.moneda,
        null,
        p.imp_pagado,
        p.num_parcialidad,
        p.imp_saldo_insoluto,
        null,
        ...vacias,
      ]);
  }
  for (const t of e.totales)
    filas.push([
      'total',
      e.fecha,
      null,
      null,
      null,
      null,
      null,
      t.moneda,
      t.facturado,
      t.cobrado,
      null,
      t.saldo,
      null,
      ...CUBETAS_ANTIGUEDAD.map((c) => t.antiguedad[c]),
    ]);
  return csv(COLUMNAS_CSV, filas, NUMERICAS);
}

/** The attachment's name: ASCII only (an RFC may hold Ñ or &). */
export const archivoEstadoDeCuenta = (rfc: string, fecha: string) =>
  `estado-de-cuenta-${rfc.replace(/[^A-Za-z0-9]/g, '_')}-${fecha}.csv`;
