import type { KeyObject } from 'node:crypto';
import { X509Certificate } from 'node:crypto';
import { cadenaTfd } from './cadena';
import { verificarSello } from './sello';
import { ambitoDe, conPrefijo, NS_TFD, NS_XSI, partesNombre } from './xml/espacios';
import { nodo, type Nodo } from './xml/nodo';

/** TimbreFiscalDigital 1.1: what a PAC adds inside cfdi:Complemento when it stamps a CFDI. */

export const UBICACION_ESQUEMA_TFD = `${NS_TFD} http://www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd`;

export interface DatosTimbre {
  uuid: string;
  /** Local time of the stamp, `YYYY-MM-DDThh:mm:ss`. */
  fechaTimbrado: string;
  /** RFC of the PAC. */
  rfcProvCertif: string;
  /** Comprobante@Sello of the stamped document. */
  selloCfd: string;
  /** NoCertificado of the certificate whose key produces SelloSAT. */
  noCertificadoSat: string;
  leyenda?: string;
}

/** Signs a cadena and returns the seal in base64, e.g. `(c) => sellar(c, llaveDelPac)`. */
export type Firmante = (cadena: string) => string;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const FECHA =
  /^20[1-9][0-9]-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$/;
const NO_CERTIFICADO = /^[0-9]{20}$/;

/** Builds the TFD node with its SelloSAT: `firmar` receives the TFD cadena original. */
export function construirTimbre(datos: DatosTimbre, firmar: Firmante): Nodo {
  if (!UUID.test(datos.uuid)) throw new Error(`UUID inválido: ${datos.uuid}`);
  if (!FECHA.test(datos.fechaTimbrado)) throw new Error(`FechaTimbrado inválida: ${datos.fechaTimbrado}`);
  if (!NO_CERTIFICADO.test(datos.noCertificadoSat)) {
    throw new Error(`NoCertificadoSAT inválido: ${datos.noCertificadoSat}`);
  }
  if (datos.selloCfd === '') throw new Error('SelloCFD vacío: el comprobante no está sellado');
  // Declares its own namespaces, as PACs do, so the TFD can be read or transformed on its own.
  const tfd = nodo('tfd:TimbreFiscalDigital', {
    'xmlns:tfd': NS_TFD,
    'xmlns:xsi': NS_XSI,
    'xsi:schemaLocation': UBICACION_ESQUEMA_TFD,
    Version: '1.1',
    UUID: datos.uuid,
    FechaTimbrado: datos.fechaTimbrado,
    RfcProvCertif: datos.rfcProvCertif,
    Leyenda: datos.leyenda,
    SelloCFD: datos.selloCfd,
    NoCertificadoSAT: datos.noCertificadoSat,
  });
  tfd.atributos['SelloSAT'] = firmar(cadenaTfd(tfd));
  return tfd;
}

/**
 * A copy of `comprobante` with `tfd` appended to its Complemento, which is created when missing right
 * where the XSD wants it (after Impuestos, before Addenda). The input tree is not modified.
 */
export function insertarTimbre(comprobante: Nodo, tfd: Nodo): Nodo {
  if (tfd.atributos['SelloCFD'] !== comprobante.atributos['Sello']) {
    throw new Error('El SelloCFD del timbre no es el Sello del comprobante');
  }
  if (extraerTimbre(comprobante)) throw new Error('El comprobante ya está timbrado');
  const [prefijo] = partesNombre(comprobante.nombre);
  const nombre = (local: string): string => conPrefijo(prefijo, local);
  const hijos = [...comprobante.hijos];
  const i = hijos.findIndex((h) => h.nombre === nombre('Complemento'));
  const existente = hijos[i];
  if (existente) {
    hijos[i] = { ...existente, hijos: [...existente.hijos, tfd] };
  } else {
    const addenda = hijos.findIndex((h) => h.nombre === nombre('Addenda'));
    hijos.splice(addenda < 0 ? hijos.length : addenda, 0, nodo(nombre('Complemento'), {}, [tfd]));
  }
  return { ...comprobante, hijos };
}

/** The TimbreFiscalDigital inside the Comprobante's Complemento, if it has been stamped. */
export function extraerTimbre(comprobante: Nodo): Nodo | undefined {
  const ambitoRaiz = ambitoDe(comprobante);
  const [prefijo] = partesNombre(comprobante.nombre);
  const complemento = conPrefijo(prefijo, 'Complemento');
  for (const c of comprobante.hijos) {
    if (c.nombre !== complemento) continue;
    const ambito = ambitoDe(c, ambitoRaiz);
    for (const h of c.hijos) {
      const [p, local] = partesNombre(h.nombre);
      if (local === 'TimbreFiscalDigital' && ambitoDe(h, ambito)[p] === NS_TFD) return h;
    }
  }
  return undefined;
}

/**
 * True when the Comprobante carries a TFD whose SelloCFD is the Comprobante's Sello and whose SelloSAT
 * verifies over the TFD cadena with `certificadoSat` (when a certificate is given, its number must also
 * be the TFD's NoCertificadoSAT).
 */
export function verificarTimbre(comprobante: Nodo, certificadoSat: X509Certificate | KeyObject): boolean {
  const tfd = extraerTimbre(comprobante);
  if (!tfd) return false;
  const { SelloCFD: selloCfd, SelloSAT: selloSat, NoCertificadoSAT: noCertificadoSat } = tfd.atributos;
  if (!selloCfd || selloCfd !== comprobante.atributos['Sello'] || !selloSat) return false;
  if (certificadoSat instanceof X509Certificate && numeroDeCertificado(certificadoSat) !== noCertificadoSat) {
    return false;
  }
  return verificarSello(cadenaTfd(tfd), selloSat, certificadoSat);
}

/** SAT certificate numbers are the serial number's bytes read as ASCII digits. */
function numeroDeCertificado(certificado: X509Certificate): string {
  return Buffer.from(certificado.serialNumber, 'hex').toString('latin1');
}
