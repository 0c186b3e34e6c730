import type { KeyObject } from 'node:crypto';
import type { Violacion } from '../reglas/tipos';
import { leerCertificado, type CertificadoCsd } from './certificado';
import { abrirLlave } from './llave';
import { CODIGOS_CSD, ErrorCsd, violacionCsd, type ModoCsd } from './tipos';

export interface EntradaCsd {
  cer: Buffer;
  llave: Buffer;
  contrasena: string;
  /** RFC of the organization the certificate is uploaded for. */
  rfcEsperado: string;
  ahora: Date;
  /** In live mode certificates of the SAT's test CA are refused; test mode takes any valid CSD. */
  modo: ModoCsd;
}

export type CsdValidado =
  | { ok: true; certificado: CertificadoCsd; llave: KeyObject }
  | { ok: false; violaciones: Violacion[] };

/**
 * Every check of a CSD upload. All independent problems are reported, certificate first (a FIEL
 * uploaded with its own key is "not a CSD", not "wrong key"), then the key. Messages carry RFCs and
 * dates only: never the password or key material.
 */
export function validarCsd(entrada: EntradaCsd): CsdValidado {
  const violaciones: Violacion[] = [];

  let certificado: CertificadoCsd | null = null;
  try {
    certificado = leerCertificado(entrada.cer);
  } catch (e) {
    if (!(e instanceof ErrorCsd)) throw e;
    violaciones.push(e.violacion);
  }
  if (certificado) violaciones.push(...revisarCertificado(certificado, entrada));

  const abierta = abrirLlave(entrada.llave, entrada.contrasena);
  if (!abierta.ok) violaciones.push(...abierta.violaciones);
  else if (certificado && !certificado.x509.checkPrivateKey(abierta.llave)) {
    violaciones.push(
      violacionCsd(
        CODIGOS_CSD.llaveNoCorresponde,
        `La llave privada no corresponde al certificado ${certificado.noCertificado}: sube el .key que se generó junto con ese .cer.`,
        'llave',
      ),
    );
  }

  if (violaciones.length > 0 || !certificado || !abierta.ok) return { ok: false, violaciones };
  return { ok: true, certificado, llave: abierta.llave };
}

function revisarCertificado(c: CertificadoCsd, entrada: EntradaCsd): Violacion[] {
  const violaciones: Violacion[] = [];
  const motivo = motivoNoCsd(c);
  if (motivo) violaciones.push(violacionCsd(CODIGOS_CSD.noEsCsd, motivo, 'cer'));

  const rfcEsperado = entrada.rfcEsperado.trim().toUpperCase();
  if (c.rfc && c.rfc.toUpperCase() !== rfcEsperado) {
    violaciones.push(
      violacionCsd(
        CODIGOS_CSD.rfcNoCoincide,
        `El RFC del certificado (${c.rfc}) no es el de la organización (${rfcEsperado}).`,
        'cer',
      ),
    );
  }

  const ahora = entrada.ahora.getTime();
  if (ahora > c.validoHasta.getTime()) {
    violaciones.push(
      violacionCsd(CODIGOS_CSD.vencido, `El certificado venció el ${fecha(c.validoHasta)}.`, 'cer'),
    );
  } else if (ahora < c.validoDesde.getTime()) {
    violaciones.push(
      violacionCsd(
        CODIGOS_CSD.aunNoVigente,
        `El certificado es válido a partir del ${fecha(c.validoDesde)}.`,
        'cer',
      ),
    );
  }

  if (entrada.modo === 'live' && c.emisorEsPrueba) {
    violaciones.push(
      violacionCsd(
        CODIGOS_CSD.dePrueba,
        `El certificado lo emitió la autoridad certificadora de pruebas del SAT (${c.emisor}): en modo live se necesita un CSD real; úsalo en modo test.`,
        'cer',
      ),
    );
  }
  return violaciones;
}

/** Why the certificate is not a SAT CSD, or null when it is one. */
function motivoNoCsd(c: CertificadoCsd): string | null {
  if (c.tipo === 'fiel') {
    return 'El certificado es de una e.firma (FIEL), no un certificado de sello digital (CSD): para facturar se usa el CSD, que se tramita en el SAT con la e.firma.';
  }
  const prefijo = 'El certificado no es un certificado de sello digital (CSD) del SAT';
  if (!c.esCsd) {
    if (c.sucursal === null) return `${prefijo}: no tiene el nombre de sucursal (OU) de los CSD.`;
    return `${prefijo}: sus usos de llave no son los de un CSD (solo firma digital y no repudio).`;
  }
  if (!/^\d{20}$/.test(c.noCertificado)) {
    return `${prefijo}: su número de serie no es un número de certificado del SAT de 20 dígitos.`;
  }
  if (!c.rfc) return `${prefijo}: no trae el RFC del titular.`;
  return null;
}

/** ISO 8601 in UTC without milliseconds, as the API prints timestamps. */
const fecha = (d: Date) => d.toISOString().replace('.000Z', 'Z');
