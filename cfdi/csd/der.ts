/**
 * Just enough DER to read what node:crypto does not expose. On Node 20 `X509Certificate` gives the
 * subject, validity and serial, but not the KeyUsage bits (its `keyUsage` property is really the
 * *extended* key usage list, and is renamed in later Node versions), and `createPrivateKey` does not
 * say how many PBKDF2 iterations a `.key` asks for. node-forge could read both, but it is only a
 * development dependency; a few dozen lines of DER walking avoid shipping it.
 *
 * Only called on bytes OpenSSL has already parsed (certificates) or bytes that are about to be handed
 * to OpenSSL (keys), so anything unexpected throws `ErrorDer` and callers turn it into a violation.
 */

export class ErrorDer extends Error {}

export interface Tlv {
  /** The whole identifier octet (class, constructed bit and tag number). */
  etiqueta: number;
  /** Offset of the first content byte. */
  inicio: number;
  /** Offset just past the last content byte. */
  fin: number;
}

export const ETIQUETA = {
  booleano: 0x01,
  entero: 0x02,
  cadenaBits: 0x03,
  cadenaOctetos: 0x04,
  oid: 0x06,
  secuencia: 0x30,
} as const;

/** Reads one TLV at `pos`; it must end before `limite`. */
export function leerTlv(der: Uint8Array, pos: number, limite = der.length): Tlv {
  if (pos + 2 > limite) throw new ErrorDer('DER truncado');
  const etiqueta = der[pos] as number;
  // Multi-byte tag numbers never appear in certificates or PKCS#8.
  if ((etiqueta & 0x1f) === 0x1f) throw new ErrorDer('etiqueta DER no soportada');
  let largo = der[pos + 1] as number;
  let inicio = pos + 2;
  if (largo & 0x80) {
    const bytes = largo & 0x7f;
    // Indefinite length is BER, not DER; more than 4 length bytes would exceed any sane file.
    if (bytes === 0 || bytes > 4) throw new ErrorDer('longitud DER inválida');
    if (inicio + bytes > limite) throw new ErrorDer('DER truncado');
    largo = 0;
    for (let i = 0; i < bytes; i++) largo = largo * 256 + (der[inicio + i] as number);
    inicio += bytes;
  }
  const fin = inicio + largo;
  if (fin > limite) throw new ErrorDer('DER truncado');
  return { etiqueta, inicio, fin };
}

/** The TLVs directly inside a constructed value. */
export function hijos(der: Uint8Array, padre: Tlv): Tlv[] {
  const lista: Tlv[] = [];
  for (let pos = padre.inicio; pos < padre.fin; ) {
    const tlv = leerTlv(der, pos, padre.fin);
    lista.push(tlv);
    pos = tlv.fin;
  }
  return lista;
}

export function esperar(tlv: Tlv | undefined, etiqueta: number): Tlv {
  if (!tlv || tlv.etiqueta !== etiqueta) throw new ErrorDer('estructura DER inesperada');
  return tlv;
}

/** Dotted form of an OBJECT IDENTIFIER's content. */
export function oid(der: Uint8Array, tlv: Tlv): string {
  const partes: number[] = [];
  let valor = 0;
  for (let i = tlv.inicio; i < tlv.fin; i++) {
    const byte = der[i] as number;
    valor = valor * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      if (partes.length === 0) {
        const primero = valor < 80 ? Math.floor(valor / 40) : 2;
        partes.push(primero, valor - primero * 40);
      } else {
        partes.push(valor);
      }
      valor = 0;
    }
  }
  return partes.join('.');
}

/** A non-negative INTEGER that fits in a double (iteration counts, versions). */
export function entero(der: Uint8Array, tlv: Tlv | undefined): number {
  const tlvEntero = esperar(tlv, ETIQUETA.entero);
  if (tlvEntero.fin === tlvEntero.inicio) throw new ErrorDer('entero DER vacío');
  if ((der[tlvEntero.inicio] as number) & 0x80) throw new ErrorDer('entero DER negativo');
  let valor = 0;
  for (let i = tlvEntero.inicio; i < tlvEntero.fin; i++) valor = valor * 256 + (der[i] as number);
  if (!Number.isSafeInteger(valor)) throw new ErrorDer('entero DER demasiado grande');
  return valor;
}

// --- certificates -----------------------------------------------------------------------------

const OID_USO_LLAVE = '2.5.29.15';
const OID_USO_EXTENDIDO = '2.5.29.37';

/** KeyUsage bit names in RFC 5280 order (bit 0 is the most significant bit of the first byte). */
const USOS_LLAVE = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
  'encipherOnly',
  'decipherOnly',
] as const;

export type UsoLlave = (typeof USOS_LLAVE)[number];

export interface ExtensionesUso {
  /** Bits set in KeyUsage; `null` when the certificate has no KeyUsage extension. */
  usosLlave: UsoLlave[] | null;
  /** OIDs in ExtendedKeyUsage; `null` when the certificate has no such extension. */
  usosExtendidos: string[] | null;
}

