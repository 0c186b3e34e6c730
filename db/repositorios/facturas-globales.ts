import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import type { Periodicidad } from '../../dominio/factura-global';
import { conexion, type Transaccion } from '../transacciones';
import { columnasAlcance, conAlcance } from './con-alcance';

export type OrigenGlobal = 'solicitud' | 'programacion' | 'reexpedicion';

export interface FilaFacturaGlobal {
  factura_id: string;
  modo: Modo;
  organizacion_id: string;
  periodicidad: Periodicidad;
  /** Local dates `YYYY-MM-DD`, both included. */
  desde: string;
  hasta: string;
  origen: OrigenGlobal;
  /** The global this one reissues without a claimed receipt (motivo 04). */
  reemplaza: string | null;
  /** The global that reissued this one, once a receipt's buyer claimed one of its sales. */
  reemplazada_por: string | null;
  reemplazada_en: Date | null;
}

const COLUMNAS = [
  'factura_id',
  'modo',
  'organizacion_id',
  'periodicidad',
  'desde',
  'hasta',
  'origen',
  'reemplaza',
  'reemplazada_por',
  'reemplazada_en',
];

// DATE columns come back as text (dateStrings for DATE in the connection) or as Date: one form out.
const dia = (v: unknown) => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10));
const leer = (f: FilaFacturaGlobal): FilaFacturaGlobal => ({
  ...f,
  desde: dia(f.desde),
  hasta: dia(f.hasta),
});

export function crearRepositorioFacturasGlobales(db: Knex) {
  const tabla = (a: Pick<Alcance, 'cuentaId' | 'modo'>, tx?: Transaccion) =>
    conAlcance(conexion(db, tx), 'facturas_globales', a);
  return {
    /** Inside the transaction that inserts its invoice and moves its receipts. */
    async insertar(
      tx: Transaccion,
      a: Alcance,
      g: Pick<
        FilaFacturaGlobal,
        'factura_id' | 'organizacion_id' | 'periodicidad' | 'desde' | 'hasta' | 'origen' | 'reemplaza'
      >,
    ): Promise<void> {
      await conexion(db, tx)('facturas_globales').insert({ ...g, ...columnasAlcance(a) });
    },

    async obtener(a: Pick<Alcance, 'cuentaId' | 'modo'>, facturaId: string, tx?: Transaccion) {
      const f = (await tabla(a, tx).select(COLUMNAS).where({ factura_id: facturaId }).first()) as
        | FilaFacturaGlobal
        | undefined;
      return f && leer(f);
    },

    /** Of several invoices at once (a list of invoices shows which are globals). */
    async deFacturas(a: Pick<Alcance, 'cuentaId' | 'modo'>, ids: string[]): Promise<FilaFacturaGlobal[]> {
      if (!ids.length) return [];
      return ((await tabla(a).select(COLUMNAS).whereIn('factura_id', ids)) as FilaFacturaGlobal[]).map(leer);
    },

    /** Locks a global for its replacement: two claims on it wait for each other. */
    async bloquear(tx: Transaccion, a: Alcance, facturaId: string) {
      const f = (await tabla(a, tx).select(COLUMNAS).where({ factura_id: facturaId }).forUpdate().first()) as
        | FilaFacturaGlobal
        | undefined;
      return f && leer(f);
    },

    async marcarReemplazada(
      tx: Transaccion,
      a: Alcance,
      facturaId: string,
      por: string | null,
      en: Date,
    ): Promise<void> {
      await tabla(a, tx)
        .where({ factura_id: facturaId })
        .update({ reemplazada_por: por, reemplazada_en: en });
    },

    /** A reissue that could not be stamped gives the replaced global back its place. */
    async deshacerReemplazo(tx: Transaccion, a: Alcance, facturaId: string): Promise<void> {
      await tabla(a, tx)
        .where({ factura_id: facturaId })
        .update({ reemplazada_por: null, reemplazada_en: null });
    },
  };
}

export type RepositorioFacturasGlobales = ReturnType<typeof crearRepositorioFacturasGlobales>;
