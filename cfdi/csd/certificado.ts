import { X509Certificate } from 'node:crypto';
import { ErrorDer, extensionesUso, type UsoLlave } from './der';
import { CODIGOS_CSD, ErrorCsd, violacionCsd } from './tipos';

export type TipoCertificado = 'csd' | 'fiel' | 'otro';

/** What a `.cer` says about its holder, read without any I/O. */
export interface CertificadoCsd {
  /** The serial number's bytes read as ASCII: 20 digits for every SAT certificate (hex otherwise). */
  noCertificado: string;
  /** Holder's RFC (the first one when the certificate carries "RFC / RFC of the legal representative"). */
  rfc: string;
  /** Holder's legal name; for personas morales it includes the capital regime ("… SA DE CV"). */
  nombre: string;
  /** Holder's CURP (personas físicas only: a company's certificate carries its representative's). */
  curp?: string;
  /** Branch name (subject OU): present in CSDs, absent in e.firma (FIEL) certificates. */
  sucursal: string | null;
  validoDesde: Date;
  validoHasta: Date;
  /** KeyUsage exactly digitalSignature + nonRepudiation, no ExtendedKeyUsage, and an OU. */
  esCsd: boolean;
  tipo: TipoCertificado;
  /** Issued by one of the SAT's test certification authorities ("AC UAT", "A.C. 2 de pruebas(4096)"). */
  emisorEsPrueba: boolean;
  /** Common name of the issuing authority, for messages. */
  emisor: string;
  usosLlave: UsoLlave[];
  /** ExtendedKeyUsage OIDs; empty when the extension is absent. */
  usosExtendidos: string[];
  /** DER in base64 on one line: the CFDI `Certificado` attribute. */
  certificadoBase64: string;
  x509: X509Certificate;
}

const OID_PROTECCION_CORREO = '1.3.6.1.5.5.7.3.4';
const OID_AUTENTICACION_CLIENTE = '1.3.6.1.5.5.7.3.2';

/**
 * Reads a `.cer` (DER; PEM is accepted too since OpenSSL sniffs it). Throws `ErrorCsd` with
 * `certificado_ilegible` when the bytes are not an X.509 certificate.
 */
export function leerCertificado(der: Buffer): CertificadoCsd {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(der);
  } catch {
    throw ilegible();
  }
  // `raw` is always DER, even when a PEM was given.
  const bytes = x509.raw;
  let usos;
  try {
    usos = extensionesUso(bytes);
  } catch (e) {
    if (e instanceof ErrorDer) throw ilegible();
    throw e;
  }
  const { subject, issuer } = x509.toLegacyObject() as unknown as {
    subject: NombreDistinguido;
    issuer: NombreDistinguido;
  };

  const sucursal = atributo(subject, 'OU') || null;
  const usosLlave = usos.usosLlave ?? [];
  const usosExtendidos = usos.usosExtendidos ?? [];
  const esCsd =
    usosLlave.length === 2 &&
    usosLlave.includes('digitalSignature') &&
    usosLlave.includes('nonRepudiation') &&
    usos.usosExtendidos === null &&
    sucursal !== null;
  const esFiel =
    !esCsd &&
    sucursal === null &&
    (usosExtendidos.includes(OID_PROTECCION_CORREO) || usosExtendidos.includes(OID_AUTENTICACION_CLIENTE));
  const curp = primeraParte(atributo(subject, 'serialNumber'));

  return {
    noCertificado: noCertificado(x509.serialNumber),
    // x500UniqueIdentifier (OID 2.5.4.45) holds "RFC" or "RFC / RFC of the legal representative".
    rfc: primeraParte(atributo(subject, 'x500UniqueIdentifier')) ?? '',
    // name (2.5.4.41) is what the SAT fills with the legal name; O and CN repeat it.
    nombre: atributo(subject, 'name') || atributo(subject, 'O') || atributo(subject, 'CN') || '',
    ...(curp ? { curp } : {}),
    sucursal,
    validoDesde: fechaOpenSsl(x509.validFrom),
    validoHasta: fechaOpenSsl(x509.validTo),
    esCsd,
    tipo: esCsd ? 'csd' : esFiel ? 'fiel' : 'otro',
    emisorEsPrueba: esEmisorDePruebas(issuer),
    emisor: atributo(issuer, 'CN') || atributo(issuer, 'O') || '',
    usosLlave,
    usosExtendidos,
    certificadoBase64: bytes.toString('base64'),
    x509,
  };
}

/**
 * The SAT's test CAs, seen on every test certificate in shared/sat/csd: "AC UAT" (2019 and 2023 sets,
 * which also carries the literal placeholder "2.5.4.45" as its RFC) and "A.C. 2 de pruebas(4096)"
 * (2017 set, mail at pruebas.sat.gob.mx). The production CAs are "AUTORIDAD CERTIFICADORA",
 * "AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA" and "A.C. del Servicio de Administración Tributaria",
 * all with RFC SAT970701NN3. The chain is not verified here (no SAT roots are shipped): a forged
 * certificate with a production-looking issuer passes this check and is refused by the PAC instead.
 */
export function esEmisorDePruebas(emisor: NombreDistinguido): boolean {
  const nombres = ['CN', 'O', 'OU'].map((k) => atributo(emisor, k));
  const correo = atributo(emisor, 'emailAddress');
  return (
    nombres.some((n) => /\bUAT\b/i.test(n) || /\bpruebas?\b/i.test(n)) ||
    /@pruebas\./i.test(correo) ||
    atributo(emisor, 'x500UniqueIdentifier') === '2.5.4.45'
  );
}

/** Subject or issuer as `toLegacyObject()` returns it: repeated attributes become arrays. */
export type NombreDistinguido = Record<string, string | string[] | undefined>;

function atributo(nombre: NombreDistinguido, clave: string): string {
  const valor = nombre[clave];
  return (Array.isArray(valor) ? valor[0] : valor)?.trim() ?? '';
}

/** "A / B" → "A"; an empty first part (" / CURP of the representative") → undefined. */
function primeraParte(valor: string): string | undefined {
  return valor.split('/')[0]?.trim() || undefined;
}

function noCertificado(serialHex: string): string {
  const hex = serialHex.length % 2 ? `0${serialHex}` : serialHex;
  const bytes = Buffer.from(hex, 'hex');
  // SAT serials are ASCII digits; for anything else keep the hex so the value stays printable.
  return bytes.length > 0 && bytes.every((b) => b >= 0x30 && b <= 0x39)
    ? bytes.toString('latin1')
    : hex.toUpperCase();
}

const MESES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** OpenSSL's "May  9 18:05:49 2023 GMT" (Node 20 has no Date getters for the validity). */
function fechaOpenSsl(texto: string): Date {
  const m = /^([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4}) GMT$/.exec(texto);
  const mes = m ? MESES.indexOf(m[1] as string) : -1;
  if (!m || mes < 0) throw ilegible();
  const [, , dia, hora, minuto, segundo, anio] = m.map(Number) as number[];
  return new Date(Date.UTC(anio as number, mes, dia, hora, minuto, segundo));
}

const ilegible = () =>
  new ErrorCsd(
    violacionCsd(
      CODIGOS_CSD.certificadoIlegible,
      'El archivo .cer no es un certificado X.509 legible: se espera el archivo .cer que entrega el SAT.',
      'cer',
    ),
  );
