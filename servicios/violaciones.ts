import { ErrorNegocio } from '../dominio/errores';
import type { Violacion } from '../cfdi/reglas/tipos';

/**
 * A fiscal rule broken by the request: 422 with the first violation's code and field; the message lists
 * every violation, so the integrator fixes them all in one round.
 */
export function errorDeViolaciones([primera, ...resto]: [Violacion, ...Violacion[]]): ErrorNegocio {
  const mas = resto.length ? ` También: ${resto.map((v) => v.mensaje).join(' ')}` : '';
  return new ErrorNegocio('regla_de_negocio', primera.codigo, `${primera.mensaje}${mas}`, primera.parametro);
}

export function exigirSinViolaciones(violaciones: Violacion[]): void {
  if (violaciones.length) throw errorDeViolaciones(violaciones as [Violacion, ...Violacion[]]);
}
