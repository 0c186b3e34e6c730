export { ClienteCfdi } from './cliente';
export {
  VERSION,
  leerRetryAfter,
  respuestaDe,
  type MetaRespuesta,
  type OpcionesCliente,
  type OpcionesReintentos,
  type OpcionesSolicitud,
} from './transporte';
export { Paginador } from './paginacion';
export type { OpcionesEspera } from './esperar';
export {
  verificarWebhook,
  ENCABEZADO_FIRMA_TIEMPO,
  type Encabezados,
  type EntradaVerificacion,
} from './webhook';
export * from './errores';
export type * from './tipos';
export type { components, operations, paths } from './openapi';
export type { Facturas } from './recursos/facturas';
export type { Clientes, Productos, Organizaciones, Certificados } from './recursos/emisores';
export type { Pagos } from './recursos/pagos';
export type { Recibos } from './recursos/recibos';
export type { FacturasGlobales } from './recursos/facturas-globales';
export type { Webhooks, Eventos, Entregas } from './recursos/webhooks';
export type { Correos } from './recursos/correos';
export type { Pendientes, Resumen } from './recursos/pendientes';
export type { Cuenta as GrupoCuenta, Llaves } from './recursos/cuenta';
export type { Catalogos } from './recursos/catalogos';
