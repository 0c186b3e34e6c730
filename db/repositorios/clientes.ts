import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import type { Pagina, Tramo } from '../../dominio/paginacion';
import { paginar } from '../paginacion';
import { columnasAlcance, conAlcance, patronContiene, sinDuplicar } from './con-alcance';

export interface FilaCliente {
  id: string;
  modo: Modo;
  organizacion_id: string;
  rfc: string;
  nombre: string;
  regimen_fiscal: string;
  domicilio_fiscal: string;
  uso_cfdi: string;
  correo: string | null;
  creado_en: Date;
  actualizado_en: Date;
}

export type DatosCliente = Omit<FilaCliente, 'id' | 'modo' | 'creado_en' | 'actualizado_en'>;

// Generic RFCs (público en general, extranjero) name many different receivers: they may repeat.
const RFC_GENERICOS = new Set(['XAXX010101000', 'XEXX010101000']);
const rfcUnico = (rfc: string) => (RFC_GENERICOS.has(rfc) ? null : rfc);

const COLUMNAS = [
  'id',
  'modo',
  'organizacion_id',
  'rfc',
  'nombre',
  'regimen_fiscal',
  'domicilio_fiscal',
  'uso_cfdi',
  'correo',
  'creado_en',
  'actualizado_en',
];

export function crearRepositorioClientes(db: Knex) {
  /** Deleted clients are gone from every read of the API; invoices keep their own copy of the data. */
  const vigentes = (a: Alcance) => conAlcance(db, 'clientes', a).whereNull('eliminado_en').select(COLUMNAS);

  return {
    listar(
      a: Alcance,
      filtros: { organizacionId?: string; q?: string },
      pagina: Pagina,
    ): Promise<Tramo<FilaCliente>> {
      const c = vigentes(a);
      if (filtros.organizacionId) c.where('organizacion_id', filtros.organizacionId);
      if (filtros.q) {
        const patron = patronContiene(filtros.q);
        c.where((w) => w.where('rfc', 'like', patron).orWhere('nombre', 'like', patron));
      }
      return paginar(c, pagina);
    },
    async obtener(a: Alcance, id: string): Promise<FilaCliente | undefined> {
      return vigentes(a).where({ id }).first();
    },
    /** Ever created in this scope, deleted ones included: their invoices stay listed under their id. */
    async existio(a: Alcance, id: string): Promise<boolean> {
      return Boolean(await conAlcance(db, 'clientes', a).select('id').where({ id }).first());
    },
    /** Invoices name a client by RFC within an organization. */
    async porRfc(a: Alcance, organizacionId: string, rfc: string): Promise<FilaCliente[]> {
      return vigentes(a).where({ organizacion_id: organizacionId, rfc });
    },
    /** One active client per RFC and organization: a second one is `RegistroDuplicado`. */
    async insertar(a: Alcance, id: string, datos: DatosCliente, ahora: Date): Promise<void> {
      await sinDuplicar(() =>
        db('clientes').insert({
          id,
          ...columnasAlcance(a),
          ...datos,
          rfc_unico: rfcUnico(datos.rfc),
          creado_en: ahora,
          actualizado_en: ahora,
        }),
      );
    },
    async actualizar(a: Alcance, id: string, cambios: Partial<DatosCliente>, ahora: Date): Promise<void> {
      const extra = cambios.rfc ? { rfc_unico: rfcUnico(cambios.rfc) } : {};
      await sinDuplicar(() =>
        conAlcance(db, 'clientes', a)
          .where({ id })
          .whereNull('eliminado_en')
          .update({ ...cambios, ...extra, actualizado_en: ahora }),
      );
    },
    async eliminar(a: Alcance, id: string, ahora: Date): Promise<void> {
      await conAlcance(db, 'clientes', a)
        .where({ id })
        .whereNull('eliminado_en')
        .update({ eliminado_en: ahora, rfc_unico: null, actualizado_en: ahora });
    },
  };
}

export type RepositorioClientes = ReturnType<typeof crearRepositorioClientes>;
