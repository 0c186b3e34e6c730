import { d, fijo } from './decimal';
import { extraerTimbre } from './timbre';
import { conPrefijo, partesNombre } from './xml/espacios';
import type { Nodo } from './xml/nodo';

/** Verification URL of a stamped CFDI (the content of the printed QR code), as the SAT expression defines it. */

export const URL_VERIFICACION_CFDI = 'https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx';

export interface DatosVerificacion {
  /** UUID of the TimbreFiscalDigital, as written there. */
  uuid: string;
  rfcEmisor: string;
  rfcReceptor: string;
  /** Comprobante@Total as written in the XML. */
  total: string;
  /** Comprobante@Sello. */
  sello: string;
}

/** `…/default.aspx?id={UUID}&re={RFC emisor}&rr={RFC receptor}&tt={Total}&fe={last 8 chars of Sello}`. */
export function urlVerificacion(datos: DatosVerificacion): string {
  if (datos.sello.length < 8) throw new Error('El sello es demasiado corto para la URL de verificación');
  return (
    `${URL_VERIFICACION_CFDI}?id=${datos.uuid}` +
    `&re=${rfcEnExpresion(datos.rfcEmisor)}` +
    `&rr=${rfcEnExpresion(datos.rfcReceptor)}` +
    `&tt=${totalEnExpresion(datos.total)}` +
    `&fe=${datos.sello.slice(-8)}`
  );
}

/** The same URL read from a stamped Comprobante node. */
export function urlVerificacionDe(comprobante: Nodo): string {
  const tfd = extraerTimbre(comprobante);
  const [prefijo] = partesNombre(comprobante.nombre);
  const emisor = comprobante.hijos.find((h) => h.nombre === conPrefijo(prefijo, 'Emisor'));
  const receptor = comprobante.hijos.find((h) => h.nombre === conPrefijo(prefijo, 'Receptor'));
  const { Total: total, Sello: sello } = comprobante.atributos;
  const uuid = tfd?.atributos['UUID'];
  const rfcEmisor = emisor?.atributos['Rfc'];
  const rfcReceptor = receptor?.atributos['Rfc'];
  if (!uuid || !rfcEmisor || !rfcReceptor || total === undefined || !sello) {
    throw new Error('El comprobante no está timbrado o le faltan datos para la URL de verificación');
  }
  return urlVerificacion({ uuid, rfcEmisor, rfcReceptor, total, sello });
}

/** The SAT expression writes RFCs XML-escaped: `H&E951128469` → `H&amp;E951128469`. */
const rfcEnExpresion = (rfc: string): string => rfc.replace(/&/g, '&amp;');

const IMPORTE = /^[0-9]+(\.[0-9]+)?$/;

/**
 * Total with up to 6 decimals, trailing zeros removed but one decimal kept:
 * `459.360000` → `459.36`, `1000.00` → `1000.0`, `0` → `0.0`.
 */
export function totalEnExpresion(total: string): string {
  if (!IMPORTE.test(total)) throw new Error(`Total inválido para la URL de verificación: "${total}"`);
  const sinCeros = fijo(d(total), 6).replace(/0+$/, '');
  return sinCeros.endsWith('.') ? `${sinCeros}0` : sinCeros;
}
