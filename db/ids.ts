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

const MAXIMO_AZAR = (1n << 80n) - 1n;
let ultimo = { ms: -1, azar: 0n };

/**
 * `prefijo_` + 10 chars of milliseconds + 16 random chars (80 bits). Time-ordered so that keyset
 * pagination by id returns creation order; within one millisecond the random part of this process's next id
 * counts up from its last one, so ids made in the same millisecond keep their order too.
 */
/** Whether `id` has the shape `nuevoId` gives, with one of these prefixes (an id from a request, before a lookup). */
export const esId = (id: string, prefijos: readonly string[]): boolean =>
  new RegExp(`^(?:${prefijos.join('|')})_[0-9a-z]{26}$`).test(id);

export function nuevoId(prefijo: string, ahora = Date.now()): string {
  let t = '';
  let ms = ahora;
  for (let i = 0; i < 10; i++) {
    t = CROCKFORD[ms % 32] + t;
    ms = Math.floor(ms / 32);
  }
  const azar =
    ahora === ultimo.ms && ultimo.azar < MAXIMO_AZAR
      ? ultimo.azar + 1n
      : BigInt(`0x${randomBytes(10).toString('hex')}`);
  ultimo = { ms: ahora, azar };
  return `${prefijo}_${t}${base32(Buffer.from(azar.toString(16).padStart(20, '0'), 'hex'), 16)}`;
}
