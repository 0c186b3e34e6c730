import type { FilaProducto, RepositorioProductos } from '../../../db/repositorios/productos';
import { filaNueva, copiaJson, decimal6, vigentesDeOrganizacion, type Almacen } from './almacen';
import { porConexion } from './transacciones';

type ProductoGuardado = FilaProducto & { cuenta_id: string; eliminado_en: Date | null };

export function crearProductosEnMemoria(m: Almacen): RepositorioProductos {
  const tabla = m.tabla<ProductoGuardado>('productos');
  const leer = ({ cuenta_id: _c, eliminado_en: _e, ...f }: ProductoGuardado): FilaProducto => ({
    ...f,
    impuestos_default: copiaJson(f.impuestos_default),
  });
  const { vigente, listar, obtener } = vigentesDeOrganizacion(
    tabla,
    (r) => [r.descripcion, r.no_identificacion],
    leer,
  );

  return porConexion({
    listar,
    obtener,
    async insertar(a, id, datos, ahora) {
      tabla.insertar({
        ...filaNueva(a, id, ahora),
        ...datos,
        valor_unitario: decimal6(datos.valor_unitario),
        impuestos_default: copiaJson(datos.impuestos_default),
        eliminado_en: null,
      });
    },
    async actualizar(a, id, cambios, ahora) {
      if (!vigente(a, id)) return;
      const { impuestos_default, ...resto } = cambios;
      tabla.cambiar(id, {
        ...resto,
        ...(resto.valor_unitario ? { valor_unitario: decimal6(resto.valor_unitario) } : {}),
        ...(impuestos_default ? { impuestos_default: copiaJson(impuestos_default) } : {}),
        actualizado_en: ahora,
      });
    },
    async eliminar(a, id, ahora) {
      if (vigente(a, id)) tabla.cambiar(id, { eliminado_en: ahora, actualizado_en: ahora });
    },
  });
}
