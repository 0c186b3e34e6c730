import { d } from '../cfdi/decimal';

/**
 * Amounts written out in Spanish, as Mexican invoices print them: "UN MIL DOSCIENTOS PESOS 50/100 M.N.".
 * Integers only here; the cents go as "NN/100".
 */

const HASTA_VEINTINUEVE = [
  'CERO',
  'UN',
  'DOS',
  'TRES',
  'CUATRO',
  'CINCO',
  'SEIS',
  'SIETE',
  'OCHO',
  'NUEVE',
  'DIEZ',
  'ONCE',
  'DOCE',
  'TRECE',
  'CATORCE',
  'QUINCE',
  'DIECISÉIS',
  'DIECISIETE',
  'DIECIOCHO',
  'DIECINUEVE',
  'VEINTE',
  'VEINTIÚN',
  'VEINTIDÓS',
  'VEINTITRÉS',
  'VEINTICUATRO',
  'VEINTICINCO',
  'VEINTISÉIS',
  'VEINTISIETE',
  'VEINTIOCHO',
  'VEINTINUEVE',
];
const DECENAS = ['', '', '', 'TREINTA', 'CUARENTA', 'CINCUENTA', 'SESENTA', 'SETENTA', 'OCHENTA', 'NOVENTA'];
const CENTENAS = [
  '',
  'CIENTO',
  'DOSCIENTOS',
  'TRESCIENTOS',
  'CUATROCIENTOS',
  'QUINIENTOS',
  'SEISCIENTOS',
  'SETECIENTOS',
  'OCHOCIENTOS',
  'NOVECIENTOS',
];

/** 1–999. "UN" is the apocopated form: the number always precedes a noun (PESOS, MIL, MILLONES). */
function hastaMil(n: number): string {
  if (n === 100) return 'CIEN';
  const c = Math.floor(n / 100);
  const r = n % 100;
  const partes: string[] = [];
  if (c > 0) partes.push(CENTENAS[c]!);
  if (r > 0 && r < 30) partes.push(HASTA_VEINTINUEVE[r]!);
  else if (r >= 30)
    partes.push(
      r % 10 === 0 ? DECENAS[r / 10]! : `${DECENAS[Math.floor(r / 10)]} Y ${HASTA_VEINTINUEVE[r % 10]}`,
    );
  return partes.join(' ');
}

/** 1–999,999; thousands are written "UN MIL", the customary form on invoices. */
function hastaMillon(n: number): string {
  const miles = Math.floor(n / 1000);
  const r = n % 1000;
  const partes: string[] = [];
  if (miles > 0) partes.push(`${hastaMil(miles)} MIL`);
  if (r > 0) partes.push(hastaMil(r));
  return partes.join(' ');
}

const MILLON = 1_000_000n;
const BILLON = MILLON * MILLON;

/** A non-negative integer in words, up to 999,999 billones (the 18 integer digits of t_Importe). */
export function numeroEnLetras(n: bigint): string {
  if (n < 0n || n >= BILLON * MILLON) throw new RangeError(`Fuera de rango: ${n}`);
  if (n === 0n) return 'CERO';
  const billones = Number(n / BILLON);
  const millones = Number((n % BILLON) / MILLON);
  const resto = Number(n % MILLON);
  const partes: string[] = [];
  if (billones > 0) partes.push(billones === 1 ? 'UN BILLÓN' : `${hastaMillon(billones)} BILLONES`);
  if (millones > 0) partes.push(millones === 1 ? 'UN MILLÓN' : `${hastaMillon(millones)} MILLONES`);
  if (resto > 0) partes.push(hastaMillon(resto));
  return partes.join(' ');
}

/** Currency names used in the words; other currencies are named only by their code at the end. */
const NOMBRES_MONEDA: Readonly<Record<string, readonly [singular: string, plural: string]>> = {
  MXN: ['PESO', 'PESOS'],
  USD: ['DÓLAR', 'DÓLARES'],
  EUR: ['EURO', 'EUROS'],
};

const IMPORTE = /^[0-9]{1,18}(\.[0-9]+)?$/;

/**
 * `importeConLetra('1200.50', 'MXN')` → "UN MIL DOSCIENTOS PESOS 50/100 M.N.";
 * `importeConLetra('1000000', 'USD')` → "UN MILLÓN DE DÓLARES 00/100 USD". Rounded half-up to cents.
 */
export function importeConLetra(importe: string, moneda: string): string {
  if (!IMPORTE.test(importe)) throw new Error(`Importe inválido: "${importe}"`);
  const [entero = '0', centavos = '00'] = d(importe).toFixed(2).split('.');
  const n = BigInt(entero);
  const nombre = NOMBRES_MONEDA[moneda];
  const palabras = [numeroEnLetras(n)];
  if (nombre) {
    // "UN MILLÓN DE PESOS", but "UN MILLÓN CIEN PESOS": "de" only when nothing follows the millions.
    if (n >= MILLON && n % MILLON === 0n) palabras.push('DE');
    palabras.push(n === 1n ? nombre[0] : nombre[1]);
  }
  palabras.push(`${centavos}/100`, moneda === 'MXN' ? 'M.N.' : moneda);
  return palabras.join(' ');
}