/** KeyUsage and ExtendedKeyUsage of a DER certificate. */
export function extensionesUso(der: Uint8Array): ExtensionesUso {
  const certificado = esperar(leerTlv(der, 0), ETIQUETA.secuencia);
  const tbs = esperar(hijos(der, certificado)[0], ETIQUETA.secuencia);
  // extensions [3] EXPLICIT is the only context tag 3 in a TBSCertificate.
  const envoltura = hijos(der, tbs).find((t) => t.etiqueta === 0xa3);
  const resultado: ExtensionesUso = { usosLlave: null, usosExtendidos: null };
  if (!envoltura) return resultado;
  const extensiones = esperar(hijos(der, envoltura)[0], ETIQUETA.secuencia);
  for (const extension of hijos(der, extensiones)) {
    const partes = hijos(der, esperar(extension, ETIQUETA.secuencia));
    const id = oid(der, esperar(partes[0], ETIQUETA.oid));
    // extnValue is always last: the optional `critical` BOOLEAN sits between.
    const valor = esperar(partes[partes.length - 1], ETIQUETA.cadenaOctetos);
    if (id === OID_USO_LLAVE) resultado.usosLlave = bitsUsoLlave(der, leerTlv(der, valor.inicio, valor.fin));
    if (id === OID_USO_EXTENDIDO) {
      const secuencia = esperar(leerTlv(der, valor.inicio, valor.fin), ETIQUETA.secuencia);
      resultado.usosExtendidos = hijos(der, secuencia).map((t) => oid(der, esperar(t, ETIQUETA.oid)));
    }
  }
  return resultado;
}

function bitsUsoLlave(der: Uint8Array, tlv: Tlv): UsoLlave[] {
  const bits = esperar(tlv, ETIQUETA.cadenaBits);
  // First content byte = unused bits in the last byte; the flags follow.
  const banderas = der.subarray(bits.inicio + 1, bits.fin);
  return USOS_LLAVE.filter((_, i) => ((banderas[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0);
}

// --- encrypted private keys -------------------------------------------------------------------

const OID_PBES2 = '1.2.840.113549.1.5.13';
const OID_PBKDF2 = '1.2.840.113549.1.5.12';

export type FormaLlave =
  /** EncryptedPrivateKeyInfo; `iteraciones` when the KDF is PBKDF2 or a PKCS#5 v1 / PKCS#12 scheme. */
  | { cifrada: true; iteraciones: number | null }
  /** PrivateKeyInfo without encryption. */
  | { cifrada: false };

/**
 * Tells an EncryptedPrivateKeyInfo from a plain PrivateKeyInfo, and reads the iteration count so a
 * hostile upload cannot pin the event loop with a KDF of billions of rounds. Throws on anything else.
 */
export function formaLlave(der: Uint8Array): FormaLlave {
  const raiz = esperar(leerTlv(der, 0), ETIQUETA.secuencia);
  if (raiz.fin !== der.length) throw new ErrorDer('bytes sobrantes tras la llave');
  const [primero, segundo] = hijos(der, raiz);
  // PrivateKeyInfo starts with INTEGER version; EncryptedPrivateKeyInfo with an AlgorithmIdentifier.
  if (primero?.etiqueta === ETIQUETA.entero) return { cifrada: false };
  const algoritmo = hijos(der, esperar(primero, ETIQUETA.secuencia));
  esperar(segundo, ETIQUETA.cadenaOctetos);
  const id = oid(der, esperar(algoritmo[0], ETIQUETA.oid));
  const parametros = algoritmo[1];
  if (!parametros || parametros.etiqueta !== ETIQUETA.secuencia) return { cifrada: true, iteraciones: null };
  if (id === OID_PBES2) {
    const [kdf] = hijos(der, parametros);
    const [idKdf, parametrosKdf] = hijos(der, esperar(kdf, ETIQUETA.secuencia));
    if (oid(der, esperar(idKdf, ETIQUETA.oid)) !== OID_PBKDF2) return { cifrada: true, iteraciones: null };
    // PBKDF2-params: salt, iterationCount, keyLength?, prf?
    const [, iteraciones] = hijos(der, esperar(parametrosKdf, ETIQUETA.secuencia));
    return { cifrada: true, iteraciones: entero(der, iteraciones) };
  }
  // PKCS#5 v1 and PKCS#12 PBE parameters are both SEQUENCE { salt OCTET STRING, iterations INTEGER }.
  const [sal, iteraciones] = hijos(der, parametros);
  if (sal?.etiqueta === ETIQUETA.cadenaOctetos && iteraciones?.etiqueta === ETIQUETA.entero) {
    return { cifrada: true, iteraciones: entero(der, iteraciones) };
  }
  return { cifrada: true, iteraciones: null };
}
