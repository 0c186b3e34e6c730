import { sign, type KeyObject } from 'node:crypto';

/**
 * A minimal DER writer for one self-signed X.509 v3 certificate. node:crypto reads certificates but
 * cannot create them, and node-forge is only a development dependency (the production image leaves it
 * out), so the sandbox builds its "SAT" certificate by hand: about the size of the reader in
 * cfdi/csd/der.ts. RFC 5280 structure, RSA key, sha256WithRSAEncryption.
 */

function largo(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export const tlv = (etiqueta: number, contenido: Buffer): Buffer =>
  Buffer.concat([Buffer.from([etiqueta]), largo(contenido.length), contenido]);

export const secuencia = (...partes: Buffer[]) => tlv(0x30, Buffer.concat(partes));
const conjunto = (...partes: Buffer[]) => tlv(0x31, Buffer.concat(partes));
const nulo = () => Buffer.from([0x05, 0x00]);
const booleano = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
const cadenaOctetos = (b: Buffer) => tlv(0x04, b);
const cadenaBits = (b: Buffer, sinUsar = 0) => tlv(0x03, Buffer.concat([Buffer.from([sinUsar]), b]));
const utf8 = (t: string) => tlv(0x0c, Buffer.from(t, 'utf8'));
const imprimible = (t: string) => tlv(0x13, Buffer.from(t, 'latin1'));
const explicito = (n: number, contenido: Buffer) => tlv(0xa0 | n, contenido);

/** A non-negative INTEGER from its big-endian magnitude (a leading zero keeps it positive). */
export function entero(magnitud: Buffer): Buffer {
  let i = 0;
  while (i < magnitud.length - 1 && magnitud[i] === 0) i++;
  const b = magnitud.subarray(i);
  return tlv(0x02, (b[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

export function oid(punteado: string): Buffer {
  const arcos = punteado.split('.').map(Number);
  const [a = 0, b = 0, ...resto] = arcos;
  const bytes: number[] = [];
  for (const arco of [a * 40 + b, ...resto]) {
    const grupo: number[] = [arco & 0x7f];
    for (let v = Math.floor(arco / 128); v > 0; v = Math.floor(v / 128)) grupo.unshift(0x80 | (v & 0x7f));
    bytes.push(...grupo);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5), always in Z and to the second. */
function tiempo(d: Date): Buffer {
  const iso = d.toISOString();
  const digitos = iso.slice(0, 19).replace(/[-:T]/g, '');
  return d.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${digitos.slice(2)}Z`, 'latin1'))
    : tlv(0x18, Buffer.from(`${digitos}Z`, 'latin1'));
}

const OID = {
  cn: '2.5.4.3',
  o: '2.5.4.10',
  ou: '2.5.4.11',
  c: '2.5.4.6',
  sha256ConRsa: '1.2.840.113549.1.1.11',
  restriccionesBasicas: '2.5.29.19',
  usoLlave: '2.5.29.15',
};

export interface NombreX509 {
  cn: string;
  o?: string;
  ou?: string;
  /** Two-letter country code (PrintableString). */
  c?: string;
}

function nombre(n: NombreX509): Buffer {
  const rdn = (tipo: string, valor: Buffer) => conjunto(secuencia(oid(tipo), valor));
  const partes: Buffer[] = [];
  if (n.c) partes.push(rdn(OID.c, imprimible(n.c)));
  if (n.o) partes.push(rdn(OID.o, utf8(n.o)));
  if (n.ou) partes.push(rdn(OID.ou, utf8(n.ou)));
  partes.push(rdn(OID.cn, utf8(n.cn)));
  return secuencia(...partes);
}

export interface DatosCertificado {
  /** Issuer and subject (self-signed). */
  nombre: NombreX509;
  /** Serial number bytes: the SAT writes 20 ASCII digits, so "30001…" becomes 0x33 0x30 0x30… */
  serie: Buffer;
  desde: Date;
  hasta: Date;
  llavePublica: KeyObject;
  llavePrivada: KeyObject;
}

/** DER of a self-signed v3 certificate: basicConstraints CA:false, keyUsage digitalSignature+nonRepudiation. */
export function crearCertificadoAutofirmado(d: DatosCertificado): Buffer {
  const algoritmo = secuencia(oid(OID.sha256ConRsa), nulo());
  const spki = d.llavePublica.export({ type: 'spki', format: 'der' });
  const extensiones = explicito(
    3,
    secuencia(
      secuencia(oid(OID.restriccionesBasicas), booleano(true), cadenaOctetos(secuencia())),
      // Bits 0 and 1 (digitalSignature, nonRepudiation): 0b11000000 with 6 unused bits.
      secuencia(oid(OID.usoLlave), booleano(true), cadenaOctetos(cadenaBits(Buffer.from([0xc0]), 6))),
    ),
  );
  const tbs = secuencia(
    explicito(0, entero(Buffer.from([2]))),
    entero(d.serie),
    algoritmo,
    nombre(d.nombre),
    secuencia(tiempo(d.desde), tiempo(d.hasta)),
    nombre(d.nombre),
    spki,
    extensiones,
  );
  const firma = sign('sha256', tbs, d.llavePrivada);
  return secuencia(tbs, algoritmo, cadenaBits(firma));
}
