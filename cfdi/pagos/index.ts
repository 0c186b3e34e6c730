// Pagos 2.0 complement: validation of a payment's data and the amounts of every node.
export * from './calcular';
export * from './tipos';
export { OBJETOS_SIN_IMPUESTOS, validarEntradaPagos } from './validar';
