import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

function base32(bytes: Buffer, largo: number): string {
  let bits = 0;
  let valor = 0;
  let salida = '';
  for (const b of bytes) {
    valor = (valor << 8) | b;
    bits += 8;
    while (bits >= 5 && salida.length < largo) {
      salida += CROCKFORD[(valor >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return salida;
}

/**
 * `prefijo_` + 10 chars of milliseconds + 16 random chars (80 bits). Time-ordered so that keyset
 * pagination by id returns creation order.
 */
export function nuevoId(prefijo: string, ahora = Date.now()): string {
  let t = '';
  let ms = ahora;
  for (let i = 0; i < 10; i++) {
    t = CROCKFORD[ms % 32] + t;
    ms = Math.floor(ms / 32);
  }
  return `${prefijo}_${t}${base32(randomBytes(10), 16)}`;
}
