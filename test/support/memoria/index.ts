import type { Alcance, Modo } from '../../../dominio/alcance';
import { Almacen } from './almacen';
import { crearCertificadosEnMemoria } from './certificados';
import { crearClientesEnMemoria } from './clientes';
import { crearCorreosEnMemoria } from './correos';
import { crearCuentasEnMemoria } from './cuentas';
import { crearDespachadorEnMemoria } from './despachador';
import { crearEntregasEnMemoria } from './entregas';
import { crearEventosEnMemoria } from './eventos';
import { crearFacturasEnMemoria } from './facturas';
import { crearLimitesEnMemoria } from './limites';
import { crearLlavesEnMemoria } from './llaves';
import { crearLogosEnMemoria } from './logos';
import { crearOrganizacionesEnMemoria } from './organizaciones';
import { crearPagosEnMemoria } from './pagos';
import { crearProductosEnMemoria } from './productos';
import { crearRecibosEnMemoria } from './recibos';
import { crearFacturasGlobalesEnMemoria } from './facturas-globales';
import { crearSondasEnMemoria } from './sondas';
import { crearTransaccionesEnMemoria } from './transacciones';
import { crearWebhooksEnMemoria } from './webhooks';
import { crearPendientesEnMemoria } from './pendientes';
import { crearUsuariosEnMemoria } from './usuarios';
import { crearCobranzaEnMemoria } from './cobranza';

export { Almacen, ClaveUnicaViolada } from './almacen';
export { nuevaCuenta } from './cuentas';
export { tablaFacturas } from './facturas';
export { crearPacEnMemoria, type PacEnMemoria } from './pac';
export { crearCanceladorEnMemoria, crearTimbradorEnMemoria } from './procesos';
export { crearGeneradorPdfEnMemoria, navegadorEnMemoria } from './pdf';
export { crearContextoActividad } from './actividad';
export { crearEnviadorEnMemoria, RESPUESTA_OK, type EnviadorEnMemoria } from './enviador';
export { crearCorreoEnMemoria, CORREO_ACEPTADO, type CorreoEnMemoria } from './correo';
export { tablaCorreos } from './correos';
export { tablaRecibos } from './recibos';
export { crearMetricasEnMemoria, type MetricasEnMemoria } from './metricas';
export { tablaEntregas, tablaIntentos } from './entregas';
export { tablaPorDespachar } from './eventos';
export { tablaWebhooks } from './webhooks';
// Not in `crearMemoria`: it needs a vault (seguridad/boveda.ts).
export { crearIdempotenciaEnMemoria } from './idempotencia';

/**
 * Every repository and the transaction port over one shared in-memory store, and the outbox's dispatcher: told
 * the events of each commit, as the real one is.
 */
export function crearMemoria() {
  const almacen = new Almacen();
  const eventos = crearEventosEnMemoria(almacen);
  const entregas = crearEntregasEnMemoria(almacen);
  const correos = crearCorreosEnMemoria(almacen);
  const despachador = crearDespachadorEnMemoria({ eventos, entregas, correos });
  return {
    almacen,
    transacciones: crearTransaccionesEnMemoria(almacen, { alConfirmarEventos: despachador.despachar }),
    cuentas: crearCuentasEnMemoria(almacen),
    llaves: crearLlavesEnMemoria(almacen),
    organizaciones: crearOrganizacionesEnMemoria(almacen),
    logos: crearLogosEnMemoria(almacen),
    clientes: crearClientesEnMemoria(almacen),
    productos: crearProductosEnMemoria(almacen),
    certificados: crearCertificadosEnMemoria(almacen),
    facturas: crearFacturasEnMemoria(almacen),
    eventos,
    pagos: crearPagosEnMemoria(almacen),
    recibos: crearRecibosEnMemoria(almacen),
    facturasGlobales: crearFacturasGlobalesEnMemoria(almacen),
    sondas: crearSondasEnMemoria(almacen),
    webhooks: crearWebhooksEnMemoria(almacen),
    entregas,
    correos,
    limites: crearLimitesEnMemoria(almacen),
    pendientes: crearPendientesEnMemoria(almacen),
    usuarios: crearUsuariosEnMemoria(almacen),
    cobranza: crearCobranzaEnMemoria(almacen),
    despachador,
  };
}

export type Memoria = ReturnType<typeof crearMemoria>;

export const alcance = (cuentaId = 'cta_a', modo: Modo = 'test'): Alcance => ({
  cuentaId,
  modo,
  llaveId: `llave_${cuentaId}_${modo}`,
});
