import { Decimal } from '../decimal';
import type { ReglaTasaOCuota } from './catalogos';

/** A tax line is transferred (traslado) or withheld (retención); the SAT gives each its own codes. */
export type ClaseImpuesto = 'traslado' | 'retencion';

// c_Impuesto has three rows that have not changed since CFDI 3.3 (the catalog store has no lookup for it);
// ISR is only ever withheld.
const IMPUESTOS: ReadonlyMap<string, { nombre: string; traslado: boolean }> = new Map([
  ['001', { nombre: 'ISR', traslado: false }],
  ['002', { nombre: 'IVA', traslado: true }],
  ['003', { nombre: 'IEPS', traslado: true }],
]);

/** The c_Impuesto row of a code, if it exists. */
export const impuestoDeClave = (clave: string) => IMPUESTOS.get(clave);

/**
 * c_TasaOCuota names taxes by text, and the 8 % border IVA is written "IVA Crédito aplicado del 50%":
 * map that text to the c_Impuesto code. Codes are accepted as-is, in case a store already translated them.
 */
export function claveImpuestoDeRegla(impuesto: string): string | undefined {
  if (IMPUESTOS.has(impuesto)) return impuesto;
  const nombre = impuesto.trim().toUpperCase();
  if (nombre.startsWith('ISR')) return '001';
  if (nombre.startsWith('IVA')) return '002';
  if (nombre.startsWith('IEPS')) return '003';
  return undefined;
}

/** The c_TasaOCuota rows for that impuesto code, tipo de factor and class of line. */
export function reglasAplicables(
  reglas: readonly ReglaTasaOCuota[],
  impuesto: string,
  factor: string,
  clase: ClaseImpuesto,
): ReglaTasaOCuota[] {
  return reglas.filter(
    (r) => claveImpuestoDeRegla(r.impuesto) === impuesto && r.factor === factor && r[clase],
  );
}

/** Fijo: equal to `valor`; Rango: `minimo` (0 when empty) ≤ value ≤ `valor`, bounds included. */
export function cumpleRegla(regla: ReglaTasaOCuota, valor: Decimal): boolean {
  if (regla.tipo === 'Fijo') return valor.equals(regla.valor);
  return valor.greaterThanOrEqualTo(regla.minimo ?? 0) && valor.lessThanOrEqualTo(regla.valor);
}

/** The allowed values of some rows, for a message: fixed values sorted, then the ranges. */
export function describirPermitidos(reglas: readonly ReglaTasaOCuota[]): string {
  const fijos = reglas
    .filter((r) => r.tipo === 'Fijo')
    .map((r) => new Decimal(r.valor))
    .sort((a, b) => a.comparedTo(b))
    .map((d) => d.toFixed(6));
  const rangos = reglas
    .filter((r) => r.tipo === 'Rango')
    .map((r) => `de ${normalizarTasa(r.minimo ?? '0')} a ${normalizarTasa(r.valor)}`);
  return [...new Set(fijos), ...rangos].join(', ');
}

/** "0.16" → "0.160000": the 6-decimal form outputs use. Throws on anything but a non-negative decimal. */
export function normalizarTasa(valor: string): string {
  if (!/^\d+(\.\d+)?$/.test(valor)) throw new Error(`Tasa o cuota inválida: "${valor}"`);
  const decimal = new Decimal(valor);
  if (decimal.decimalPlaces() > 6) throw new Error(`Tasa o cuota con más de 6 decimales: "${valor}"`);
  return decimal.toFixed(6);
}
