import { createHash, randomBytes } from 'node:crypto';
import type { Modo } from '../dominio/alcance';

export interface LlaveNueva {
  secreto: string;
  prefijo: string;
  hash: Buffer;
}

const PATRON = /^sk_(test|live)_[A-Za-z0-9]{40}$/;
const ALFABETO = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function hashLlave(secreto: string): Buffer {
  return createHash('sha256').update(secreto, 'utf8').digest();
}

/** 40 base62 characters ≈ 238 bits of entropy; only the hash is ever stored. */
export function generarLlave(modo: Modo): LlaveNueva {
  const azar = randomBytes(40);
  let cuerpo = '';
  // 248 = 4 × 62: rejection sampling keeps every character uniform.
  for (let i = 0; cuerpo.length < 40; i++) {
    const b = i < azar.length ? azar[i]! : randomBytes(1)[0]!;
    if (b < 248) cuerpo += ALFABETO[b % 62];
  }
  const secreto = `sk_${modo}_${cuerpo}`;
  return { secreto, prefijo: secreto.slice(0, 12), hash: hashLlave(secreto) };
}

export function modoDeLlave(secreto: string): Modo | null {
  const m = PATRON.exec(secreto);
  return m ? (m[1] as Modo) : null;
}
