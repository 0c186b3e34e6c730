/**
 * Amounts as integers of millionths (bigint). Every CFDI amount, quantity and rate has at most 6 decimals
 * (t_Importe, TasaOCuota), so sums and comparisons are exact, and this avoids the cost of a decimal
 * object per attribute: the engine runs on every invoice.
 */

const PATRON_IMPORTE = /^(\d+)(?:\.(\d{1,6}))?$/;
const POTENCIAS = Array.from({ length: 25 }, (_, i) => 10n ** BigInt(i));
const potencia = (n: number): bigint => POTENCIAS[n] ?? 10n ** BigInt(n);

/** "1500.5" → 1500500000n; undefined for anything but a non-negative decimal with up to 6 decimals. */
export function millonesimas(valor: string): bigint | undefined {
  const m = PATRON_IMPORTE.exec(valor);
  if (!m) return undefined;
  const fraccion = m[2] ?? '';
  return BigInt(m[1]! + fraccion.padEnd(6, '0'));
}

/** Round half up to `decimales` (≤ 6) a non-negative value; the result stays in millionths. */
export function redondear(v: bigint, decimales: number): bigint {
  const unidad = potencia(6 - decimales);
  return ((v + unidad / 2n) / unidad) * unidad;
}

/** Millionths written with `decimales` decimals (the value must already have no more). */
export function texto(v: bigint, decimales: number): string {
  return escalado(v / potencia(6 - decimales), decimales);
}

/** An integer at `escala` decimals, written out: (24000n, 2) → "240.00". */
function escalado(v: bigint, escala: number): string {
  const s = v.toString().padStart(escala + 1, '0');
  return escala === 0 ? s : `${s.slice(0, -escala)}.${s.slice(-escala)}`;
}

/** An amount as written and parsed: its value in millionths and how many decimals it was written with. */
export interface Valor {
  readonly enMillonesimas: bigint;
  readonly decimales: number;
}

/**
 * Lower and upper limit of a computed amount (CFDI40167/180/186/198): each input written with n decimals may
 * be off by half a unit of its last decimal, `b` too unless it is exact (a rate). The lower limit is
 * truncated and the upper rounded up to the decimals of the amount checked, so every correctly rounded
 * value fits. Works in ten-millionths, where half a unit of any 6-decimal value is an integer.
 * Returns the limits, as text with the amount's decimals, only when `importe` falls outside them.
 */
export function fueraDeLimites(
  importe: Valor,
  a: Valor,
  b: Valor,
  bExacto: boolean,
): { inferior: string; superior: string } | undefined {
  const media = (v: Valor) => 5n * potencia(6 - v.decimales);
  const ma = media(a);
  const mb = bExacto ? 0n : media(b);
  const a7 = a.enMillonesimas * 10n;
  const b7 = b.enMillonesimas * 10n;
  const noNegativo = (x: bigint) => (x > 0n ? x : 0n);
  const divisor = potencia(14 - importe.decimales);
  const inferior = (noNegativo(a7 - ma) * noNegativo(b7 - mb)) / divisor;
  const superior = ((a7 + ma) * (b7 + mb) + divisor - 1n) / divisor;
  const valor = importe.enMillonesimas / potencia(6 - importe.decimales);
  if (valor >= inferior && valor <= superior) return undefined;
  return { inferior: escalado(inferior, importe.decimales), superior: escalado(superior, importe.decimales) };
}
