import { ApiError } from '../api/errores';
import type { Violacion } from '../cfdi/reglas/tipos';

/** A fiscal rule broken by the request: 422 naming the first violation (and how many more there are). */
export function exigirSinViolaciones(violaciones: Violacion[]): void {
  const [primera, ...resto] = violaciones;
  if (!primera) return;
  const mas = resto.length ? ` (y ${resto.length} error${resto.length > 1 ? 'es' : ''} más)` : '';
  throw new ApiError('regla_de_negocio', primera.codigo, `${primera.mensaje}${mas}`, primera.parametro);
}
