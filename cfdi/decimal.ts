import DecimalBase from 'decimal.js';

/** One decimal configuration for all fiscal arithmetic: generous precision, SAT's round-half-up. */
export const Decimal = DecimalBase.clone({ precision: 40, rounding: DecimalBase.ROUND_HALF_UP });
export type Decimal = InstanceType<typeof Decimal>;

export const d = (v: string | number | Decimal) => new Decimal(v);

/** Rounded half-up to `decimales` and written with exactly that many decimals. */
export const fijo = (v: Decimal, decimales: number) => v.toFixed(decimales, Decimal.ROUND_HALF_UP);

/** Concept-level amounts (Importe, Descuento, Base, tax Importe) carry 6 decimals, as the SAT types allow. */
export const DECIMALES_CONCEPTO = 6;

/** Unsigned decimal with at most `maxDecimales` decimals and at most 18 integer digits (t_Importe-like). */
export function esDecimal(valor: unknown, maxDecimales: number): valor is string {
  if (typeof valor !== 'string') return false;
  const m = /^\d{1,18}(?:\.(\d+))?$/.exec(valor);
  return m !== null && (m[1]?.length ?? 0) <= maxDecimales;
}

/** Digits after the point as written: "1500.10" → 2, "7" → 0. */
export function decimalesDe(valor: string): number {
  const i = valor.indexOf('.');
  return i < 0 ? 0 : valor.length - i - 1;
}
