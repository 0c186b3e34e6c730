import { createHash, randomBytes } from 'node:crypto';

/**
 * The buyer's key of a receipt: 80 random bits as 16 Crockford base32 characters in four groups
 * (`7K3M-Q9XD-2HVA-RT5B`), readable off a printed ticket and typed back on a phone. Crockford's alphabet has no
 * I, L, O or U, and reading it back forgives what people confuse: case, O for 0, I and L for 1, spaces and dashes.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const LARGO = 16;

export function nuevaClaveRecibo(): string {
  // 10 bytes are exactly 16 characters of 5 bits.
  const bytes = randomBytes(10);
  let bits = 0;
  let valor = 0;
  let salida = '';
  for (const b of bytes) {
    valor = ((valor << 8) | b) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      salida += CROCKFORD[(valor >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return salida.match(/.{4}/g)!.join('-');
}

/** The key as typed, in its canonical 16 characters; undefined when it cannot be a key at all. */
export function normalizarClaveRecibo(tecleada: string): string | undefined {
  const limpia = tecleada.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (limpia.length !== LARGO || [...limpia].some((c) => !CROCKFORD.includes(c))) return undefined;
  return limpia;
}

/** What is stored to find a receipt by its key: the SHA-256 of its canonical form, in hex. */
export function hashClaveRecibo(clave: string): string {
  const canonica = normalizarClaveRecibo(clave);
  if (!canonica) throw new Error('clave de recibo con formato inválido');
  return createHash('sha256').update(canonica, 'utf8').digest('hex');
}
