import { constants, KeyObject, sign, verify, X509Certificate } from 'node:crypto';

/**
 * Sello digital (Anexo 20): RSA PKCS#1 v1.5 with SHA-256 over the UTF-8 bytes of the cadena original,
 * in base64 on a single line. The same scheme signs the TFD (SelloSAT).
 */
export function sellar(cadena: string, llave: KeyObject): string {
  if (llave.type !== 'private' || llave.asymmetricKeyType !== 'rsa') {
    // Any other key would still sign (ECDSA, PSS) and produce a seal the SAT cannot verify.
    throw new Error('El sello requiere una llave privada RSA');
  }
  return sign('sha256', Buffer.from(cadena, 'utf8'), {
    key: llave,
    padding: constants.RSA_PKCS1_PADDING,
  }).toString('base64');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** True when `sello` is the seal of `cadena` by the holder of `certificado` (or of that public key). */
export function verificarSello(
  cadena: string,
  sello: string,
  certificado: X509Certificate | KeyObject,
): boolean {
  const llave = certificado instanceof X509Certificate ? certificado.publicKey : certificado;
  if (llave.asymmetricKeyType !== 'rsa' || sello.length === 0 || !BASE64.test(sello)) return false;
  return verify(
    'sha256',
    Buffer.from(cadena, 'utf8'),
    { key: llave, padding: constants.RSA_PKCS1_PADDING },
    Buffer.from(sello, 'base64'),
  );
}
