import { Decimal } from '../decimal';

// The fiscal core's single decimal configuration (40 digits, half up), under the calculator's short name.
export const Dec = Decimal;
export type Dec = Decimal;

export const dec = (v: string | number | Dec): Dec => new Dec(v);
export const CERO = dec(0);

/** Decimals of ImpuestosDR and ImpuestosP (t_Importe allows 6). */
export const DECIMALES_IMPUESTOS = 6;
/** Totales are always MXN with 2 decimals. */
export const DECIMALES_TOTALES = 2;

/** Rounded half up and written with exactly `decimales` decimals. */
export const redondear = (v: Dec, decimales: number): string => v.toFixed(decimales, Dec.ROUND_HALF_UP);

/** Cut (never rounded up) and written with exactly `decimales` decimals; for positive values only. */
export const truncar = (v: Dec, decimales: number): string => v.toFixed(decimales, Dec.ROUND_DOWN);

/** Written with its own decimals and no exponent ("17.36075", "1"), for factors given by the caller. */
export const tal = (v: Dec): string => v.toFixed(v.decimalPlaces());

/** Unsigned decimal with at most `maxDecimales` decimals and at most 18 integer digits (t_Importe-like). */
export function esDecimal(valor: unknown, maxDecimales: number): valor is string {
  if (typeof valor !== 'string') return false;
  const m = /^\d{1,18}(?:\.(\d+))?$/.exec(valor);
  return m !== null && (m[1]?.length ?? 0) <= maxDecimales;
}

/** Decimals written in a decimal string ("850" → 0, "2819.30" → 2). */
export const decimalesEscritos = (valor: string): number => valor.split('.')[1]?.length ?? 0;
