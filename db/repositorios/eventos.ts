import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import { mapearTramo, type Pagina, type Tramo } from '../../dominio/paginacion';
import { nuevoId } from '../ids';
import { paginar } from '../paginacion';
import { anotarEvento, conexion, type Transaccion } from '../transacciones';
import { columnasAlcance, conAlcance, leerJson } from './con-alcance';

export const TIPOS_EVENTO = [
  'factura.creada',
  'factura.timbrada',
  'factura.timbrado_fallido',
  'factura.cancelada',
  'factura.cancelacion_fallida',
  'pago.creado',
  'certificado.por_vencer',
  'certificado.vencido',
] as const;
export type TipoEvento = (typeof TIPOS_EVENTO)[number];

export interface FilaEvento {
  id: string;
  modo: Modo;
  tipo: TipoEvento;
  datos: Record<string, unknown>;
  creado_en: Date;
}

const COLUMNAS = ['id', 'modo', 'tipo', 'datos', 'creado_en'];

const leer = (f: FilaEvento): FilaEvento => ({ ...f, datos: leerJson(f.datos) });

export function crearRepositorioEventos(db: Knex) {
  return {
    /**
     * Appends an event inside the caller's transaction, the one that changes the state it reports: the state
     * and its event are written together or not at all. The table is also the outbox webhooks read from.
     */
    async registrar(tx: Transaccion, a: Pick<Alcance, 'cuentaId' | 'modo'>, tipo: TipoEvento, datos: object) {
      const id = nuevoId('evt');
      const c = conexion(db, tx);
      await c('eventos').insert({ id, ...columnasAlcance(a), tipo, datos: JSON.stringify(datos) });
      await c('eventos_por_despachar').insert({ evento_id: id });
      anotarEvento(tx, id);
      return id;
    },
    async listar(a: Alcance, filtros: { tipo?: string }, pagina: Pagina): Promise<Tramo<FilaEvento>> {
      const c = conAlcance(db, 'eventos', a).select(COLUMNAS);
      if (filtros.tipo) c.where('tipo', filtros.tipo);
      return mapearTramo(await paginar<FilaEvento>(c, pagina), leer);
    },
    async obtener(a: Alcance, id: string): Promise<FilaEvento | undefined> {
      const f = await conAlcance(db, 'eventos', a).select(COLUMNAS).where({ id }).first();
      return f && leer(f);
    },
    /** For the dispatcher, which starts from an id alone: the event with its account. */
    async paraDespacho(id: string): Promise<(FilaEvento & { cuenta_id: string }) | undefined> {
      const f = await db('eventos')
        .select([...COLUMNAS, 'cuenta_id'])
        .where({ id })
        .first();
      return f && { ...leer(f), cuenta_id: f.cuenta_id };
    },
    /** Outbox rows older than `antesDe` (the fast path had its chance), oldest first. */
    async porDespachar(antesDe: Date, limite: number): Promise<string[]> {
      const filas = await db('eventos_por_despachar')
        .select('evento_id')
        .where('creado_en', '<', antesDe)
        .orderBy('creado_en')
        .limit(limite);
      return filas.map((f: { evento_id: string }) => f.evento_id);
    },
    /** Every delivery of the event has its workflow: it leaves the outbox. */
    async despachado(id: string): Promise<void> {
      await db('eventos_por_despachar').where({ evento_id: id }).delete();
    },
  };
}

export type RepositorioEventos = ReturnType<typeof crearRepositorioEventos>;
