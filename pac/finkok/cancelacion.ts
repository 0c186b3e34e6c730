import { constants, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { ErrorCsd, leerCertificado, type CertificadoCsd } from '../../cfdi/csd';
import type { FirmaCsd } from '../puerto';
import {
  elemento,
  escribirXml,
  hijoDe,
  hijosDe,
  leerXml,
  localDe,
  textoDe,
  uriDe,
  type ElementoXml,
} from '../soap/xml';
import { firmarEnvuelta, firmaEnvuelta, NS_DSIG, verificarEnvuelta } from '../soap/xmldsig';

/**
 * The signed cancellation request ("Cancelacion", namespace http://cancelacfd.sat.gob.mx) that Finkok's
 * cancel_signature forwards to the SAT: Folios/Folio with UUID, Motivo and FolioSustitucion (CFDI 4.0
 * cancellation, 2022), and an enveloped XMLDSig signature by the issuer's CSD (pac/soap/xmldsig, i.e.
 * xml-crypto): inclusive C14N 1.0, RSA-SHA1 over SHA-1 digests (what the SAT's service expects), KeyInfo
 * with the certificate.
 */

export const NS_SAT_CANCELACION = 'http://cancelacfd.sat.gob.mx';
export { NS_DSIG };

export interface FolioCancelacion {
  uuid: string;
  motivo: string;
  folioSustitucion?: string;
}

export interface Firmante {
  certificado: Buffer;
  firmar(datos: Buffer, algoritmo: 'sha1' | 'sha256'): Buffer | Promise<Buffer>;
}

/** The port accepts a certificate and key or a signer; both end up as a signer. */
export function firmanteDe(firma: FirmaCsd): Firmante {
  if ('firmar' in firma) return firma;
  return firmanteConLlave(firma.cer, firma.llave);
}

export function firmanteConLlave(certificado: Buffer, llave: KeyObject): Firmante {
  return {
    certificado,
    firmar: (datos, algoritmo) =>
      sign(algoritmo, datos, { key: llave, padding: constants.RSA_PKCS1_PADDING }),
  };
}

export interface DatosCancelacion {
  rfcEmisor: string;
  /** Local time of the request, `YYYY-MM-DDThh:mm:ss`. */
  fecha: string;
  folios: readonly FolioCancelacion[];
  firmante: Firmante;
}

/** The request, signed, as the XML text that goes (in base64) into cancel_signature's `xml`. */
export async function construirCancelacion(d: DatosCancelacion): Promise<string> {
  const x509 = new X509Certificate(d.firmante.certificado);
  const raiz = elemento(
    'Cancelacion',
    {
      xmlns: NS_SAT_CANCELACION,
      'xmlns:xsd': 'http://www.w3.org/2001/XMLSchema',
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      RfcEmisor: d.rfcEmisor,
      Fecha: d.fecha,
    },
    [
      elemento(
        'Folios',
        {},
        d.folios.map((f) =>
          elemento('Folio', {
            UUID: f.uuid.toUpperCase(),
            Motivo: f.motivo,
            // The SAT's schema has it always; empty when the motivo needs none.
            FolioSustitucion: f.folioSustitucion?.toUpperCase() ?? '',
          }),
        ),
      ),
    ],
  );
  const jwk = x509.publicKey.export({ format: 'jwk' });
  const infoLlave = [
    elemento('X509Data', {}, [
      elemento('X509IssuerSerial', {}, [
        elemento('X509IssuerName', {}, [x509.issuer.split('\n').join(',')]),
        elemento('X509SerialNumber', {}, [numeroDeSerie(x509)]),
      ]),
      elemento('X509Certificate', {}, [x509.raw.toString('base64')]),
    ]),
    elemento('KeyValue', {}, [
      elemento('RSAKeyValue', {}, [
        elemento('Modulus', {}, [Buffer.from(jwk.n ?? '', 'base64url').toString('base64')]),
        elemento('Exponent', {}, [Buffer.from(jwk.e ?? '', 'base64url').toString('base64')]),
      ]),
    ]),
  ]
    .map((el) => escribirXml(el, false))
    .join('');
  return firmarEnvuelta(escribirXml(raiz), {
    hash: 'sha1',
    firmar: (datos, hash) => d.firmante.firmar(datos, hash),
    infoLlave,
  });
}

/** SAT serials are ASCII digits: written as the certificate number, as the SAT's own tools do. */
function numeroDeSerie(x509: X509Certificate): string {
  const bytes = Buffer.from(
    x509.serialNumber.length % 2 ? `0${x509.serialNumber}` : x509.serialNumber,
    'hex',
  );
  return bytes.every((b) => b >= 0x30 && b <= 0x39)
    ? bytes.toString('latin1')
    : BigInt(`0x${x509.serialNumber}`).toString();
}

export type CancelacionVerificada =
  | {
      ok: true;
      rfcEmisor: string;
      fecha: string;
      folios: FolioCancelacion[];
      certificado: CertificadoCsd;
    }
  | {
      ok: false;
      motivo: string;
      /** The certificate itself is the problem (Finkok 711). */ deCertificado?: boolean;
    };

const falla = (motivo: string, deCertificado = false): CancelacionVerificada => ({
  ok: false,
  motivo,
  ...(deCertificado ? { deCertificado } : {}),
});

/**
 * What the sandbox checks of a cancellation request: well formed, signed, and the signature made by
 * the key of the certificate it carries. Whether that certificate is the issuer's is for the caller
 * (compare `certificado.rfc` with RfcEmisor and with the stamp's issuer).
 */
export function verificarCancelacion(xml: string): CancelacionVerificada {
  let raiz: ElementoXml;
  try {
    raiz = leerXml(xml);
  } catch (e) {
    return falla((e as Error).message);
  }
  const leida = datosDe(raiz);
  if ('ok' in leida) return leida;

  const firma = firmaEnvuelta(raiz);
  if (!firma) return falla('la solicitud no está firmada (falta ds:Signature)');
  const certificadoB64 = textoDe(hijoDe(hijoDe(hijoDe(firma, 'KeyInfo'), 'X509Data'), 'X509Certificate'));
  let certificado: CertificadoCsd | undefined;
  try {
    certificado = leerCertificado(Buffer.from(certificadoB64.replace(/\s+/g, ''), 'base64'));
  } catch (e) {
    if (!(e instanceof ErrorCsd)) throw e;
  }
  // Only an RSA key can have made an RSA-SHA* signature (node:crypto would check an EC one as ECDSA).
  const llave = certificado?.x509.publicKey;
  const v = verificarEnvuelta(xml, raiz, firma, llave?.asymmetricKeyType === 'rsa' ? llave : undefined);
  if (!v.ok) {
    if (v.causa === 'perfil' || v.causa === 'digestion') return falla(v.motivo);
    if (!certificado) return falla('la firma no incluye un certificado X.509 legible', true);
    return falla('la firma no corresponde al certificado incluido');
  }
  if (!certificado?.esCsd) return falla('la solicitud no está firmada con un CSD', true);
  // What is returned comes from the bytes the digest covers, not from this parser's reading of `xml`.
  const firmada = datosDe(leerXml(v.firmado));
  if ('ok' in firmada) return firmada;
  return { ok: true, ...firmada, certificado };
}

interface DatosLeidos {
  rfcEmisor: string;
  fecha: string;
  folios: FolioCancelacion[];
}

function datosDe(raiz: ElementoXml): DatosLeidos | CancelacionVerificada {
  if (localDe(raiz.nombre) !== 'Cancelacion' || uriDe(raiz) !== NS_SAT_CANCELACION) {
    return falla(`se esperaba Cancelacion (${NS_SAT_CANCELACION}) y llegó <${raiz.nombre}>`);
  }
  const rfcEmisor = raiz.atributos['RfcEmisor'] ?? '';
  const fecha = raiz.atributos['Fecha'] ?? '';
  if (!rfcEmisor || !fecha) return falla('Cancelacion sin RfcEmisor o sin Fecha');
  const foliosNodo = hijoDe(raiz, 'Folios');
  // 2022 format: Folio elements with attributes; the older one listed bare UUID elements.
  const folios: FolioCancelacion[] = [
    ...hijosDe(foliosNodo, 'Folio').map((f) => ({
      uuid: (f.atributos['UUID'] ?? '').toUpperCase(),
      motivo: f.atributos['Motivo'] ?? '',
      ...(f.atributos['FolioSustitucion']
        ? { folioSustitucion: f.atributos['FolioSustitucion'].toUpperCase() }
        : {}),
    })),
    ...hijosDe(foliosNodo, 'UUID').map((u) => ({ uuid: textoDe(u).trim().toUpperCase(), motivo: '' })),
  ];
  if (folios.length === 0) return falla('Cancelacion sin folios');
  return { rfcEmisor, fecha, folios };
}
