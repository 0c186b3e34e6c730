import { d } from '../decimal';
import { violacion, type Violacion } from './tipos';

// t_Importe of the CFDI XSD: no sign, up to 18 integer digits, up to 6 decimals. No exponent ("1e3"),
// no bare point: the value is written into the XML as given after normalizing.
const PATRON_PRECIO = /^\d{1,18}(\.\d{1,6})?$/;

/** A unit price: non-negative decimal string with at most 6 decimals. */
export function validarPrecioUnitario(valor: string, parametro = 'valor_unitario'): Violacion[] {
  if (PATRON_PRECIO.test(valor)) return [];
  return [
    violacion(
      'precio_invalido',
      `El precio "${valor}" no es válido: debe ser un número decimal no negativo escrito como texto, ` +
        'con hasta 6 decimales (por ejemplo "1500.00").',
      parametro,
    ),
  ];
}

/** "1500" → "1500.000000". Throws on a value validarPrecioUnitario rejects. */
export function normalizarPrecio(valor: string): string {
  if (!PATRON_PRECIO.test(valor)) throw new Error(`Precio inválido: "${valor}"`);
  return d(valor).toFixed(6);
}
