import type { Knex } from 'knex';
import type { Alcance } from '../../dominio/alcance';
import { conAlcance } from './con-alcance';

/**
 * The reads of collections (a client's statement of account, the billing summary): invoices and the payments
 * ledger, summed or listed for a console, never written. Each is one or two index ranges of migration 023
 * (an invoice's client; the stamp date with every column the summary sums; a payment's date).
 */

/** A client's stamped or cancelled ingreso invoice, as its statement lists it. Amounts as DECIMAL(24,6) text. */
export interface FacturaDeCuenta {
  id: string;
  organizacion_id: string;
  uuid: string | null;
  serie: string | null;
  folio: string | null;
  /** The CFDI's Fecha: local time of the place of issue. */
  fecha: string;
  estado: 'timbrada' | 'cancelada';
  total: string;
  moneda: string;
  metodo_pago: string | null;
}

/** One vigente instalment paid to one of the client's invoices. Amounts in the invoice's currency. */
export interface PagoDeCuenta {
  factura_id: string;
  pago_id: string;
  /** The payment CFDI (type P), its UUID and serie-folio once stamped. */
  factura_pago_id: string | null;
  uuid_pago: string | null;
  serie_pago: string | null;
  folio_pago: string | null;
  /** When the money was received, local time of the place of issue. */
  fecha_pago: string;
  num_parcialidad: number;
  imp_saldo_anterior: string;
  imp_pagado: string;
  imp_saldo_insoluto: string;
}

export interface FiltrosResumen {
  /** Local days, inclusive. */
  desde: string;
  hasta: string;
  moneda: string;
  organizacionId?: string;
}

/** Ingreso invoices stamped on one day, by what they are now and how they are paid. */
export interface FacturadoDelDia {
  dia: string;
  estado: 'timbrada' | 'cancelada';
  metodo_pago: string | null;
  facturas: number;
  total: string;
}

/** Instalments (PPD) whose payment was received on one day. */
export interface CobradoDelDia {
  dia: string;
  parcialidades: number;
  total: string;
}

export function crearRepositorioCobranza(db: Knex) {
  return {
    /** Oldest first. One index range (account, mode, client). */
    async facturasDeCliente(a: Alcance, clienteId: string): Promise<FacturaDeCuenta[]> {
      return (await conAlcance(db, 'facturas', a)
        .where({ cliente_id: clienteId, tipo: 'ingreso' })
        .whereIn('estado', ['timbrada', 'cancelada'])
        .orderBy('id')
        .select(
          'id',
          'organizacion_id',
          'uuid',
          'serie',
          'folio',
          'estado',
          'total',
          'moneda',
          'metodo_pago',
          // Stored generated columns (023): the document's JSON is not parsed.
          'fecha_emision as fecha',
        )) as FacturaDeCuenta[];
    },

    /** The vigente instalments of the client's invoices, in the order they were received. One join. */
    async pagosDeCliente(a: Alcance, clienteId: string): Promise<PagoDeCuenta[]> {
      const filas = (await conAlcance(db, 'facturas', a)
        .join('pagos_facturas as pf', 'pf.factura_id', 'facturas.id')
        .join('pagos as p', 'p.id', 'pf.pago_id')
        .leftJoin('facturas as fp', 'fp.id', 'p.factura_pago_id')
        .where({ 'facturas.cliente_id': clienteId, 'facturas.tipo': 'ingreso', 'pf.vigente': true })
        .select(
          'pf.factura_id',
          'pf.pago_id',
          'p.factura_pago_id',
          'fp.uuid as uuid_pago',
          'fp.serie as serie_pago',
          'fp.folio as folio_pago',
          'p.fecha_pago',
          'pf.num_parcialidad',
          'pf.imp_saldo_anterior',
          'pf.imp_pagado',
          'pf.imp_saldo_insoluto',
        )) as PagoDeCuenta[];
      // Sorted here, not by the database: its temporary table and filesort cost more than the read (bench:consola).
      const clave = (f: PagoDeCuenta) =>
        `${f.fecha_pago}|${f.factura_id}|${String(f.num_parcialidad).padStart(6, '0')}`;
      return filas
        .map((f) => ({ ...f, num_parcialidad: Number(f.num_parcialidad) }))
        .sort((x, y) => (clave(x) < clave(y) ? -1 : clave(x) > clave(y) ? 1 : 0));
    },

    /** One index range of `facturas_alcance_resumen`, read from the index alone (it holds every column). */
    async facturadoPorDia(a: Alcance, f: FiltrosResumen): Promise<FacturadoDelDia[]> {
      const q = conAlcance(db, 'facturas', a)
        .where({ tipo: 'ingreso', moneda: f.moneda })
        // The stamp date is text `YYYY-MM-DDThh:mm:ss`: text orders like time.
        .whereBetween('fecha_timbrado', [`${f.desde}T00:00:00`, `${f.hasta}T23:59:59`])
        .whereIn('estado', ['timbrada', 'cancelada'])
        .groupByRaw('LEFT(fecha_timbrado, 10), estado, metodo_pago')
        .select(
          db.raw('LEFT(fecha_timbrado, 10) AS dia'),
          'estado',
          'metodo_pago',
          db.raw('COUNT(*) AS facturas'),
          db.raw('CAST(SUM(total) AS CHAR) AS total'),
        );
      if (f.organizacionId) q.where('organizacion_id', f.organizacionId);
      const filas = (await q) as (Omit<FacturadoDelDia, 'facturas'> & { facturas: string | number })[];
      return filas.map((r) => ({ ...r, facturas: Number(r.facturas) })).sort(porDia);
    },

    /** Payments by their date (`pagos_alcance_fecha`), each with its vigente rows in the currency asked. */
    async cobradoPorDia(a: Alcance, f: FiltrosResumen): Promise<CobradoDelDia[]> {
      const q = conAlcance(db, 'pagos', a)
        .join('pagos_facturas as pf', 'pf.pago_id', 'pagos.id')
        .where({ 'pagos.estado': 'registrado', 'pf.vigente': true, 'pf.moneda': f.moneda })
        .whereBetween('pagos.fecha_pago', [`${f.desde}T00:00:00`, `${f.hasta}T23:59:59`])
        .groupByRaw('LEFT(pagos.fecha_pago, 10)')
        .select(
          db.raw('LEFT(pagos.fecha_pago, 10) AS dia'),
          db.raw('COUNT(*) AS parcialidades'),
          db.raw('CAST(SUM(pf.imp_pagado) AS CHAR) AS total'),
        );
      if (f.organizacionId) q.where('pagos.organizacion_id', f.organizacionId);
      const filas = (await q) as (Omit<CobradoDelDia, 'parcialidades'> & {
        parcialidades: string | number;
      })[];
      return filas.map((r) => ({ ...r, parcialidades: Number(r.parcialidades) })).sort(porDia);
    },
  };
}

/** A stable order for both implementations: by day, then state and payment method. */
export const porDia = (
  x: { dia: string; estado?: string; metodo_pago?: string | null },
  y: { dia: string; estado?: string; metodo_pago?: string | null },
) => {
  const k = (r: typeof x) => `${r.dia}|${r.estado ?? ''}|${r.metodo_pago ?? ''}`;
  return k(x) < k(y) ? -1 : k(x) > k(y) ? 1 : 0;
};

export type RepositorioCobranza = ReturnType<typeof crearRepositorioCobranza>;
