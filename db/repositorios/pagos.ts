import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import type { EstadoFactura } from '../../dominio/factura';
import type { Pagina, Tramo } from '../../dominio/paginacion';
import type { EstadoPago, ParcialidadPago, RechazoPago, SolicitudPago } from '../../dominio/pago';
import { paginar } from '../paginacion';
import { conexion, type Transaccion } from '../transacciones';
import type { ProcesoPendiente } from './facturas';
import { columnasAlcance, conAlcance, leerJson } from './con-alcance';

/** A payment with its ledger rows and the state of its payment CFDI. */
export interface FilaPago {
  id: string;
  modo: Modo;
  organizacion_id: string;
  estado: EstadoPago;
  solicitud: SolicitudPago;
  error: RechazoPago | null;
  factura_pago_id: string | null;
  /** Of the payment CFDI: `borrador` until stamped, then `timbrada` or `cancelada`. */
  factura_pago_estado: EstadoFactura | null;
  factura_pago_uuid: string | null;
  parcialidades: ParcialidadPago[];
  creado_en: Date;
  actualizado_en: Date;
}

const COLUMNAS = [
  'pagos.id',
  'pagos.modo',
  'pagos.organizacion_id',
  'pagos.estado',
  'pagos.solicitud',
  'pagos.error',
  'pagos.factura_pago_id',
  'f.estado as factura_pago_estado',
  'f.uuid as factura_pago_uuid',
  'pagos.creado_en',
  'pagos.actualizado_en',
];

const COLUMNAS_LIBRO = [
  'pago_id',
  'factura_id as factura',
  'uuid',
  'moneda',
  'decimales',
  'equivalencia',
  'num_parcialidad',
  'imp_saldo_anterior',
  'imp_pagado',
  'imp_saldo_insoluto',
  'objeto_imp',
  'vigente',
];

type FilaBd = Omit<FilaPago, 'solicitud' | 'error' | 'parcialidades'> & {
  solicitud: unknown;
  error: unknown;
};

