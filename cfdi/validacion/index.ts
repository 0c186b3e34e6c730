// Pre-validation of a CFDI 4.0 document against the SAT error matrix, before the PAC is called.
export { validarComprobante } from './validar';
export { MATRIZ, type ReglaMatriz } from './matriz';
export type { CatalogosOpcionales, CatalogosValidacion, OpcionesValidacion, Pais } from './contexto';
