import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface CostoScrypt {
  N: number;
  r: number;
  p: number;
}

/** scrypt's cost: N = 2^15, r = 8 (32 MiB, ~50 ms here): slow for a guesser, fine for a sign-in. */
export const COSTO_SCRYPT: CostoScrypt = { N: 2 ** 15, r: 8, p: 1 };
const LARGO = 32;

function derivar(contrasena: string, sal: Buffer, o: CostoScrypt): Promise<Buffer> {
  const opciones: ScryptOptions = { ...o, maxmem: 128 * o.N * o.r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(contrasena.normalize('NFKC'), sal, LARGO, opciones, (e, k) => (e ? reject(e) : resolve(k))),
  );
}

/** `scrypt$N$r$p$salt$key` in base64url: the parameters travel with the hash, so they can grow later. */
export async function hashContrasena(contrasena: string, costo = COSTO_SCRYPT): Promise<string> {
  const sal = randomBytes(16);
  const k = await derivar(contrasena, sal, costo);
  const { N, r, p } = costo;
  return ['scrypt', N, r, p, sal.toString('base64url'), k.toString('base64url')].join('$');
}

export async function verificarContrasena(contrasena: string, hash: string): Promise<boolean> {
  const [tipo, N, r, p, sal, clave] = hash.split('$');
  if (tipo !== 'scrypt' || !sal || !clave) return false;
  const esperada = Buffer.from(clave, 'base64url');
  const k = await derivar(contrasena, Buffer.from(sal, 'base64url'), { N: +N!, r: +r!, p: +p! });
  return k.length === esperada.length && timingSafeEqual(k, esperada);
}

/** A one-time password to type once: 20 characters without look-alikes (≈ 110 bits). */
export function contrasenaTemporal(): string {
  const alfabeto = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  let s = '';
  // 220 = 4 × 55: rejection sampling keeps every character uniform.
  while (s.length < 20) for (const b of randomBytes(24)) if (b < 220 && s.length < 20) s += alfabeto[b % 55];
  return s;
}
