import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import type { Pagina, Tramo } from '../../dominio/paginacion';
import type { DocumentoRecibo, EstadoRecibo } from '../../dominio/recibo';
import { paginar } from '../paginacion';
import { conexion, type Transaccion } from '../transacciones';
import { columnasAlcance, conAlcance, leerJson, sinDuplicar } from './con-alcance';

export interface FilaRecibo {
  id: string;
  modo: Modo;
  organizacion_id: string;
  estado: EstadoRecibo;
  /** The sale's local time at the place of issue, `YYYY-MM-DDThh:mm:ss`. */
  fecha: string;
  folio: string | null;
  sucursal: string | null;
  documento: DocumentoRecibo;
  /** The buyer's key, sealed by the vault (bound to this row, account and mode). */
  clave_cifrada: Buffer;
  dek_cifrada: Buffer;
  version_clave: number;
  vence_en: Date;
  factura_id: string | null;
  factura_global_id: string | null;
  cancelado_en: Date | null;
  /** A claimed receipt of a global invoice: when the global that held its sale was replaced without it. */
  fuera_de_global_en: Date | null;
  creado_en: Date;
  actualizado_en: Date;
}

export type ReciboNuevoFila = Pick<
  FilaRecibo,
  | 'id'
  | 'organizacion_id'
  | 'fecha'
  | 'folio'
  | 'sucursal'
  | 'documento'
  | 'clave_cifrada'
  | 'dek_cifrada'
  | 'version_clave'
  | 'vence_en'
> & { clave_hash: string };

export interface FiltrosRecibos {
  organizacionId?: string;
  estado?: EstadoRecibo;
  /** Local dates (`YYYY-MM-DD`), both days included. */
  fechaDesde?: string;
  fechaHasta?: string;
  /** The receipts a global invoice took (claimed ones too). */
  facturaGlobalId?: string;
}

/** Who a key belongs to: all the portal learns before it reads the receipt in that scope. */
export interface DuenioClave {
  id: string;
  cuenta_id: string;
  modo: Modo;
}

/** A claim of a receipt in a global invoice whose global is not replaced yet. */
export interface ReclamoPendiente extends DuenioClave {
  factura_id: string;
  factura_global_id: string;
  organizacion_id: string;
}

const COLUMNAS = [
  'id',
  'modo',
  'organizacion_id',
  'estado',
  'fecha',
  'folio',
  'sucursal',
  'documento',
  'clave_cifrada',
  'dek_cifrada',
  'version_clave',
  'vence_en',
  'factura_id',
  'factura_global_id',
  'cancelado_en',
  'fuera_de_global_en',
  'creado_en',
  'actualizado_en',
].map((c) => `recibos.${c}`);

type FilaBd = Omit<FilaRecibo, 'documento'> & { documento: unknown };

const leer = (f: FilaBd): FilaRecibo => ({ ...f, documento: leerJson<DocumentoRecibo>(f.documento) });

