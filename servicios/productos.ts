import type { Esquema } from '../contrato';
import { clave, impuestos } from '../presentacion/claves';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import { normalizarPrecio, normalizarTasa, validarProducto } from '../cfdi/reglas';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import { nuevoId } from '../db/ids';
import type {
  DatosProducto,
  FilaProducto,
  Impuestos,
  RepositorioProductos,
} from '../db/repositorios/productos';
import type { ServicioOrganizaciones } from './organizaciones';
import { exigirSinViolaciones } from './violaciones';
import { iso } from '../presentacion/fechas';

type EntradaImpuestos = Partial<Impuestos>;
type Entrada = Omit<
  DatosProducto,
  'organizacion_id' | 'unidad' | 'no_identificacion' | 'impuestos_default'
> & {
  organizacion: string;
  unidad?: string | null;
  no_identificacion?: string | null;
  impuestos_default?: EntradaImpuestos;
};

/** Both arrays always present and rates with their 6 decimals, as the CFDI writes them. */
function normalizarImpuestos(i: EntradaImpuestos | undefined): Impuestos {
  const item = (x: Impuestos['traslados'][number]) =>
    x.tasa_o_cuota === undefined ? { ...x } : { ...x, tasa_o_cuota: normalizarTasa(x.tasa_o_cuota) };
  return { traslados: (i?.traslados ?? []).map(item), retenciones: (i?.retenciones ?? []).map(item) };
}

function dto(f: FilaProducto): Esquema<'Producto'> {
  return {
    id: f.id,
    objeto: 'producto' as const,
    modo: f.modo,
    organizacion: f.organizacion_id,
    descripcion: f.descripcion,
    valor_unitario: normalizarPrecio(String(f.valor_unitario)),
    clave_prod_serv: f.clave_prod_serv,
    clave_unidad: f.clave_unidad,
    unidad: f.unidad,
    no_identificacion: f.no_identificacion,
    objeto_imp: clave('ObjetoImp', f.objeto_imp),
    impuestos_default: {
      traslados: impuestos(f.impuestos_default.traslados),
      retenciones: impuestos(f.impuestos_default.retenciones),
    },
    creado_en: iso(f.creado_en),
    actualizado_en: iso(f.actualizado_en),
  };
}

export function crearServicioProductos(deps: {
  productos: RepositorioProductos;
  organizaciones: ServicioOrganizaciones;
  catalogos: ConsultaCatalogos;
  ahora?: () => Date;
}) {
  const ahora = deps.ahora ?? (() => new Date());
  const repo = deps.productos;

  async function fila(a: Alcance, id: string, parametro = 'id'): Promise<FilaProducto> {
    const f = await repo.obtener(a, id);
    if (!f)
      throw new ErrorNegocio(
        'no_encontrado',
        'producto_no_encontrado',
        `El producto ${id} no existe.`,
        parametro,
      );
    return f;
  }

  function validar(datos: DatosProducto) {
    exigirSinViolaciones(validarProducto(datos, deps.catalogos));
  }

  return {
    /** For invoices: a product in the caller's scope that is still in use. */
    resolver: fila,

    async crear(a: Alcance, entrada: Entrada) {
      const { organizacion, ...resto } = entrada;
      const org = await deps.organizaciones.resolver(a, organizacion, 'organizacion');
      const datos: DatosProducto = {
        ...resto,
        organizacion_id: org.id,
        unidad: resto.unidad ?? null,
        no_identificacion: resto.no_identificacion ?? null,
        impuestos_default: resto.impuestos_default as Impuestos,
      };
      // Validate what the client sent (parameter names match), then store it normalized.
      validar({ ...datos, impuestos_default: normalizarImpuestos(entrada.impuestos_default) });
      datos.valor_unitario = normalizarPrecio(datos.valor_unitario);
      datos.impuestos_default = normalizarImpuestos(entrada.impuestos_default);
      const id = nuevoId('prod');
      await repo.insertar(a, id, datos, ahora());
      return dto(await fila(a, id));
    },

    obtener: async (a: Alcance, id: string) => dto(await fila(a, id)),

    async listar(a: Alcance, filtros: { organizacion?: string; q?: string }, pagina: Pagina) {
      const organizacionId = await deps.organizaciones.idDeFiltro(a, filtros.organizacion);
      return mapearTramo(await repo.listar(a, { organizacionId, q: filtros.q }, pagina), dto);
    },

    async actualizar(a: Alcance, id: string, entrada: Partial<Omit<Entrada, 'organizacion'>>) {
      const actual = await fila(a, id);
      const cambios: Partial<DatosProducto> = { ...entrada } as Partial<DatosProducto>;
      if (entrada.impuestos_default)
        cambios.impuestos_default = normalizarImpuestos(entrada.impuestos_default);
      validar({ ...actual, ...cambios });
      if (cambios.valor_unitario) cambios.valor_unitario = normalizarPrecio(cambios.valor_unitario);
      await repo.actualizar(a, id, cambios, ahora());
      return dto(await fila(a, id));
    },

    async eliminar(a: Alcance, id: string) {
      await fila(a, id);
      await repo.eliminar(a, id, ahora());
      return { id, objeto: 'producto' as const, eliminado: true as const };
    },
  };
}

export type ServicioProductos = ReturnType<typeof crearServicioProductos>;
