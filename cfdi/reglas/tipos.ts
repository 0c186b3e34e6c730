/**
 * A broken rule. The API turns errors into 400/422 bodies and warnings into a resource's `advertencias`;
 * the CFDI engine reuses the same records before calling the PAC.
 */
export interface Violacion {
  /** Stable snake_case identifier clients can branch on; never reworded. */
  codigo: string;
  /** Spanish, for people. */
  mensaje: string;
  /** Path of the offending field in the request, e.g. `impuestos_default.traslados[0].tasa_o_cuota`. */
  parametro: string;
  /** The CFDI40xxx code of the SAT error matrix the PAC would answer with, when one corresponds. */
  sat?: string;
}

/**
 * Which side of the CFDI a value ends up on: the SAT matrix has distinct codes for the issuer
 * (organización → Emisor) and the receiver (cliente → Receptor) for the same check.
 */
export type Rol = 'emisor' | 'receptor';

export function violacion(codigo: string, mensaje: string, parametro: string, sat?: string): Violacion {
  return sat === undefined ? { codigo, mensaje, parametro } : { codigo, mensaje, parametro, sat };
}
