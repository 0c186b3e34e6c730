import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import type { ImpuestoConcepto } from '../../cfdi/comprobante/tipos';
import { mapearTramo, type Pagina, type Tramo } from '../../dominio/paginacion';
import { paginar } from '../paginacion';
import { columnasAlcance, conAlcance, leerJson, patronContiene } from './con-alcance';

export type ImpuestoItem = ImpuestoConcepto;

export interface Impuestos {
  traslados: ImpuestoItem[];
  retenciones: ImpuestoItem[];
}

export interface FilaProducto {
  id: string;
  modo: Modo;
  organizacion_id: string;
  descripcion: string;
  valor_unitario: string;
  clave_prod_serv: string;
  clave_unidad: string;
  unidad: string | null;
  no_identificacion: string | null;
  objeto_imp: string;
  impuestos_default: Impuestos;
  creado_en: Date;
  actualizado_en: Date;
}

export type DatosProducto = Omit<FilaProducto, 'id' | 'modo' | 'creado_en' | 'actualizado_en'>;

const COLUMNAS = [
  'id',
  'modo',
  'organizacion_id',
  'descripcion',
  'valor_unitario',
  'clave_prod_serv',
  'clave_unidad',
  'unidad',
  'no_identificacion',
  'objeto_imp',
  'impuestos_default',
  'creado_en',
  'actualizado_en',
];

const leer = (f: FilaProducto): FilaProducto => ({ ...f, impuestos_default: leerJson(f.impuestos_default) });

export function crearRepositorioProductos(db: Knex) {
  const vigentes = (a: Alcance) => conAlcance(db, 'productos', a).whereNull('eliminado_en').select(COLUMNAS);

  return {
    async listar(
      a: Alcance,
      filtros: { organizacionId?: string; q?: string },
      pagina: Pagina,
    ): Promise<Tramo<FilaProducto>> {
      const c = vigentes(a);
      if (filtros.organizacionId) c.where('organizacion_id', filtros.organizacionId);
      if (filtros.q) {
        const patron = patronContiene(filtros.q);
        c.where((w) => w.where('descripcion', 'like', patron).orWhere('no_identificacion', 'like', patron));
      }
      return mapearTramo(await paginar<FilaProducto>(c, pagina), leer);
    },
    async obtener(a: Alcance, id: string): Promise<FilaProducto | undefined> {
      const f = await vigentes(a).where({ id }).first();
      return f && leer(f);
    },
    async insertar(a: Alcance, id: string, datos: DatosProducto, ahora: Date): Promise<void> {
      await db('productos').insert({
        id,
        ...columnasAlcance(a),
        ...datos,
        impuestos_default: JSON.stringify(datos.impuestos_default),
        creado_en: ahora,
        actualizado_en: ahora,
      });
    },
    async actualizar(a: Alcance, id: string, cambios: Partial<DatosProducto>, ahora: Date): Promise<void> {
      const { impuestos_default, ...resto } = cambios;
      await conAlcance(db, 'productos', a)
        .where({ id })
        .whereNull('eliminado_en')
        .update({
          ...resto,
          ...(impuestos_default ? { impuestos_default: JSON.stringify(impuestos_default) } : {}),
          actualizado_en: ahora,
        });
    },
    /** Removed from use: new invoices cannot reference it; invoices that did keep their copy. */
    async eliminar(a: Alcance, id: string, ahora: Date): Promise<void> {
      await conAlcance(db, 'productos', a)
        .where({ id })
        .whereNull('eliminado_en')
        .update({ eliminado_en: ahora, actualizado_en: ahora });
    },
  };
}

export type RepositorioProductos = ReturnType<typeof crearRepositorioProductos>;
