import type { Alcance, Modo } from '../../../dominio/alcance';
import { Almacen } from './almacen';
import { crearCertificadosEnMemoria } from './certificados';
import { crearClientesEnMemoria } from './clientes';
import { crearCuentasEnMemoria } from './cuentas';
import { crearEventosEnMemoria } from './eventos';
import { crearFacturasEnMemoria } from './facturas';
import { crearLlavesEnMemoria } from './llaves';
import { crearOrganizacionesEnMemoria } from './organizaciones';
import { crearPagosEnMemoria } from './pagos';
import { crearProductosEnMemoria } from './productos';
import { crearSondasEnMemoria } from './sondas';
import { crearTransaccionesEnMemoria } from './transacciones';

export { Almacen, ClaveUnicaViolada } from './almacen';
export { nuevaCuenta } from './cuentas';
export { tablaFacturas } from './facturas';
export { crearPacEnMemoria, type PacEnMemoria } from './pac';
export { crearCanceladorEnMemoria, crearTimbradorEnMemoria } from './procesos';
export { crearGeneradorPdfEnMemoria, navegadorEnMemoria } from './pdf';
export { crearContextoActividad } from './actividad';

/** Every repository and the transaction port over one shared in-memory store. */
export function crearMemoria() {
  const almacen = new Almacen();
  return {
    almacen,
    transacciones: crearTransaccionesEnMemoria(almacen),
    cuentas: crearCuentasEnMemoria(almacen),
    llaves: crearLlavesEnMemoria(almacen),
    organizaciones: crearOrganizacionesEnMemoria(almacen),
    clientes: crearClientesEnMemoria(almacen),
    productos: crearProductosEnMemoria(almacen),
    certificados: crearCertificadosEnMemoria(almacen),
    facturas: crearFacturasEnMemoria(almacen),
    eventos: crearEventosEnMemoria(almacen),
    pagos: crearPagosEnMemoria(almacen),
    sondas: crearSondasEnMemoria(almacen),
  };
}

export type Memoria = ReturnType<typeof crearMemoria>;

export const alcance = (cuentaId = 'cta_a', modo: Modo = 'test'): Alcance => ({
  cuentaId,
  modo,
  llaveId: `llave_${cuentaId}_${modo}`,
});