export function crearRepositorioPagos(db: Knex) {
  const consulta = (a: Alcance, tx?: Transaccion) =>
    conAlcance(conexion(db, tx), 'pagos', a)
      .leftJoin('facturas as f', 'f.id', 'pagos.factura_pago_id')
      .select(COLUMNAS);

  /** The ledger rows of several payments in one query, in the order the request named the invoices. */
  async function conLibro(filas: FilaBd[], tx?: Transaccion): Promise<FilaPago[]> {
    if (!filas.length) return [];
    const libro = (await conexion(
      db,
      tx,
    )('pagos_facturas')
      .select(COLUMNAS_LIBRO)
      .whereIn(
        'pago_id',
        filas.map((f) => f.id),
      )) as (ParcialidadPago & { pago_id: string; vigente: number | boolean })[];
    return filas.map((f) => {
      const solicitud = leerJson<SolicitudPago>(f.solicitud);
      const orden = solicitud.facturas_pagadas.map((x) => x.factura);
      const propias = libro
        .filter((l) => l.pago_id === f.id)
        .map(({ pago_id: _, ...l }) => ({ ...l, vigente: Boolean(l.vigente) }))
        .sort((x, y) => orden.indexOf(x.factura) - orden.indexOf(y.factura));
      return {
        ...f,
        solicitud,
        error: f.error === null ? null : leerJson<RechazoPago>(f.error),
        parcialidades: propias,
      };
    });
  }

  return {
    /** The request, before any rule ran: the payment workflow checks it under the invoices' locks. */
    async crear(
      a: Alcance,
      p: { id: string; organizacion_id: string; solicitud: SolicitudPago },
      tx?: Transaccion,
    ): Promise<void> {
      await conexion(
        db,
        tx,
      )('pagos').insert({
        id: p.id,
        ...columnasAlcance(a),
        organizacion_id: p.organizacion_id,
        estado: 'registrando',
        solicitud: JSON.stringify(p.solicitud),
      });
    },

    async obtener(a: Alcance, id: string, tx?: Transaccion): Promise<FilaPago | undefined> {
      const [f] = await conLibro(await consulta(a, tx).where('pagos.id', id), tx);
      return f;
    },

    /** Registered payments (and those still registering), newest first; refused requests are not listed. */
    async listar(
      a: Alcance,
      filtros: { organizacionId?: string; facturaId?: string },
      pagina: Pagina,
    ): Promise<Tramo<FilaPago>> {
      const c = consulta(a).whereNot('pagos.estado', 'rechazado');
      if (filtros.organizacionId) c.where('pagos.organizacion_id', filtros.organizacionId);
      if (filtros.facturaId) {
        c.whereExists(
          db('pagos_facturas')
            .select(db.raw('1'))
            .whereRaw('pagos_facturas.pago_id = pagos.id')
            .andWhere('pagos_facturas.factura_id', filtros.facturaId),
        );
      }
      const t = await paginar<FilaBd>(c, pagina, 'pagos.id');
      return { datos: await conLibro(t.datos), hayMas: t.hayMas };
    },

    /** Locks the payment first: a second run of the ledger step waits, then finds it decided. */
    async bloquear(tx: Transaccion, a: Alcance, id: string): Promise<{ estado: EstadoPago } | undefined> {
      return conAlcance(conexion(db, tx), 'pagos', a).select('estado').where({ id }).forUpdate().first();
    },

    /** Writes the ledger and marks the payment registered, inside the transaction that holds the locks. */
    async registrar(
      tx: Transaccion,
      a: Alcance,
      id: string,
      facturaPagoId: string,
      parcialidades: Omit<ParcialidadPago, 'vigente'>[],
    ): Promise<void> {
      const c = conexion(db, tx);
      await c('pagos_facturas').insert(
        parcialidades.map(({ factura, ...p }) => ({
          ...p,
          pago_id: id,
          factura_id: factura,
          ...columnasAlcance(a),
        })),
      );
      await conAlcance(c, 'pagos', a)
        .where({ id })
        .update({ estado: 'registrado', factura_pago_id: facturaPagoId, actualizado_en: new Date() });
    },

    async rechazar(tx: Transaccion, a: Alcance, id: string, error: RechazoPago): Promise<void> {
      await conAlcance(conexion(db, tx), 'pagos', a)
        .where({ id, estado: 'registrando' })
        .update({ estado: 'rechazado', error: JSON.stringify(error), actualizado_en: new Date() });
    },

    /**
     * A payment CFDI cancelled, or rejected by the PAC, gives its amounts back: its rows stop counting (they stay
     * as history). The paid invoices are locked first, in id order as the ledger step does, so a payment being
     * registered on them waits and then reads the balance given back. A rejection also ends the payment
     * `rechazado` with its error. Returns the payment, if the CFDI was one.
     */
    async revertir(
      tx: Transaccion,
      a: Alcance,
      facturaPagoId: string,
      rechazo?: RechazoPago,
    ): Promise<string | undefined> {
      const c = conexion(db, tx);
      const p = await conAlcance(c, 'pagos', a)
        .select('id')
        .where({ factura_pago_id: facturaPagoId })
        .first();
      if (!p) return undefined;
      const pagadas = await conAlcance(c, 'pagos_facturas', a).select('factura_id').where({ pago_id: p.id });
      await conAlcance(c, 'facturas', a)
        .select('id')
        .whereIn(
          'id',
          pagadas.map((x: { factura_id: string }) => x.factura_id),
        )
        .orderBy('id')
        .forUpdate();
      await conAlcance(c, 'pagos_facturas', a).where({ pago_id: p.id }).update({ vigente: false });
      await conAlcance(c, 'pagos', a)
        .where({ id: p.id })
        .update({
          actualizado_en: new Date(),
          ...(rechazo ? { estado: 'rechazado', error: JSON.stringify(rechazo) } : {}),
        });
      return p.id as string;
    },

    /** Payments still counting against an invoice (their CFDI not cancelled): the invoice cannot be cancelled. */
    async vigentesDeFactura(a: Alcance, facturaId: string, tx?: Transaccion): Promise<string[]> {
      const filas = await conAlcance(conexion(db, tx), 'pagos_facturas', a)
        .select('pago_id')
        .where({ factura_id: facturaId, vigente: true });
      return filas.map((f: { pago_id: string }) => f.pago_id);
    },

    /**
     * Every payment the ledger ever took for an invoice, in id order: cancelled and PAC-rejected ones too (their
     * rows stay as history), unlike the list. An invoice has a handful: no pagination.
     */
    async deFactura(a: Alcance, facturaId: string): Promise<FilaPago[]> {
      const c = consulta(a)
        .whereExists(
          db('pagos_facturas')
            .select(db.raw('1'))
            .whereRaw('pagos_facturas.pago_id = pagos.id')
            .andWhere('pagos_facturas.factura_id', facturaId),
        )
        .orderBy('pagos.id');
      return conLibro((await c) as FilaBd[]);
    },

    /** System work, across accounts (the start reconciler): payments still registering since before `antesDe`. */
    async registrosPendientes(
      antesDe: Date,
      limite: number,
    ): Promise<(ProcesoPendiente & { facturas: string[] })[]> {
      const filas: (ProcesoPendiente & { solicitud: unknown })[] = await db('pagos')
        .select('id', 'cuenta_id', 'modo', 'organizacion_id', 'solicitud')
        .where('estado', 'registrando')
        .where('actualizado_en', '<', antesDe)
        .orderBy('actualizado_en')
        .limit(limite);
      return filas.map(({ solicitud, ...p }) => ({
        ...p,
        facturas: leerJson<SolicitudPago>(solicitud).facturas_pagadas.map((x) => x.factura),
      }));
    },
  };
}

export type RepositorioPagos = ReturnType<typeof crearRepositorioPagos>;
