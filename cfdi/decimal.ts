import DecimalBase from 'decimal.js';

/** One decimal configuration for all fiscal arithmetic: generous precision, SAT's round-half-up. */
export const Decimal = DecimalBase.clone({ precision: 40, rounding: DecimalBase.ROUND_HALF_UP });
export type Decimal = InstanceType<typeof Decimal>;

export const d = (v: string | number | Decimal) => new Decimal(v);

/** Rounded half-up to `decimales` and written with exactly that many decimals. */
export const fijo = (v: Decimal, decimales: number) => v.toFixed(decimales, Decimal.ROUND_HALF_UP);

/** Concept-level amounts (Importe, Descuento, Base, tax Importe) carry 6 decimals, as the SAT types allow. */
export const DECIMALES_CONCEPTO = 6;
