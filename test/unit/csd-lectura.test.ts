import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { abrirLlave, ErrorCsd, leerCertificado } from '../../cfdi/csd';
import { archivoSat, DIRECTORIO_CSD_SAT, manifiestoCsd } from '../support/certificados';

const manifiesto = manifiestoCsd();
const conLlave = manifiesto.filter((f) => f.key !== '');

describe('leerCertificado on every SAT test file', () => {
  it('the manifest lists the whole folder', () => {
    expect(manifiesto.length).toBe(67);
    expect(conLlave.length).toBe(63);
  });

  it.each(manifiesto.map((f) => [f.cer, f] as const))('%s', (_, fila) => {
    const c = leerCertificado(archivoSat(fila.cer));
    expect(c.noCertificado).toBe(fila.noCertificado);
    expect(c.rfc).toBe(fila.rfc);
    expect(c.nombre).toBe(fila.nombre);
    expect(c.validoDesde).toEqual(fila.validoDesde);
    expect(c.validoHasta).toEqual(fila.validoHasta);
    expect(c.sucursal).toBe(fila.sucursal === '' ? null : fila.sucursal);
    // The SAT's own TFD certificates are CSDs too: the SAT seals stamps with a CSD of its own.
    const tipo = fila.tipo === 'FIEL' ? 'fiel' : 'csd';
    expect(c.tipo).toBe(tipo);
    expect(c.esCsd).toBe(tipo === 'csd');
    // Cross-check of the issuer rule against the serial: production serials start with 00001.
    expect(c.emisorEsPrueba).toBe(!fila.noCertificado.startsWith('00001'));
    expect(c.certificadoBase64).toBe(archivoSat(fila.cer).toString('base64'));
    expect(c.certificadoBase64).not.toMatch(/\s/);
    expect(c.x509).toBeInstanceOf(X509Certificate);
  });

  it('reads the CURP of personas físicas and leaves it out for personas morales', () => {
    const fisica = leerCertificado(archivoSat('valid-fiel/CACX7605101P8_FIEL.cer'));
    expect(fisica.curp).toBe('CACX760510MGTSHC04');
    const moral = leerCertificado(archivoSat('valid-csd/EKU9003173C9_CSD_30001000000500003416.cer'));
    expect(moral.curp).toBeUndefined();
    expect(moral.rfc).toBe('EKU9003173C9'); // not "EKU9003173C9 / VADA800927DJ3"
  });

  it('tells CSD and FIEL apart by key usage, extended key usage and OU', () => {
    const csd = leerCertificado(archivoSat('valid-csd/EKU9003173C9_CSD_30001000000500003416.cer'));
    expect(csd.usosLlave).toEqual(['digitalSignature', 'nonRepudiation']);
    expect(csd.usosExtendidos).toEqual([]);
    const fiel = leerCertificado(archivoSat('valid-fiel/FUNK671228PH6_FIEL.cer'));
    expect(fiel.usosLlave).toEqual([
      'digitalSignature',
      'nonRepudiation',
      'dataEncipherment',
      'keyAgreement',
    ]);
    expect(fiel.usosExtendidos).toEqual(['1.3.6.1.5.5.7.3.4', '1.3.6.1.5.5.7.3.2']);
    expect(fiel.sucursal).toBeNull();
  });

  it('names the issuing authority', () => {
    expect(leerCertificado(archivoSat('valid-csd/EKU9003173C9_CSD_30001000000500003416.cer')).emisor).toBe(
      'AC UAT',
    );
    expect(leerCertificado(archivoSat('expired-2021-aaa010101aaa/AAA010101AAA_CSD01.cer')).emisor).toBe(
      'A.C. 2 de pruebas(4096)',
    );
  });

  it('recognizes the real production CSD embedded in a stamped invoice', () => {
    const xml = readFileSync(
      join(DIRECTORIO_CSD_SAT, '..', 'examples', 'signed', 'ingreso-real-stamped-pue-iva16.xml'),
      'utf8',
    );
    const base64 = /\sCertificado="([^"]+)"/.exec(xml)?.[1] ?? '';
    const c = leerCertificado(Buffer.from(base64, 'base64'));
    expect(c).toMatchObject({
      noCertificado: '00001000000510877575',
      rfc: 'ISD950921HE5',
      nombre: 'PASE, SERVICIOS ELECTRONICOS SA DE CV',
      sucursal: 'PASE SERVICIOS ELECTRONICOS SA DE CV',
      esCsd: true,
      emisorEsPrueba: false,
      emisor: 'AUTORIDAD CERTIFICADORA',
    });
    expect(c.certificadoBase64).toBe(base64);
  });

  it('accepts a PEM certificate and still returns the DER in base64', () => {
    const der = archivoSat('valid-csd/EKU9003173C9_CSD_30001000000500003416.cer');
    const pem = Buffer.from(new X509Certificate(der).toString());
    const c = leerCertificado(pem);
    expect(c.noCertificado).toBe('30001000000500003416');
    expect(c.certificadoBase64).toBe(der.toString('base64'));
  });

  it('throws ErrorCsd certificado_ilegible for bytes that are not a certificate', () => {
    for (const bytes of [
      Buffer.from('no soy un certificado'),
      Buffer.alloc(0),
      archivoSat('valid-csd/EKU9003173C9_CSD_30001000000500003416.key'),
      archivoSat('valid-csd/EKU9003173C9_CSD_30001000000500003416.cer').subarray(0, 500),
    ]) {
      let error: unknown;
      try {
        leerCertificado(bytes);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ErrorCsd);
      expect((error as ErrorCsd).violacion).toMatchObject({
        codigo: 'certificado_ilegible',
        parametro: 'cer',
      });
    }
  });
});

describe('abrirLlave on every SAT test key', () => {
  it.each(conLlave.map((f) => [f.key, f] as const))('%s opens and matches its certificate', (_, fila) => {
    const abierta = abrirLlave(archivoSat(fila.key), fila.contrasena);
    if (!abierta.ok) throw new Error(JSON.stringify(abierta.violaciones));
    expect(abierta.llave.asymmetricKeyType).toBe('rsa');
    expect(leerCertificado(archivoSat(fila.cer)).x509.checkPrivateKey(abierta.llave)).toBe(true);
  });
});
