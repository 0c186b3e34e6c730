import type { DatosCliente, FilaCliente, RepositorioClientes } from '../../../db/repositorios/clientes';
import { sinDuplicar } from '../../../db/repositorios/con-alcance';
import { enAlcance, filaNueva, plegar, vigentesDeOrganizacion, type Almacen } from './almacen';
import { porConexion } from './transacciones';

type ClienteGuardado = FilaCliente & {
  cuenta_id: string;
  rfc_unico: string | null;
  eliminado_en: Date | null;
};

// As the migration: generic RFCs and deleted clients leave `rfc_unico` null, which never collides.
const GENERICOS = new Set(['XAXX010101000', 'XEXX010101000']);
const rfcUnico = (rfc: string) => (GENERICOS.has(rfc) ? null : rfc);

/** Shared with emails (a client's address), with its unique index whoever opens it first. */
export const tablaClientes = (m: Almacen) =>
  m.tabla<ClienteGuardado>('clientes', [
    {
      nombre: 'organizacion_rfc_unico',
      // Under the table's collation: an RFC in lower case collides with the same in upper case.
      clave: (r) => (r.rfc_unico === null ? null : `${r.organizacion_id}|${plegar(r.rfc_unico)}`),
    },
  ]);

export function crearClientesEnMemoria(m: Almacen): RepositorioClientes {
  const tabla = tablaClientes(m);
  const leer = ({ cuenta_id: _c, rfc_unico: _r, eliminado_en: _e, ...fila }: ClienteGuardado): FilaCliente =>
    fila;
  const { vigentes, vigente, listar, obtener } = vigentesDeOrganizacion(
    tabla,
    (r) => [r.rfc, r.nombre],
    leer,
  );

  return porConexion({
    listar,
    obtener,
    async existio(a, id) {
      return tabla.todas().some((r) => enAlcance(a)(r) && r.id === id);
    },
    async porRfc(a, organizacionId, rfc) {
      return vigentes(a)
        .filter((r) => r.organizacion_id === organizacionId && plegar(r.rfc) === plegar(rfc))
        .map(leer);
    },
    async insertar(a, id, datos: DatosCliente, ahora) {
      await sinDuplicar(async () =>
        tabla.insertar({
          ...filaNueva(a, id, ahora),
          ...datos,
          rfc_unico: rfcUnico(datos.rfc),
          eliminado_en: null,
        }),
      );
    },
    async actualizar(a, id, cambios, ahora) {
      if (!vigente(a, id)) return;
      const extra = cambios.rfc ? { rfc_unico: rfcUnico(cambios.rfc) } : {};
      await sinDuplicar(async () => tabla.cambiar(id, { ...cambios, ...extra, actualizado_en: ahora }));
    },
    async eliminar(a, id, ahora) {
      if (vigente(a, id)) tabla.cambiar(id, { eliminado_en: ahora, rfc_unico: null, actualizado_en: ahora });
    },
  });
}
