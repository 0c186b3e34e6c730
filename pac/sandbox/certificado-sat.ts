import { createPrivateKey, generateKeyPair, randomInt, X509Certificate, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { leerCertificado } from '../../cfdi/csd';
import { crearCertificadoAutofirmado } from './x509';

/**
 * The sandbox's stand-in for the SAT certificate that signs SelloSAT. Created on first start and kept
 * (certificate and key, one PEM file) under the data folder, so stamps keep verifying across restarts;
 * published at GET /sat/certificado so anyone can check a SelloSAT.
 */
export interface CertificadoSat {
  der: Buffer;
  pem: string;
  /** 20 digits: the TFD's NoCertificadoSAT. */
  noCertificado: string;
  llave: KeyObject;
  x509: X509Certificate;
}

export const ARCHIVO_CERTIFICADO_SAT = 'certificado-sat.pem';
const VIGENCIA_ANIOS = 20;

const generarPar = promisify(generateKeyPair);

export async function cargarOCrearCertificadoSat(carpeta: string): Promise<CertificadoSat> {
  const ruta = join(carpeta, ARCHIVO_CERTIFICADO_SAT);
  try {
    return desdePem(await readFile(ruta, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await mkdir(carpeta, { recursive: true });
  const archivo = await crear();
  // Written aside, then linked into place: link fails if another process won the race, and then its
  // certificate is the one everybody uses.
  const temporal = `${ruta}.${process.pid}.${randomInt(1e9)}`;
  await writeFile(temporal, archivo, { mode: 0o600 });
  try {
    await link(temporal, ruta);
    return desdePem(archivo);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return desdePem(await readFile(ruta, 'utf8'));
  } finally {
    await unlink(temporal).catch(() => undefined);
  }
}

/** The PEM file: the certificate, then its private key (PKCS#8, unencrypted: a test-only key). */
async function crear(): Promise<string> {
  const { publicKey, privateKey } = await generarPar('rsa', { modulusLength: 2048 });
  // Like the SAT's numbers: "3000100000" for test certificates, then ten random digits.
  const noCertificado = `3000100000${String(randomInt(1e9)).padStart(9, '0')}${randomInt(10)}`;
  const desde = new Date(Date.now() - 24 * 3_600_000);
  const hasta = new Date(desde);
  hasta.setUTCFullYear(hasta.getUTCFullYear() + VIGENCIA_ANIOS);
  const der = crearCertificadoAutofirmado({
    nombre: { cn: 'SANDBOX SAT', o: 'SANDBOX SAT', ou: 'PAC SANDBOX DE PRUEBAS', c: 'MX' },
    serie: Buffer.from(noCertificado, 'latin1'),
    desde,
    hasta,
    llavePublica: publicKey,
    llavePrivada: privateKey,
  });
  return `${pemDe(der)}${privateKey.export({ type: 'pkcs8', format: 'pem' }) as string}`;
}

export const pemDe = (der: Buffer): string =>
  `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;

function desdePem(texto: string): CertificadoSat {
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/.exec(texto)?.[0];
  const llavePem = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n?/.exec(texto)?.[0];
  if (!cert || !llavePem) throw new Error('el archivo del certificado SAT del sandbox está incompleto');
  const x509 = new X509Certificate(cert);
  const llave = createPrivateKey(llavePem);
  if (!x509.checkPrivateKey(llave))
    throw new Error('la llave del certificado SAT del sandbox no corresponde');
  return {
    der: x509.raw,
    pem: pemDe(x509.raw),
    noCertificado: leerCertificado(x509.raw).noCertificado,
    llave,
    x509,
  };
}
