import type { KeyObject } from 'node:crypto';
import { SignedXml, type ErrorFirstCallback, type SignatureAlgorithm } from 'xml-crypto';
import { ambitoDe, type Ambito } from '../../cfdi/xml/espacios';
import { escribirXml, hijoDe, hijosDe, localDe, uriDe, type ElementoXml } from './xml';

/**
 * Enveloped XML signatures (XMLDSig) through xml-crypto, in the one profile the SAT's cancellation
 * service uses: a single Reference to the whole document (URI=""), the enveloped-signature transform,
 * inclusive C14N 1.0 for the document and for SignedInfo, RSA PKCS#1 v1.5. The profile is checked before
 * xml-crypto runs and xml-crypto is handed only these algorithms: a verifier that uses whatever the
 * document names (exclusive C14N, HMAC, references by Id) is easier to fool.
 */

export const NS_DSIG = 'http://www.w3.org/2000/09/xmldsig#';

export const ALGORITMOS_DSIG = {
  c14n: 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
  envuelta: 'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
  rsaSha1: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  sha1: 'http://www.w3.org/2000/09/xmldsig#sha1',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
} as const;

export type HashFirma = 'sha1' | 'sha256';

const FIRMA_CON: Record<HashFirma, string> = {
  sha1: ALGORITMOS_DSIG.rsaSha1,
  sha256: ALGORITMOS_DSIG.rsaSha256,
};
const DIGESTION_CON: Record<HashFirma, string> = {
  sha1: ALGORITMOS_DSIG.sha1,
  sha256: ALGORITMOS_DSIG.sha256,
};

export interface OpcionesFirma {
  /** Hash of both the digest and the signature. */
  hash: HashFirma;
  /** RSA PKCS#1 v1.5 signature of `datos` (the canonical SignedInfo): the key may live elsewhere (a vault). */
  firmar(datos: Buffer, hash: HashFirma): Buffer | Promise<Buffer>;
  /** What goes inside KeyInfo, as XML text. */
  infoLlave: string;
}

// xml-crypto refuses to sign without a private key of its own; signing is delegated, so it gets a
// placeholder that nothing reads.
const SIN_LLAVE = Buffer.alloc(0);

/** Signs `xml` (a whole document) and returns it with the Signature as the root's last child. */
export function firmarEnvuelta(xml: string, o: OpcionesFirma): Promise<string> {
  return new Promise((resolver, rechazar) => {
    const algoritmo = FIRMA_CON[o.hash];
    const sx = new SignedXml({
      privateKey: SIN_LLAVE,
      canonicalizationAlgorithm: ALGORITMOS_DSIG.c14n,
      signatureAlgorithm: algoritmo,
      getKeyInfoContent: () => o.infoLlave,
    });
    sx.SignatureAlgorithms = {
      [algoritmo]: firmaDelegada(algoritmo, (datos) => o.firmar(datos, o.hash), rechazar),
    };
    sx.addReference({
      xpath: '/*',
      transforms: [ALGORITMOS_DSIG.envuelta],
      digestAlgorithm: DIGESTION_CON[o.hash],
      isEmptyUri: true,
    });
    try {
      sx.computeSignature(xml, { location: { reference: '/*', action: 'append' } }, (e) =>
        e ? rechazar(e) : resolver(sx.getSignedXml()),
      );
    } catch (e) {
      rechazar(e as Error);
    }
  });
}

/**
 * A signature algorithm for xml-crypto that asks `firmar` (possibly asynchronous) and only signs.
 * `rechazar` gets what xml-crypto throws while finishing the document after the signature arrived.
 */
function firmaDelegada(
  uri: string,
  firmar: (datos: Buffer) => Buffer | Promise<Buffer>,
  rechazar: (e: Error) => void,
): new () => SignatureAlgorithm {
  // xml-crypto's type has the synchronous overload too; this one answers only through the callback.
  return class {
    getAlgorithmName = (): string => uri;

    getSignature(infoFirmada: unknown, _llave: unknown, listo?: ErrorFirstCallback<string>): void {
      if (!listo) throw new Error('la firma delegada solo es asíncrona');
      Promise.resolve()
        .then(() => firmar(Buffer.from(infoFirmada as string, 'utf8')))
        .then(
          (valor) => listo(null, valor.toString('base64')),
          (e: Error) => listo(e),
        )
        .catch(rechazar);
    }

    verifySignature(): never {
      throw new Error('la firma delegada no verifica');
    }
  } as unknown as new () => SignatureAlgorithm;
}

/** The Signature (XMLDSig namespace) that is a direct child of the root, if any. */
export function firmaEnvuelta(raiz: ElementoXml): ElementoXml | undefined {
  const ambito = ambitoDe(raiz);
  return raiz.hijos.find(
    (h): h is ElementoXml =>
      typeof h !== 'string' && localDe(h.nombre) === 'Signature' && uriDe(h, ambito) === NS_DSIG,
  );
}

const HASH_DE_FIRMA = new Set<string>([ALGORITMOS_DSIG.rsaSha1, ALGORITMOS_DSIG.rsaSha256]);
const HASH_DE_DIGESTION = new Set<string>([ALGORITMOS_DSIG.sha1, ALGORITMOS_DSIG.sha256]);

export type VerificacionFirma =
  /** `firmado`: the canonical form of what the signature covers (the document without its Signature). */
  | { ok: true; firmado: string }
  | { ok: false; causa: 'perfil' | 'digestion' | 'llave' | 'firma'; motivo: string };

