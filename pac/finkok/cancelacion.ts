import { constants, createHash, sign, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { ambitoDe } from '../../cfdi/xml/espacios';
import { ErrorCsd, leerCertificado, type CertificadoCsd } from '../../cfdi/csd';
import type { FirmaCsd } from '../puerto';
import { canonicalizar } from '../soap/c14n';
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

/**
 * The signed cancellation request ("Cancelacion", namespace http://cancelacfd.sat.gob.mx) that Finkok's
 * cancel_signature forwards to the SAT: Folios/Folio with UUID, Motivo and FolioSustitucion (CFDI 4.0
 * cancellation, 2022), and an enveloped XMLDSig signature by the issuer's CSD: inclusive C14N 1.0,
 * RSA-SHA1 over SHA-1 digests (what the SAT's service expects), KeyInfo with the certificate.
 */

export const NS_SAT_CANCELACION = 'http://cancelacfd.sat.gob.mx';
export const NS_DSIG = 'http://www.w3.org/2000/09/xmldsig#';

const ALGORITMOS = {
  c14n: 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
  envuelta: 'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
  rsaSha1: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  sha1: 'http://www.w3.org/2000/09/xmldsig#sha1',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
} as const;

const HASH_DE_FIRMA: Record<string, 'sha1' | 'sha256'> = {
  [ALGORITMOS.rsaSha1]: 'sha1',
  [ALGORITMOS.rsaSha256]: 'sha256',
};
const HASH_DE_DIGESTION: Record<string, 'sha1' | 'sha256'> = {
  [ALGORITMOS.sha1]: 'sha1',
  [ALGORITMOS.sha256]: 'sha256',
};

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
  // Enveloped signature: the digest covers the document without its Signature, i.e. as it is now.
  const digestion = createHash('sha1').update(canonicalizar(raiz), 'utf8').digest('base64');
  const infoFirmada = elemento('SignedInfo', {}, [
    elemento('CanonicalizationMethod', { Algorithm: ALGORITMOS.c14n }),
    elemento('SignatureMethod', { Algorithm: ALGORITMOS.rsaSha1 }),
    elemento('Reference', { URI: '' }, [
      elemento('Transforms', {}, [elemento('Transform', { Algorithm: ALGORITMOS.envuelta })]),
      elemento('DigestMethod', { Algorithm: ALGORITMOS.sha1 }),
      elemento('DigestValue', {}, [digestion]),
    ]),
  ]);
  const firma = elemento('Signature', { xmlns: NS_DSIG }, [infoFirmada]);
  raiz.hijos.push(firma);
  const canonica = canonicalizar(infoFirmada, ambitoDe(firma, ambitoDe(raiz)));
  const valor = await d.firmante.firmar(Buffer.from(canonica, 'utf8'), 'sha1');
  const jwk = x509.publicKey.export({ format: 'jwk' });
  firma.hijos.push(
    elemento('SignatureValue', {}, [valor.toString('base64')]),
    elemento('KeyInfo', {}, [
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
    ]),
  );
  return escribirXml(raiz);
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
  const ambitoRaiz = ambitoDe(raiz);
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

  const firma = raiz.hijos.find(
    (h): h is ElementoXml =>
      typeof h !== 'string' && localDe(h.nombre) === 'Signature' && uriDe(h, ambitoRaiz) === NS_DSIG,
  );
  if (!firma) return falla('la solicitud no está firmada (falta ds:Signature)');
  const ambitoFirma = ambitoDe(firma, ambitoRaiz);
  const infoFirmada = hijoDe(firma, 'SignedInfo');
  const referencia = hijoDe(infoFirmada, 'Reference');
  const metodoC14n = hijoDe(infoFirmada, 'CanonicalizationMethod')?.atributos['Algorithm'];
  const hashFirma = HASH_DE_FIRMA[hijoDe(infoFirmada, 'SignatureMethod')?.atributos['Algorithm'] ?? ''];
  const hashDigestion = HASH_DE_DIGESTION[hijoDe(referencia, 'DigestMethod')?.atributos['Algorithm'] ?? ''];
  const transformaciones = hijosDe(hijoDe(referencia, 'Transforms'), 'Transform').map(
    (t) => t.atributos['Algorithm'],
  );
  if (!infoFirmada || !referencia || metodoC14n !== ALGORITMOS.c14n || !hashFirma || !hashDigestion) {
    return falla('firma con algoritmos no admitidos (se espera C14N 1.0 y RSA-SHA1 o RSA-SHA256)');
  }
  if (referencia.atributos['URI'] !== '' || !transformaciones.includes(ALGORITMOS.envuelta)) {
    return falla('la firma debe ser envuelta (Reference URI="" con enveloped-signature)');
  }
  if (transformaciones.some((t) => t !== ALGORITMOS.envuelta && t !== ALGORITMOS.c14n)) {
    return falla('la firma usa transformaciones no admitidas');
  }

  const sinFirma: ElementoXml = { ...raiz, hijos: raiz.hijos.filter((h) => h !== firma) };
  const digestion = createHash(hashDigestion).update(canonicalizar(sinFirma), 'utf8').digest('base64');
  if (digestion !== textoDe(hijoDe(referencia, 'DigestValue')).trim()) {
    return falla('la digestión no corresponde: el documento cambió después de firmarse');
  }

  const certificadoB64 = textoDe(hijoDe(hijoDe(hijoDe(firma, 'KeyInfo'), 'X509Data'), 'X509Certificate'));
  let certificado: CertificadoCsd;
  try {
    certificado = leerCertificado(Buffer.from(certificadoB64.replace(/\s+/g, ''), 'base64'));
  } catch (e) {
    if (e instanceof ErrorCsd) return falla('la firma no incluye un certificado X.509 legible', true);
    throw e;
  }
  const valor = Buffer.from(textoDe(hijoDe(firma, 'SignatureValue')).replace(/\s+/g, ''), 'base64');
  const canonica = canonicalizar(infoFirmada, ambitoFirma);
  const valida =
    certificado.x509.publicKey.asymmetricKeyType === 'rsa' &&
    verify(
      hashFirma,
      Buffer.from(canonica, 'utf8'),
      { key: certificado.x509.publicKey, padding: constants.RSA_PKCS1_PADDING },
      valor,
    );
  if (!valida) return falla('la firma no corresponde al certificado incluido');
  if (!certificado.esCsd) return falla('la solicitud no está firmada con un CSD', true);
  return { ok: true, rfcEmisor, fecha, folios, certificado };
}
