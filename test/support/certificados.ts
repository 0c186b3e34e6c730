import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import { directorioSat } from '../../config/rutas';

/**
 * CSD-like certificates for tests: any RFC, name, validity window, CSD or FIEL shape, issued by an
 * imitation of the SAT's test CA or of a production one. Key pairs come from node:crypto (RSA 2048 in
 * pure JS takes seconds) and are cached by slot; node-forge only assembles and signs the certificate,
 * which node:crypto cannot do.
 */

export const CONTRASENA_PRUEBA = '12345678a';

export interface OpcionesCsdPrueba {
  /** 12 characters = persona moral, 13 = persona física. */
  rfc?: string;
  nombre?: string;
  /** Holder's CURP (física) or the legal representative's (moral). */
  curp?: string;
  /** Personas morales: "RFC / RFC of the representative" as the SAT writes it. */
  rfcRepresentante?: string;
  /** Subject OU; `null` leaves it out (as in a FIEL). Defaults: "Sucursal 1" for a CSD, none for a FIEL. */
  sucursal?: string | null;
  /** FIEL adds dataEncipherment + keyAgreement and ExtendedKeyUsage emailProtection + clientAuth. */
  tipo?: 'csd' | 'fiel';
  emisor?: 'prueba' | 'produccion';
  validoDesde?: Date;
  validoHasta?: Date;
  /** 20 digits; the serial number is their ASCII bytes. A fresh one per certificate by default. */
  noCertificado?: string;
  /** Raw serial in hex, overriding `noCertificado` (to build a serial that is not ASCII digits). */
  serieHex?: string;
  contrasena?: string;
  /** Slot of the cached key pair: certificates with different slots have different keys. */
  llave?: number;
}

export interface CsdPrueba {
  /** DER certificate. */
  cer: Buffer;
  /** PKCS#8 EncryptedPrivateKeyInfo DER (PBES2, PBKDF2, des-ede3-cbc), as the SAT issues them. */
  llave: Buffer;
  contrasena: string;
  noCertificado: string;
  llavePrivada: KeyObject;
}

interface Par {
  privada: KeyObject;
  publica: KeyObject;
}

const pares = new Map<number | string, Par>();
const generados = new Map<string, CsdPrueba>();
let consecutivo = 0;

function par(ranura: number | string): Par {
  let p = pares.get(ranura);
  if (!p) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    p = { privada: privateKey, publica: publicKey };
    pares.set(ranura, p);
  }
  return p;
}

const UTF8 = forge.asn1.Type.UTF8 as unknown as forge.asn1.Class;
const PRINTABLE = forge.asn1.Type.PRINTABLESTRING as unknown as forge.asn1.Class;
const IA5 = forge.asn1.Type.IA5STRING as unknown as forge.asn1.Class;

const OID = {
  cn: '2.5.4.3',
  nombre: '2.5.4.41',
  o: '2.5.4.10',
  ou: '2.5.4.11',
  c: '2.5.4.6',
  correo: '1.2.840.113549.1.9.1',
  rfc: '2.5.4.45',
  serie: '2.5.4.5',
};

const texto = (type: string, value: string): forge.pki.CertificateField => ({
  type,
  value,
  valueTagClass: UTF8,
});

/** Imitations of the SAT authorities' names (see leerCertificado's notes for the real ones). */
const EMISORES: Record<'prueba' | 'produccion', forge.pki.CertificateField[]> = {
  prueba: [
    texto(OID.cn, 'AC UAT'),
    texto(OID.o, 'SERVICIO DE ADMINISTRACION TRIBUTARIA'),
    texto(OID.ou, 'SAT-IES Authority'),
    { type: OID.correo, value: 'oscar.martinez@sat.gob.mx', valueTagClass: IA5 },
    { type: OID.c, value: 'MX', valueTagClass: PRINTABLE },
    { type: OID.rfc, value: '2.5.4.45', valueTagClass: PRINTABLE },
  ],
  produccion: [
    texto(OID.cn, 'AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA'),
    texto(OID.o, 'SERVICIO DE ADMINISTRACION TRIBUTARIA'),
    texto(OID.ou, 'SAT-IES Authority'),
    { type: OID.correo, value: 'serviciosalcontribuyente@sat.gob.mx', valueTagClass: IA5 },
    { type: OID.c, value: 'MX', valueTagClass: PRINTABLE },
    { type: OID.rfc, value: 'SAT970701NN3', valueTagClass: PRINTABLE },
  ],
};

const DIA = 86_400_000;