const fallo = (
  causa: Exclude<VerificacionFirma, { ok: true }>['causa'],
  motivo: string,
): VerificacionFirma => ({
  ok: false,
  causa,
  motivo,
});

/**
 * Verifies an enveloped signature of this profile. `raiz` is `xml` as cfdi/xml/parsear read it, `firma`
 * the Signature among its children (`firmaEnvuelta`), `llavePublica` the key that must have signed
 * (undefined when there is none usable: the answer is then `llave`, but only after the digest matched).
 * Read the signed data from `firmado`, not from `xml`: those are exactly the bytes the digest covers.
 */
export function verificarEnvuelta(
  xml: string,
  raiz: ElementoXml,
  firma: ElementoXml,
  llavePublica: KeyObject | undefined,
): VerificacionFirma {
  const infoFirmada = hijoDe(firma, 'SignedInfo');
  const referencia = hijoDe(infoFirmada, 'Reference');
  const algoritmo = (local: string, el = infoFirmada): string =>
    hijoDe(el, local)?.atributos['Algorithm'] ?? '';
  if (
    !infoFirmada ||
    !referencia ||
    algoritmo('CanonicalizationMethod') !== ALGORITMOS_DSIG.c14n ||
    !HASH_DE_FIRMA.has(algoritmo('SignatureMethod')) ||
    !HASH_DE_DIGESTION.has(algoritmo('DigestMethod', referencia))
  ) {
    return fallo('perfil', 'firma con algoritmos no admitidos (se espera C14N 1.0 y RSA-SHA1 o RSA-SHA256)');
  }
  const transformaciones = hijosDe(hijoDe(referencia, 'Transforms'), 'Transform').map(
    (t) => t.atributos['Algorithm'],
  );
  if (referencia.atributos['URI'] !== '' || !transformaciones.includes(ALGORITMOS_DSIG.envuelta)) {
    return fallo('perfil', 'la firma debe ser envuelta (Reference URI="" con enveloped-signature)');
  }
  if (transformaciones.some((t) => t !== ALGORITMOS_DSIG.envuelta && t !== ALGORITMOS_DSIG.c14n)) {
    return fallo('perfil', 'la firma usa transformaciones no admitidas');
  }

  const sx = new SignedXml({
    ...(llavePublica ? { publicCert: llavePublica } : {}),
    // The caller chose the key; a certificate in KeyInfo is not trusted just for being there.
    getCertFromKeyInfo: () => null,
  });
  // Exclusive C14N stays available because loadSignature uses it internally to read SignedInfo; what
  // the signature itself names is checked on xml-crypto's reading below.
  sx.CanonicalizationAlgorithms = soloEstos(sx.CanonicalizationAlgorithms, [
    ALGORITMOS_DSIG.c14n,
    ALGORITMOS_DSIG.envuelta,
    C14N_EXCLUSIVA,
  ]);
  sx.SignatureAlgorithms = soloEstos(sx.SignatureAlgorithms, [...HASH_DE_FIRMA]);
  sx.HashAlgorithms = soloEstos(sx.HashAlgorithms, [...HASH_DE_DIGESTION]);
  try {
    // Handed over as text: xml-crypto finds the same element in its own reading of `xml` by its
    // SignatureValue (and refuses when two carry it).
    sx.loadSignature(escribirXml(suelta(firma, ambitoDe(firma, ambitoDe(raiz))), false));
    if (!mismoPerfil(sx)) return fallo('perfil', 'la firma usa referencias o transformaciones no admitidas');
    if (!sx.checkSignature(xml)) {
      return fallo('digestion', 'la digestión no corresponde: el documento cambió después de firmarse');
    }
  } catch (e) {
    const mensaje = (e as Error).message;
    if (!llavePublica && /publicCert|KeyInfo/.test(mensaje)) return fallo('llave', 'no hay llave pública');
    if (/invalid signature/.test(mensaje)) return fallo('firma', 'la firma no corresponde a la llave');
    return fallo('firma', `firma ilegible: ${mensaje}`);
  }
  const [firmado] = sx.getSignedReferences();
  if (firmado === undefined) return fallo('digestion', 'la firma no cubre el documento');
  return { ok: true, firmado };
}

const C14N_EXCLUSIVA = 'http://www.w3.org/2001/10/xml-exc-c14n#';

/** The profile again, as xml-crypto read it: its reading and cfdi/xml/parsear's must not differ. */
function mismoPerfil(sx: SignedXml): boolean {
  const referencias = sx.getReferences();
  return (
    sx.canonicalizationAlgorithm === ALGORITMOS_DSIG.c14n &&
    referencias.length === 1 &&
    referencias.every((r) =>
      r.transforms.every((t) => t === ALGORITMOS_DSIG.envuelta || t === ALGORITMOS_DSIG.c14n),
    )
  );
}

/** The Signature alone, carrying every namespace in scope where it stood (prefixed signatures too). */
function suelta(firma: ElementoXml, ambito: Ambito): ElementoXml {
  const atributos: Record<string, string> = {};
  for (const prefijo in ambito) atributos[prefijo ? `xmlns:${prefijo}` : 'xmlns'] = ambito[prefijo] as string;
  for (const [k, v] of Object.entries(firma.atributos))
    if (k !== 'xmlns' && !k.startsWith('xmlns:')) atributos[k] = v;
  return { ...firma, atributos };
}

function soloEstos<T>(mapa: Record<string, T>, permitidos: readonly string[]): Record<string, T> {
  return Object.fromEntries(Object.entries(mapa).filter(([k]) => permitidos.includes(k)));
}
