import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { Violacion } from '../reglas/tipos';
import { formaLlave, type FormaLlave } from './der';
import { CODIGOS_CSD, violacionCsd } from './tipos';

/**
 * Upper bound on the key-derivation rounds of an uploaded `.key`. SAT files use 2,048; OWASP's
 * PBKDF2-SHA256 advice is 600,000. Decryption runs on the request thread, so an unbounded count
 * would let one upload stall the API.
 */
export const MAX_ITERACIONES_LLAVE = 1_000_000;

export type LlaveAbierta = { ok: true; llave: KeyObject } | { ok: false; violaciones: Violacion[] };

/**
 * Opens a `.key` (PKCS#8 DER, normally encrypted with PBES2 as the SAT issues them; PEM accepted).
 * Never throws for bad input and never echoes OpenSSL's error, the bytes or the password.
 */
export function abrirLlave(der: Buffer, contrasena: string): LlaveAbierta {
  const bytes = desdePem(der);
  let forma: FormaLlave;
  try {
    forma = formaLlave(bytes);
  } catch {
    return fallo(
      CODIGOS_CSD.llaveIlegible,
      'El archivo .key no es una llave privada PKCS#8 legible: se espera el archivo .key que entrega el SAT junto con el .cer.',
      'llave',
    );
  }
  if (forma.cifrada && forma.iteraciones !== null && forma.iteraciones > MAX_ITERACIONES_LLAVE) {
    return fallo(
      CODIGOS_CSD.llaveIlegible,
      `La llave privada pide ${forma.iteraciones} iteraciones para derivar su clave; el máximo aceptado es ${MAX_ITERACIONES_LLAVE}.`,
      'llave',
    );
  }
  let llave: KeyObject;
  try {
    llave = createPrivateKey({ key: bytes, format: 'der', type: 'pkcs8', passphrase: contrasena });
  } catch {
    // The structure was a well-formed encrypted key, so a failure means the password does not open it
    // (a corrupted ciphertext looks the same to CBC padding: both say "bad decrypt").
    return forma.cifrada
      ? fallo(CODIGOS_CSD.contrasenaIncorrecta, 'La contraseña no abre la llave privada.', 'contrasena')
      : fallo(CODIGOS_CSD.llaveIlegible, 'El archivo .key no contiene una llave privada legible.', 'llave');
  }
  // The CFDI seal is RSA PKCS#1 v1.5 with SHA-256: any other key type could never seal.
  if (llave.asymmetricKeyType !== 'rsa') {
    return fallo(
      CODIGOS_CSD.llaveIlegible,
      'La llave privada no es RSA; los certificados de sello digital del SAT usan llaves RSA.',
      'llave',
    );
  }
  return { ok: true, llave };
}

const fallo = (...args: Parameters<typeof violacionCsd>): LlaveAbierta => ({
  ok: false,
  violaciones: [violacionCsd(...args)],
});

/** A PEM key becomes DER; anything else is returned untouched. */
function desdePem(bytes: Buffer): Buffer {
  if (bytes.subarray(0, 11).toString('latin1') !== '-----BEGIN ') return bytes;
  const m = /^-----BEGIN ([A-Z ]+)-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END \1-----\s*$/.exec(
    bytes.toString('latin1'),
  );
  return m ? Buffer.from((m[2] as string).replace(/\s+/g, ''), 'base64') : bytes;
}
