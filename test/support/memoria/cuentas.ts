import type { FilaCuenta, RepositorioCuentas } from '../../../db/repositorios/cuentas';
import type { Almacen } from './almacen';
import { tablaCertificados } from './certificados';
import { porConexion } from './transacciones';

/** Accounts are created by provisioning, not by a service: tests add them with `nuevaCuenta`. */
export const tablaCuentas = (m: Almacen) => m.tabla<FilaCuenta>('cuentas');

export function nuevaCuenta(m: Almacen, id: string, ahora: Date, datos: Partial<FilaCuenta> = {}): void {
  tablaCuentas(m).insertar({
    id,
    nombre: 'Cuenta de prueba',
    razon_social: null,
    rfc: null,
    correo: null,
    telefono: null,
    sitio_web: null,
    terminos_aceptados_en: null,
    creado_en: ahora,
    actualizado_en: ahora,
    ...datos,
  });
}

export function crearCuentasEnMemoria(m: Almacen): RepositorioCuentas {
  const tabla = tablaCuentas(m);
  return porConexion({
    async obtener(id) {
      const r = tabla.buscar(id);
      return r && { ...r };
    },
    async actualizar(id, cambios, ahora) {
      tabla.cambiar(id, { ...cambios, actualizado_en: ahora });
    },
    // Both modes: a live-ready CSD may have been uploaded in either.
    async tieneCsdParaLive(id, ahora) {
      return tablaCertificados(m)
        .todas()
        .some(
          (c) =>
            c.cuenta_id === id &&
            Boolean(c.activo) &&
            !c.de_prueba &&
            c.valido_desde <= ahora &&
            c.valido_hasta > ahora,
        );
    },
  });
}
