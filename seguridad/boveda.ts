import type { Modo } from '../dominio/alcance';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Envelope encryption of secrets at rest (a CSD's `.key` bytes and password).
 *
 * - Each record gets a random 32-byte data key (DEK). Every secret field is encrypted with the DEK
 *   using AES-256-GCM, a fresh 12-byte IV and AAD `cuentaId|modo|registroId|campo|v1`, so a
 *   ciphertext only opens in the row and column it was written for.
 * - The DEK is encrypted (wrapped) with the master key (KEK, `config.claveMaestra`), also AES-256-GCM,
 *   with AAD `cuentaId|modo|registroId|dek|k<version>|v1`. The KEK version is stored beside the row
 *   (`certificados.version_clave`); rotating the KEK only re-wraps DEKs (`reenvolver`).
 *
 * Stored format of every ciphertext (each field and the wrapped DEK), one Buffer:
 *
 *     byte 0       format version (1; the "v1" in the AAD)
 *     bytes 1-12   IV (12 bytes, random per encryption)
 *     bytes 13-28  GCM authentication tag (16 bytes)
 *     bytes 29-    ciphertext (same length as the plaintext)
 *
 * Any change to any byte, a ciphertext moved to another row, field, account or mode, or the wrong
 * master key all fail GCM authentication and throw `ErrorBoveda`: never garbage plaintext.
 */

export type ModoBoveda = Modo;

/** The row a secret belongs to; bound into every ciphertext. */
export interface ContextoBoveda {
  cuentaId: string;
  modo: ModoBoveda;
  registroId: string;
}

export interface Sellado {
  dekCifrada: Buffer;
  campos: Record<string, Buffer>;
  /** Master-key version that wrapped the DEK. */
  version: number;
}

export interface Boveda {
  /** Current master-key version: rows with another one should be re-wrapped. */
  readonly version: number;
  sellar(contexto: ContextoBoveda, campos: Record<string, Buffer>): Sellado;
  abrir(
    contexto: ContextoBoveda,
    dekCifrada: Buffer,
    campos: Record<string, Buffer>,
    version: number,
  ): Record<string, Buffer>;
  /** Re-wraps a DEK with the current master key; the field ciphertexts stay as they are. */
  reenvolver(
    contexto: ContextoBoveda,
    dekCifrada: Buffer,
    version: number,
  ): { dekCifrada: Buffer; version: number };
}

export interface OpcionesBoveda {
  clave: Buffer;
  version: number;
  /** Earlier master keys by version, kept readable during a rotation. */
  anteriores?: ReadonlyMap<number, Buffer>;
}

export type MotivoErrorBoveda = 'formato_invalido' | 'version_desconocida' | 'no_autentica';

/** Never carries key material or plaintext: only what failed, and which field. */
export class ErrorBoveda extends Error {
  constructor(
    readonly motivo: MotivoErrorBoveda,
    mensaje: string,
  ) {
    super(mensaje);
    this.name = 'ErrorBoveda';
  }
}

const FORMATO = 1;
const LARGO_CLAVE = 32;
const LARGO_IV = 12;
const LARGO_ETIQUETA = 16;
const CABECERA = 1 + LARGO_IV + LARGO_ETIQUETA;
const ALGORITMO = 'aes-256-gcm';
// Identifiers become AAD segments joined by '|': they must not contain it, or two contexts could collide.
const SEGMENTO = /^[^|]+$/;
const CAMPO = /^[a-z][a-z0-9_]*$/;

export function crearBoveda(opciones: OpcionesBoveda): Boveda {
  const claves = new Map<number, Buffer>();
  for (const [version, clave] of opciones.anteriores ?? [])
    claves.set(validarVersion(version), copiarClave(clave));
  const version = validarVersion(opciones.version);
  const anterior = claves.get(version);
  if (anterior && !anterior.equals(opciones.clave)) {
    throw new Error(`La versión ${version} de la clave maestra aparece con dos claves distintas.`);
  }
  claves.set(version, copiarClave(opciones.clave));

  const kek = (v: number): Buffer => {
    const clave = claves.get(v);
    if (!clave) {
      throw new ErrorBoveda('version_desconocida', `No hay clave maestra con la versión ${v}.`);
    }
    return clave;
  };

  const abrirDek = (contexto: ContextoBoveda, dekCifrada: Buffer, v: number): Buffer => {
    const dek = descifrar(kek(v), dekCifrada, aadDek(contexto, v), 'dek');
    if (dek.length !== LARGO_CLAVE) throw new ErrorBoveda('formato_invalido', 'La DEK no mide 32 bytes.');
    return dek;
  };

  return {
    version,

    sellar(contexto, campos) {
      validarContexto(contexto);
      const dek = randomBytes(LARGO_CLAVE);
      try {
        const cifrados: Record<string, Buffer> = {};
        for (const [campo, valor] of Object.entries(campos)) {
          cifrados[campo] = cifrar(dek, valor, aadCampo(contexto, campo));
        }
        return {
          dekCifrada: cifrar(kek(version), dek, aadDek(contexto, version)),
          campos: cifrados,
          version,
        };
      } finally {
        dek.fill(0);
      }
    },

    abrir(contexto, dekCifrada, campos, v) {
      validarContexto(contexto);
      const dek = abrirDek(contexto, dekCifrada, v);
      try {
        const claros: Record<string, Buffer> = {};
        for (const [campo, cifrado] of Object.entries(campos)) {
          claros[campo] = descifrar(dek, cifrado, aadCampo(contexto, campo), campo);
        }
        return claros;
      } finally {
        dek.fill(0);
      }
    },

    reenvolver(contexto, dekCifrada, v) {
      validarContexto(contexto);
      const dek = abrirDek(contexto, dekCifrada, v);
      try {
        return { dekCifrada: cifrar(kek(version), dek, aadDek(contexto, version)), version };
      } finally {
        dek.fill(0);
      }
    },
  };
}

function cifrar(clave: Buffer, claro: Buffer, aad: Buffer): Buffer {
  const iv = randomBytes(LARGO_IV);
  const cifrador = createCipheriv(ALGORITMO, clave, iv, { authTagLength: LARGO_ETIQUETA });
  cifrador.setAAD(aad);
  const cuerpo = Buffer.concat([cifrador.update(claro), cifrador.final()]);
  return Buffer.concat([Buffer.of(FORMATO), iv, cifrador.getAuthTag(), cuerpo]);
}

function descifrar(clave: Buffer, cifrado: Buffer, aad: Buffer, campo: string): Buffer {
  if (!Buffer.isBuffer(cifrado) || cifrado.length < CABECERA) {
    throw new ErrorBoveda('formato_invalido', `El cifrado de "${campo}" está truncado.`);
  }
  if (cifrado[0] !== FORMATO) {
    throw new ErrorBoveda('formato_invalido', `El cifrado de "${campo}" tiene un formato desconocido.`);
  }
  const iv = cifrado.subarray(1, 1 + LARGO_IV);
  const etiqueta = cifrado.subarray(1 + LARGO_IV, CABECERA);
  // authTagLength pins the tag size: GCM would otherwise accept a truncated tag.
  const descifrador = createDecipheriv(ALGORITMO, clave, iv, { authTagLength: LARGO_ETIQUETA });
  descifrador.setAAD(aad);
  descifrador.setAuthTag(etiqueta);
  const cuerpo = descifrador.update(cifrado.subarray(CABECERA));
  try {
    return Buffer.concat([cuerpo, descifrador.final()]);
  } catch {
    cuerpo.fill(0);
    throw new ErrorBoveda(
      'no_autentica',
      `No se pudo descifrar "${campo}": el cifrado fue alterado, pertenece a otro registro o la clave maestra no es la correcta.`,
    );
  }
}

const aadCampo = (c: ContextoBoveda, campo: string): Buffer => {
  if (!CAMPO.test(campo)) throw new Error(`Nombre de campo inválido para la bóveda: "${campo}".`);
  return Buffer.from(`${c.cuentaId}|${c.modo}|${c.registroId}|${campo}|v${FORMATO}`, 'utf8');
};

// Six segments against the fields' five: a field can never produce the DEK's AAD.
const aadDek = (c: ContextoBoveda, version: number): Buffer =>
  Buffer.from(`${c.cuentaId}|${c.modo}|${c.registroId}|dek|k${version}|v${FORMATO}`, 'utf8');

function validarContexto(c: ContextoBoveda): void {
  if (
    !SEGMENTO.test(c.cuentaId) ||
    !SEGMENTO.test(c.registroId) ||
    (c.modo !== 'test' && c.modo !== 'live')
  ) {
    throw new Error(
      'Contexto de bóveda inválido: cuentaId y registroId no vacíos y sin "|", modo test o live.',
    );
  }
}

function validarVersion(version: number): number {
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new Error(`Versión de clave maestra inválida: ${version}.`);
  }
  return version;
}

function copiarClave(clave: Buffer): Buffer {
  if (!Buffer.isBuffer(clave) || clave.length !== LARGO_CLAVE) {
    throw new Error('La clave maestra debe medir 32 bytes.');
  }
  // A private copy: the caller zeroing or reusing its Buffer cannot change the vault's key.
  return Buffer.from(clave);
}

/**
 * The vault of a process that must never decrypt (the PDF worker, WORKER_COLAS=pdf): it is not given the master
 * key, and any use is a wiring bug, reported as such instead of running with a wrong key.
 */
export function bovedaSinClave(motivo: string): Boveda {
  const negar = (): never => {
    throw new Error(`Este proceso no tiene la clave maestra: ${motivo}`);
  };
  return { version: 0, sellar: negar, abrir: negar, reenvolver: negar };
}
