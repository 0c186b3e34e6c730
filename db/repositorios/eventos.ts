import type { Knex } from 'knex';
import type { Alcance } from '../../api/alcance';
import { nuevoId } from '../ids';
import { columnasAlcance, conAlcance } from './con-alcance';

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
  modo: 'test' | 'live';
  tipo: TipoEvento;
  datos: Record<string, unknown> | string;
  creado_en: Date;
}

const COLUMNAS = ['id', 'modo', 'tipo', 'datos', 'creado_en'];

export function crearRepositorioEventos(db: Knex) {
  return {
    /**
     * Appends an event inside the caller's transaction, the one that changes the state it reports: the state
     * and its event are written together or not at all. The table is also the outbox webhooks read from.
     */
    async registrar(
      trx: Knex.Transaction,
      a: Alcance | Omit<Alcance, 'llaveId'>,
      tipo: TipoEvento,
      datos: object,
    ) {
      const id = nuevoId('evt');
      await trx('eventos').insert({
        id,
        ...columnasAlcance(a as Alcance),
        tipo,
        datos: JSON.stringify(datos),
      });
      return id;
    },
    consulta(a: Alcance, tipo?: string): Knex.QueryBuilder {
      const c = conAlcance(db, 'eventos', a).select(COLUMNAS);
      if (tipo) c.where('tipo', tipo);
      return c;
    },
    async obtener(a: Alcance, id: string): Promise<FilaEvento | undefined> {
      return conAlcance(db, 'eventos', a).select(COLUMNAS).where({ id }).first();
    },
  };
}

export type RepositorioEventos = ReturnType<typeof crearRepositorioEventos>;