/** A certificate and its encrypted key; identical options return the cached result. */
export function generarCsd(opciones: OpcionesCsdPrueba = {}): CsdPrueba {
  const clave = JSON.stringify(opciones);
  const cacheado = generados.get(clave);
  if (cacheado) return cacheado;

  const tipo = opciones.tipo ?? 'csd';
  const emisor = opciones.emisor ?? 'prueba';
  const rfc = opciones.rfc ?? 'EKU9003173C9';
  const moral = rfc.length === 12;
  const nombre = opciones.nombre ?? (moral ? 'EMPRESA DE PRUEBA SA DE CV' : 'PERSONA DE PRUEBA');
  const curp = opciones.curp ?? 'VADA800927HSRSRL05';
  const sucursal = opciones.sucursal !== undefined ? opciones.sucursal : tipo === 'csd' ? 'Sucursal 1' : null;
  consecutivo += 1;
  const noCertificado =
    opciones.noCertificado ??
    `${emisor === 'prueba' ? '30001' : '00001'}0000009${String(consecutivo).padStart(8, '0')}`;
  const contrasena = opciones.contrasena ?? CONTRASENA_PRUEBA;
  const ahora = Date.now();
  const titular = par(opciones.llave ?? 0);
  const autoridad = par(`ca-${emisor}`);

  const cert = forge.pki.createCertificate();
  cert.serialNumber = opciones.serieHex ?? Buffer.from(noCertificado, 'latin1').toString('hex');
  cert.validity.notBefore = opciones.validoDesde ?? new Date(ahora - 30 * DIA);
  cert.validity.notAfter = opciones.validoHasta ?? new Date(ahora + 4 * 365 * DIA);
  cert.publicKey = forge.pki.publicKeyFromPem(
    titular.publica.export({ type: 'spki', format: 'pem' }) as string,
  );

  // Same layout the SAT uses: persona moral "RFC / RFC-rep" and " / CURP-rep"; física its own RFC and CURP.
  const sujeto: forge.pki.CertificateField[] = [
    texto(OID.cn, nombre),
    texto(OID.nombre, nombre),
    texto(OID.o, nombre),
  ];
  if (tipo === 'fiel') {
    sujeto.push(
      { type: OID.c, value: 'MX', valueTagClass: PRINTABLE },
      { type: OID.correo, value: 'pruebas@pruebas.gob.mx', valueTagClass: IA5 },
    );
  }
  sujeto.push(
    texto(OID.rfc, moral ? `${rfc} / ${opciones.rfcRepresentante ?? 'VADA800927DJ3'}` : rfc),
    texto(OID.serie, moral ? ` / ${curp}` : curp),
  );
  if (sucursal !== null) sujeto.push(texto(OID.ou, sucursal));
  cert.setSubject(sujeto);
  cert.setIssuer(EMISORES[emisor]);

  const extensiones: object[] = [
    { name: 'basicConstraints', cA: false, critical: true },
    {
      name: 'keyUsage',
      digitalSignature: true,
      nonRepudiation: true,
      ...(tipo === 'fiel' ? { dataEncipherment: true, keyAgreement: true } : {}),
    },
  ];
  if (tipo === 'fiel') extensiones.push({ name: 'extKeyUsage', emailProtection: true, clientAuth: true });
  cert.setExtensions(extensiones);

  const llaveCa = forge.pki.privateKeyFromPem(
    autoridad.privada.export({ type: 'pkcs1', format: 'pem' }) as string,
  ) as forge.pki.rsa.PrivateKey;
  cert.sign(llaveCa, forge.md.sha256.create());

  const resultado: CsdPrueba = {
    cer: Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary'),
    llave: titular.privada.export({
      format: 'der',
      type: 'pkcs8',
      cipher: 'des-ede3-cbc',
      passphrase: contrasena,
    }),
    contrasena,
    noCertificado,
    llavePrivada: titular.privada,
  };
  generados.set(clave, resultado);
  return resultado;
}

// --- the SAT's public test files ----------------------------------------------------------------

// The SAT's files live next to the repository (../shared/sat), as the project's notes describe.
export const DIRECTORIO_CSD_SAT = join(directorioSat(), 'csd');

export interface FilaManifiesto {
  cer: string;
  key: string;
  contrasena: string;
  /** "CSD", "FIEL" or "SAT/PAC-TFD-cert (no key)". */
  tipo: string;
  persona: string;
  rfc: string;
  nombre: string;
  sucursal: string;
  noCertificado: string;
  validoDesde: Date;
  validoHasta: Date;
}

/** MANIFEST.csv of shared/sat/csd (no field there contains a comma). */
export function manifiestoCsd(directorio = DIRECTORIO_CSD_SAT): FilaManifiesto[] {
  const [cabecera, ...filas] = readFileSync(join(directorio, 'MANIFEST.csv'), 'utf8').trim().split(/\r?\n/);
  const columnas = (cabecera ?? '').split(',');
  return filas.map((linea) => {
    const celdas = linea.split(',');
    const valor = (c: string) => celdas[columnas.indexOf(c)] ?? '';
    return {
      cer: valor('cer_file'),
      key: valor('key_file'),
      contrasena: valor('password'),
      tipo: valor('kind'),
      persona: valor('persona'),
      rfc: valor('rfc'),
      nombre: valor('cert_subject_name'),
      sucursal: valor('branch_ou'),
      noCertificado: valor('no_certificado'),
      validoDesde: new Date(valor('valid_from_utc')),
      validoHasta: new Date(valor('valid_to_utc')),
    };
  });
}

/** A file of shared/sat/csd by its path relative to that folder. */
export const archivoSat = (relativo: string): Buffer => readFileSync(join(DIRECTORIO_CSD_SAT, relativo));

/** The valid test CSD every PAC sandbox accepts (EKU9003173C9, 2023-05-18 → 2027-05-18). */
export const CSD_VALIDO = {
  cer: 'valid-csd/EKU9003173C9_CSD_30001000000500003416.cer',
  key: 'valid-csd/EKU9003173C9_CSD_30001000000500003416.key',
  rfc: 'EKU9003173C9',
  noCertificado: '30001000000500003416',
  /** A moment inside its validity, so tests do not depend on the clock. */
  vigente: new Date('2025-06-01T12:00:00Z'),
} as const;