export function crearRepositorioRecibos(db: Knex) {
  return {
    /** Inside the caller's transaction (the one that writes `recibo.creado`); a folio taken → RegistroDuplicado. */
    async insertar(tx: Transaccion, a: Alcance, r: ReciboNuevoFila): Promise<void> {
      await sinDuplicar(() =>
        conexion(
          db,
          tx,
        )('recibos').insert({
          ...r,
          ...columnasAlcance(a),
          documento: JSON.stringify(r.documento),
          estado: 'abierto',
        }),
      );
    },

    async obtener(
      a: Pick<Alcance, 'cuentaId' | 'modo'>,
      id: string,
      tx?: Transaccion,
    ): Promise<FilaRecibo | undefined> {
      const f = (await conAlcance(conexion(db, tx), 'recibos', a)
        .select(COLUMNAS)
        .where('recibos.id', id)
        .first()) as FilaBd | undefined;
      return f && leer(f);
    },

    async listar(a: Alcance, filtros: FiltrosRecibos, pagina: Pagina): Promise<Tramo<FilaRecibo>> {
      const c = conAlcance(db, 'recibos', a).select(COLUMNAS);
      if (filtros.organizacionId) c.where('recibos.organizacion_id', filtros.organizacionId);
      if (filtros.estado) c.where('recibos.estado', filtros.estado);
      if (filtros.fechaDesde) c.where('recibos.fecha', '>=', `${filtros.fechaDesde}T00:00:00`);
      if (filtros.fechaHasta) c.where('recibos.fecha', '<=', `${filtros.fechaHasta}T23:59:59`);
      if (filtros.facturaGlobalId) c.where('recibos.factura_global_id', filtros.facturaGlobalId);
      const t = await paginar<FilaBd>(c, pagina, 'recibos.id');
      return { datos: t.datos.map(leer), hayMas: t.hayMas };
    },

    /**
     * Cancels an open receipt inside the caller's transaction (the one that writes `recibo.cancelado`). False
     * when it was not open: a receipt invoiced or in a global invoice meanwhile stays as it is.
     */
    async cancelar(tx: Transaccion, a: Alcance, id: string, en: Date): Promise<boolean> {
      const n = await conAlcance(conexion(db, tx), 'recibos', a)
        .where({ id, estado: 'abierto' })
        .update({ estado: 'cancelado', cancelado_en: en, actualizado_en: en });
      return n > 0;
    },

    /**
     * Locks the row for a state transition inside `tx`: a second request for the same receipt waits here and then
     * reads what the first one committed (READ COMMITTED), so a receipt is invoiced once.
     */
    async bloquear(tx: Transaccion, a: Alcance, id: string): Promise<FilaRecibo | undefined> {
      const f = (await conAlcance(conexion(db, tx), 'recibos', a)
        .select(COLUMNAS)
        .where('recibos.id', id)
        .forUpdate()
        .first()) as FilaBd | undefined;
      return f && leer(f);
    },

    /** An open receipt becomes the given invoice's, inside the caller's transaction; false when it was not open. */
    async facturar(tx: Transaccion, a: Alcance, id: string, facturaId: string, en: Date): Promise<boolean> {
      const n = await conAlcance(conexion(db, tx), 'recibos', a)
        .where({ id, estado: 'abierto' })
        .update({ estado: 'facturado', factura_id: facturaId, actualizado_en: en });
      return n > 0;
    },

    /**
     * The organization's open receipts of a period in one currency, locked for the global invoice that takes
     * them (a concurrent global or claim waits), oldest first, at most `limite`.
     */
    async abiertosDelPeriodo(
      tx: Transaccion,
      a: Alcance,
      p: { organizacionId: string; desde: string; hasta: string; moneda: string; limite: number },
    ): Promise<FilaRecibo[]> {
      const filas = (await conAlcance(conexion(db, tx), 'recibos', a)
        .select(COLUMNAS)
        .where({ 'recibos.organizacion_id': p.organizacionId, 'recibos.estado': 'abierto' })
        .whereBetween('recibos.fecha', [`${p.desde}T00:00:00`, `${p.hasta}T23:59:59`])
        .whereRaw("JSON_UNQUOTE(JSON_EXTRACT(recibos.documento, '$.moneda')) = ?", [p.moneda])
        .orderBy([{ column: 'recibos.fecha' }, { column: 'recibos.id' }])
        .limit(p.limite)
        .forUpdate()) as FilaBd[];
      return filas.map(leer);
    },

    /** Every receipt a global invoice took, locked for its replacement. */
    async deGlobal(tx: Transaccion, a: Alcance, globalId: string): Promise<FilaRecibo[]> {
      const filas = (await conAlcance(conexion(db, tx), 'recibos', a)
        .select(COLUMNAS)
        .where('recibos.factura_global_id', globalId)
        .orderBy([{ column: 'recibos.fecha' }, { column: 'recibos.id' }])
        .forUpdate()) as FilaBd[];
      return filas.map(leer);
    },

    /**
     * Receipts go into a global invoice: the open ones of its period, or those its replacement carries over
     * (claims still being stamped among them keep their state and their invoice).
     */
    async aGlobal(tx: Transaccion, a: Alcance, ids: string[], globalId: string, en: Date): Promise<void> {
      if (!ids.length) return;
      const c = () => conAlcance(conexion(db, tx), 'recibos', a).whereIn('id', ids);
      await c().where('estado', 'abierto').update({ estado: 'en_factura_global', actualizado_en: en });
      await c().update({ factura_global_id: globalId, actualizado_en: en });
    },

    /** A receipt in a global invoice claimed by its buyer: invoiced to them, still held by the global. */
    async reclamar(tx: Transaccion, a: Alcance, id: string, facturaId: string, en: Date): Promise<boolean> {
      const n = await conAlcance(conexion(db, tx), 'recibos', a)
        .where({ id, estado: 'en_factura_global' })
        .update({ estado: 'facturado', factura_id: facturaId, actualizado_en: en });
      return n > 0;
    },

    /**
     * The buyer's invoice could not be stamped: the receipt is as before the request (open, or in its global
     * invoice), so the buyer can correct the data and try again.
     */
    async devolverPorRechazo(tx: Transaccion, a: Alcance, facturaId: string, en: Date): Promise<number> {
      return conAlcance(conexion(db, tx), 'recibos', a)
        .where({ factura_id: facturaId, estado: 'facturado' })
        .update({
          estado: db.raw("IF(factura_global_id IS NULL, 'abierto', 'en_factura_global')"),
          factura_id: null,
          actualizado_en: en,
        });
    },

    /** Claimed receipts whose global was replaced without them. */
    async fueraDeGlobal(tx: Transaccion, a: Alcance, ids: string[], en: Date): Promise<void> {
      if (!ids.length) return;
      await conAlcance(conexion(db, tx), 'recibos', a)
        .whereIn('id', ids)
        .whereNull('fuera_de_global_en')
        .update({ fuera_de_global_en: en, actualizado_en: en });
    },

    /** A global invoice that could not be stamped lets its receipts go back to open. */
    async liberarDeGlobal(tx: Transaccion, a: Alcance, globalId: string, en: Date): Promise<number> {
      return conAlcance(conexion(db, tx), 'recibos', a)
        .where({ factura_global_id: globalId, estado: 'en_factura_global' })
        .update({ estado: 'abierto', factura_global_id: null, actualizado_en: en });
    },

    /**
     * Every account's claims of receipts in a global invoice whose global is not replaced yet, untouched since
     * `antesDe`: the start reconciler starts (or joins) their workflow.
     */
    async reclamosPendientes(antesDe: Date, limite: number): Promise<ReclamoPendiente[]> {
      return (await db('recibos')
        .select('id', 'cuenta_id', 'modo', 'factura_id', 'factura_global_id', 'organizacion_id')
        .where('estado', 'facturado')
        .whereNull('fuera_de_global_en')
        .whereNotNull('factura_global_id')
        .where('actualizado_en', '<', antesDe)
        .orderBy('actualizado_en')
        .limit(limite)) as ReclamoPendiente[];
    },

    /** The receipt a key opens, in any account: the self-invoicing portal has no API key, only the key. */
    async porHashClave(hash: string): Promise<DuenioClave | undefined> {
      return (await db('recibos').where({ clave_hash: hash }).first('id', 'cuenta_id', 'modo')) as
        | DuenioClave
        | undefined;
    },
  };
}

export type RepositorioRecibos = ReturnType<typeof crearRepositorioRecibos>;
