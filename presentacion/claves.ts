import type { Esquema } from '../contrato';

type Catalogo =
  | 'RegimenFiscal'
  | 'UsoCfdi'
  | 'FormaPago'
  | 'MetodoPago'
  | 'ObjetoImp'
  | 'Exportacion'
  | 'TipoRelacion'
  | 'MotivoCancelacion'
  | 'Impuesto'
  | 'TipoFactor'
  | 'TipoEvento'
  | 'Periodicidad';

/**
 * A SAT key (or event type) read back from storage as the contract's enum: it was stored only after the request's
 * schema and the catalogs accepted it, and the fiscal core (cfdi/) keeps plain strings, knowing nothing of the API.
 */
export const clave = <N extends Catalogo>(_catalogo: N, valor: string) => valor as Esquema<N>;

/** The same for a nullable key. */
export const claveONula = <N extends Catalogo>(catalogo: N, valor: string | null | undefined) =>
  valor == null ? null : clave(catalogo, valor);

/** Computed taxes, with their keys typed. */
export const impuestos = <T extends { impuesto: string; tipo_factor?: string }>(lista: T[]) =>
  lista.map((t) => ({
    ...t,
    impuesto: clave('Impuesto', t.impuesto),
    ...(t.tipo_factor === undefined ? {} : { tipo_factor: clave('TipoFactor', t.tipo_factor) }),
  }));
