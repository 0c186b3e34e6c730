import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import { mapearTramo, type Pagina, type Tramo } from '../../dominio/paginacion';
import { nuevoId } from '../ids';
import { paginar } from '../paginacion';
import { conexion, type Transaccion } from '../transacciones';
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
      await conexion(
        db,
        tx,
      )('eventos').insert({ id, ...columnasAlcance(a), tipo, datos: JSON.stringify(datos) });
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
  };
}

export type RepositorioEventos = ReturnType<typeof crearRepositorioEventos>;
