import { Decimal, d } from '../decimal';

// The fiscal core's single decimal configuration (40 digits, half up), under the calculator's short names.
export const Dec = Decimal;
export type Dec = Decimal;
export { d as dec, fijo as redondear } from '../decimal';

export const CERO = d(0);

/** Decimals of ImpuestosDR and ImpuestosP (t_Importe allows 6). */
export const DECIMALES_IMPUESTOS = 6;
/** Totales are always MXN with 2 decimals. */
export const DECIMALES_TOTALES = 2;

/** Cut (never rounded up) and written with exactly `decimales` decimals; for positive values only. */
export const truncar = (v: Dec, decimales: number): string => v.toFixed(decimales, Dec.ROUND_DOWN);

/** Written with its own decimals and no exponent ("17.36075", "1"), for factors given by the caller. */
export const tal = (v: Dec): string => v.toFixed(v.decimalPlaces());
