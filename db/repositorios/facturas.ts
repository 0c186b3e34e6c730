import type { Knex } from 'knex';
import type { Alcance } from '../../api/alcance';
import { columnasAlcance, conAlcance } from './con-alcance';

export type EstadoFactura = 'borrador' | 'timbrada' | 'cancelada';
export type EstadoTimbrado = 'no_solicitado' | 'pendiente' | 'timbrada' | 'fallido';

export interface FilaFactura {
  id: string;
  modo: 'test' | 'live';
  organizacion_id: string;
  cliente_id: string | null;
  tipo: 'ingreso' | 'egreso' | 'pago';
  estado: EstadoFactura;
  documento: string | object;
  total: string;
  metodo_pago: string | null;
  uuid: string | null;
  fecha_timbrado: string | null;
  no_certificado: string | null;
  no_certificado_sat: string | null;
  timbrado_estado: EstadoTimbrado;
  timbrado_intentos: number;
  timbrado_error: string | object | null;
  cancelacion: string | object | null;
  creado_en: Date;
  actualizado_en: Date;
}

/** Everything but the XML and PDF payloads, which only their own endpoints read. */
const COLUMNAS = [
  'id',
  'modo',
  'organizacion_id',
  'cliente_id',
  'tipo',
  'estado',
  'documento',
  'total',
  'metodo_pago',
  'uuid',
  'fecha_timbrado',
  'no_certificado',
  'no_certificado_sat',
  'timbrado_estado',
  'timbrado_intentos',
  'timbrado_error',
  'cancelacion',
  'creado_en',
  'actualizado_en',
];

export interface FiltrosFacturas {
  organizacionId?: string;
  clienteId?: string;
  estado?: string;
  tipo?: string;
}

export function crearRepositorioFacturas(db: Knex) {
  return {
    db,
    consulta(a: Alcance, f: FiltrosFacturas): Knex.QueryBuilder {
      const c = conAlcance(db, 'facturas', a).select(COLUMNAS);
      if (f.organizacionId) c.where('organizacion_id', f.organizacionId);
      if (f.clienteId) c.where('cliente_id', f.clienteId);
      if (f.estado) c.where('estado', f.estado);
      if (f.tipo) c.where('tipo', f.tipo);
      return c;
    },
    async obtener(
      a: Alcance,
      id: string,
      trx: Knex | Knex.Transaction = db,
    ): Promise<FilaFactura | undefined> {
      return conAlcance(trx, 'facturas', a).select(COLUMNAS).where({ id }).first();
    },
    /** Locks the row for a state transition inside `trx`. */
    async bloquear(trx: Knex.Transaction, a: Alcance, id: string): Promise<FilaFactura | undefined> {
      return conAlcance(trx, 'facturas', a).select(COLUMNAS).where({ id }).forUpdate().first();
    },
    async insertar(trx: Knex.Transaction, a: Alcance, fila: Record<string, unknown>): Promise<void> {
      await trx('facturas').insert({ ...fila, ...columnasAlcance(a) });
    },
    async actualizar(trx: Knex | Knex.Transaction, a: Alcance, id: string, cambios: Record<string, unknown>) {
      await conAlcance(trx, 'facturas', a)
        .where({ id })
        .update({ ...cambios, actualizado_en: new Date() });
    },
    /** Next automatic folio of an organization and series, atomically (inside the creating transaction). */
    async siguienteFolio(trx: Knex.Transaction, organizacionId: string, serie: string): Promise<string> {
      const [r] = await trx.raw(
        `INSERT INTO folios (organizacion_id, serie, ultimo) VALUES (?, ?, 1)
         ON DUPLICATE KEY UPDATE ultimo = LAST_INSERT_ID(ultimo + 1)`,
        [organizacionId, serie],
      );
      const { affectedRows, insertId } = r as { affectedRows: number; insertId: number };
      return String(affectedRows === 1 ? 1 : insertId);
    },
    async xml(
      a: Alcance,
      id: string,
    ): Promise<{ sellado: string | null; timbrado: string | null } | undefined> {
      const f = await conAlcance(db, 'facturas', a)
        .select('xml_sellado', 'xml_timbrado')
        .where({ id })
        .first();
      return f && { sellado: f.xml_sellado, timbrado: f.xml_timbrado };
    },
    async pdf(a: Alcance, id: string): Promise<{ pdf: Buffer | null; estado: EstadoFactura } | undefined> {
      return conAlcance(db, 'facturas', a).select('pdf', 'estado').where({ id }).first();
    },
  };
}

export type RepositorioFacturas = ReturnType<typeof crearRepositorioFacturas>;

export const json = <T>(v: string | object | null): T | null =>
  v === null ? null : typeof v === 'string' ? (JSON.parse(v) as T) : (v as T);
