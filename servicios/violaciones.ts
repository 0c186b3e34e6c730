import { ApiError } from '../api/errores';
import type { Violacion } from '../cfdi/reglas/tipos';

/** A fiscal rule broken by the request: 422 naming the first violation (and how many more there are). */
export function errorDeViolaciones([primera, ...resto]: [Violacion, ...Violacion[]]): ApiError {
  const mas = resto.length ? ` (y ${resto.length} error${resto.length > 1 ? 'es' : ''} más)` : '';
  return new ApiError('regla_de_negocio', primera.codigo, `${primera.mensaje}${mas}`, primera.parametro);
}

export function exigirSinViolaciones(violaciones: Violacion[]): void {
  if (violaciones.length) throw errorDeViolaciones(violaciones as [Violacion, ...Violacion[]]);
}
