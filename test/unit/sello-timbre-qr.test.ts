import {
  constants,
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  publicDecrypt,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cadenaOriginal, cadenaTfd } from '../../cfdi/cadena';
import { totalEnExpresion, urlVerificacion, urlVerificacionDe } from '../../cfdi/qr';
import { sellar, verificarSello } from '../../cfdi/sello';
import {
  construirTimbre,
  extraerTimbre,
  insertarTimbre,
  verificarTimbre,
  type DatosTimbre,
} from '../../cfdi/timbre';
import { nodo, type Nodo } from '../../cfdi/xml/nodo';
import { parsear } from '../../cfdi/xml/parsear';
import { serializar } from '../../cfdi/xml/serializar';
import {
  cadenaPorXslt,
  cadenaTfdDeComprobantePorXslt,
  directorioTemporal,
  DIRECTORIO_EJEMPLOS,
  DIRECTORIO_SAT,
  validarConEsquema,
  xsltprocArchivo,
} from '../support/xslt';

const CSD = join(DIRECTORIO_SAT, 'csd');
const ejemplo = (ruta: string): Nodo => parsear(readFileSync(join(DIRECTORIO_EJEMPLOS, ruta), 'utf8'));

/** The valid test CSD (EKU9003173C9) as MANIFEST.csv describes it (no field there contains a comma). */
function csdValido(): { llave: KeyObject; certificado: X509Certificate; der: Buffer; noCertificado: string } {
  const [encabezado, ...filas] = readFileSync(join(CSD, 'MANIFEST.csv'), 'utf8').trim().split('\n');
  const columnas = (encabezado as string).split(',');
  const registros = filas.map((f) => Object.fromEntries(f.split(',').map((v, k) => [columnas[k], v])));
  const fila = registros.find((r) => r['cer_file']?.startsWith('valid-csd/') && r['kind'] === 'CSD');
  if (!fila) throw new Error('MANIFEST.csv sin CSD válido');
  const der = readFileSync(join(CSD, fila['cer_file'] as string));
  const llave = createPrivateKey({
    key: readFileSync(join(CSD, fila['key_file'] as string)),
    format: 'der',
    type: 'pkcs8',
    passphrase: fila['password'] as string,
  });
  return {
    llave,
    certificado: new X509Certificate(der),
    der,
    noCertificado: fila['no_certificado'] as string,
  };
}

const csd = csdValido();
const otraLlave = generateKeyPairSync('rsa', { modulusLength: 2048 });

describe('sello', () => {
  const cadena = cadenaOriginal(ejemplo('signed/ingreso-sandbox-stamped-descuento.xml'));

  it('sellar es RSA PKCS#1 v1.5 con SHA-256 sobre los bytes UTF-8, en base64 de una línea', () => {
    const sello = sellar(cadena, csd.llave);
    expect(sello).toMatch(/^[A-Za-z0-9+/]{342}==$/);
    // Undoing the RSA operation leaves the DigestInfo of SHA-256 over the UTF-8 bytes.
    const digestInfo = publicDecrypt(
      { key: csd.certificado.publicKey, padding: constants.RSA_PKCS1_PADDING },
      Buffer.from(sello, 'base64'),
    );
    const sha256 = createHash('sha256').update(Buffer.from(cadena, 'utf8')).digest();
    expect(digestInfo.toString('hex')).toBe(
      `3031300d060960864801650304020105000420${sha256.toString('hex')}`,
    );
    expect(Buffer.byteLength(cadena, 'utf8')).toBeGreaterThan(cadena.length); // non-ASCII inside: UTF-8 matters
  });

  it('reproduce byte a byte los Sello de los ejemplos firmados con el mismo CSD', () => {
    const firmados = [
      'signed/ingreso-sandbox-stamped-descuento.xml',
      'signed/ingreso-usd-descuentos-signed-eku.xml',
      'signed/pago20-signed-eku.xml',
    ];
    for (const ruta of firmados) {
      const comprobante = ejemplo(ruta);
      expect(comprobante.atributos['NoCertificado']).toBe(csd.noCertificado);
      expect([ruta, sellar(cadenaOriginal(comprobante), csd.llave)]).toEqual([
        ruta,
        comprobante.atributos['Sello'],
      ]);
    }
  });

  it('verificarSello: verdadero con el certificado o su llave pública, falso con cualquier alteración', () => {
    const sello = sellar(cadena, csd.llave);
    expect(verificarSello(cadena, sello, csd.certificado)).toBe(true);
    expect(verificarSello(cadena, sello, csd.certificado.publicKey)).toBe(true);
    expect(verificarSello(cadena.replace('3327.01', '3327.02'), sello, csd.certificado)).toBe(false);
    expect(verificarSello(`${cadena} `, sello, csd.certificado)).toBe(false);
    const alterado = (sello.startsWith('A') ? 'B' : 'A') + sello.slice(1);
    expect(verificarSello(cadena, alterado, csd.certificado)).toBe(false);
    expect(verificarSello(cadena, sellar(cadena, otraLlave.privateKey), csd.certificado)).toBe(false);
    expect(verificarSello(cadena, sello, otraLlave.publicKey)).toBe(false);
    for (const basura of ['', 'no es base64!', sello.slice(0, -2), `${sello}\n`]) {
      expect(verificarSello(cadena, basura, csd.certificado)).toBe(false);
    }
  });

  it('sellar rechaza llaves que no son privadas RSA', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    expect(() => sellar(cadena, ec.privateKey)).toThrow(/llave privada RSA/);
    expect(() => sellar(cadena, csd.certificado.publicKey)).toThrow(/llave privada RSA/);
    expect(verificarSello(cadena, sellar(cadena, csd.llave), ec.publicKey)).toBe(false);
  });
});

describe('de punta a punta: sellar, timbrar y comprobar contra xsltproc y xmllint', () => {
  const temporal = directorioTemporal('cfdi-sello-timbre-');
  afterAll(() => temporal.borrar());

  // An unsigned example, signed here with the valid CSD.
  const base = ejemplo('unsigned-structure-gobl/invoice-b2b-full.xml');
  base.atributos['NoCertificado'] = csd.noCertificado;
  base.atributos['Certificado'] = csd.der.toString('base64');
  const cadena = cadenaOriginal(base);
  base.atributos['Sello'] = sellar(cadena, csd.llave);

  const datos: DatosTimbre = {
    uuid: '5FB2822E-396D-4725-8521-CDC4BDD20CCF',
    fechaTimbrado: '2025-03-01T10:11:12',
    rfcProvCertif: 'SPR190613I52',
    selloCfd: base.atributos['Sello'],
    noCertificadoSat: csd.noCertificado,
  };
  // The sandbox stamps with a certificate of its own; the test CSD stands in for it.
  const firmarComoPac = (c: string): string => sellar(c, csd.llave);
  const tfd = construirTimbre(datos, firmarComoPac);
  const timbrado = insertarTimbre(base, tfd);

  const escribir = (nombre: string, n: Nodo): string => {
    const archivo = join(temporal.ruta, nombre);
    writeFileSync(archivo, serializar(n), 'utf8');
    return archivo;
  };

  it('el Sello verifica contra la cadena que produce el XSLT del SAT sobre el XML escrito', () => {
    const cadenaXslt = cadenaPorXslt(serializar(base));
    expect(cadenaXslt).toBe(cadena);
    expect(verificarSello(cadenaXslt, base.atributos['Sello'] as string, csd.certificado)).toBe(true);
  });

  it('el TFD construido tiene el orden, los espacios de nombres y el SelloSAT esperados', () => {
    expect(tfd.nombre).toBe('tfd:TimbreFiscalDigital');
    expect(Object.keys(tfd.atributos)).toEqual([
      'xmlns:tfd',
      'xmlns:xsi',
      'xsi:schemaLocation',
      'Version',
      'UUID',
      'FechaTimbrado',
      'RfcProvCertif',
      'SelloCFD',
      'NoCertificadoSAT',
      'SelloSAT',
    ]);
    expect(tfd.atributos['xsi:schemaLocation']).toBe(
      'http://www.sat.gob.mx/TimbreFiscalDigital http://www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd',
    );
    expect(cadenaTfd(tfd)).toBe(
      `||1.1|${datos.uuid}|${datos.fechaTimbrado}|SPR190613I52|${datos.selloCfd}|${csd.noCertificado}||`,
    );
    expect(verificarSello(cadenaTfd(tfd), tfd.atributos['SelloSAT'] as string, csd.certificado)).toBe(true);
  });

  it('insertarTimbre agrega cfdi:Complemento al final sin tocar el original; el XML timbrado valida', () => {
    expect(base.hijos.map((h) => h.nombre)).not.toContain('cfdi:Complemento');
    expect(timbrado.hijos.map((h) => h.nombre)).toEqual([
      ...base.hijos.map((h) => h.nombre),
      'cfdi:Complemento',
    ]);
    expect(extraerTimbre(timbrado)).toBe(tfd);
    const archivo = escribir('timbrado.xml', timbrado);
    expect(validarConEsquema([archivo]).get(archivo)).toEqual([]);
    // The TFD contributes nothing to the cadena original: the Sello still verifies.
    expect(xsltprocArchivo(archivo)).toBe(cadena);
    expect(cadenaTfd(tfd)).toBe(cadenaTfdDeComprobantePorXslt(timbrado));
  });

  it('verificarTimbre: verdadero con el certificado, también tras escribir y releer el XML', () => {
    expect(verificarTimbre(timbrado, csd.certificado)).toBe(true);
    expect(verificarTimbre(parsear(serializar(timbrado)), csd.certificado)).toBe(true);
    expect(verificarTimbre(timbrado, csd.certificado.publicKey)).toBe(true);
  });

  it('verificarTimbre: falso si cambia el TFD, el Sello del comprobante o el certificado', () => {
    const conTfd = (cambio: Record<string, string>): Nodo =>
      insertarTimbre(base, { ...tfd, atributos: { ...tfd.atributos, ...cambio } });
    expect(verificarTimbre(conTfd({ FechaTimbrado: '2025-03-01T10:11:13' }), csd.certificado)).toBe(false);
    expect(verificarTimbre(conTfd({ UUID: datos.uuid.toLowerCase() }), csd.certificado)).toBe(false);
    expect(verificarTimbre(conTfd({ SelloSAT: '' }), csd.certificado)).toBe(false);
    const otroSello = { ...timbrado, atributos: { ...timbrado.atributos, Sello: sellar('otra', csd.llave) } };
    expect(verificarTimbre(otroSello, csd.certificado)).toBe(false);
    expect(verificarTimbre(timbrado, otraLlave.publicKey)).toBe(false);
    const certificadoSat = new X509Certificate(
      readFileSync(join(CSD, 'sat-pac-tfd-certs', '30001000000500003456.cer')),
    );
    expect(verificarTimbre(timbrado, certificadoSat)).toBe(false);
    expect(verificarTimbre(base, csd.certificado)).toBe(false);
  });

  it('insertarTimbre crea el Complemento antes de la Addenda y reutiliza uno existente', () => {
    const conAddenda = {
      ...base,
      hijos: [...base.hijos, nodo('cfdi:Addenda', {}, [nodo('x:Dato', { 'xmlns:x': 'urn:x' })])],
    };
    expect(
      insertarTimbre(conAddenda, tfd)
        .hijos.slice(-2)
        .map((h) => h.nombre),
    ).toEqual(['cfdi:Complemento', 'cfdi:Addenda']);
    const pago = ejemplo('signed/pago20-signed-eku.xml');
    const tfdPago = construirTimbre({ ...datos, selloCfd: pago.atributos['Sello'] as string }, firmarComoPac);
    const pagoTimbrado = insertarTimbre(pago, tfdPago);
    const complemento = pagoTimbrado.hijos.find((h) => h.nombre === 'cfdi:Complemento');
    expect(complemento?.hijos.map((h) => h.nombre)).toEqual(['pago20:Pagos', 'tfd:TimbreFiscalDigital']);
    expect(pagoTimbrado.hijos.filter((h) => h.nombre === 'cfdi:Complemento')).toHaveLength(1);
    expect(cadenaOriginal(pagoTimbrado)).toBe(cadenaOriginal(pago));
    expect(verificarTimbre(pagoTimbrado, csd.certificado)).toBe(true);
    const archivo = escribir('pago-timbrado.xml', pagoTimbrado);
    expect(validarConEsquema([archivo]).get(archivo)).toEqual([]);
  });

  it('insertarTimbre rechaza timbrar dos veces o un TFD de otro sello', () => {
    expect(() => insertarTimbre(timbrado, tfd)).toThrow(/ya está timbrado/);
    const ajeno = construirTimbre({ ...datos, selloCfd: 'b3Rybw==' }, firmarComoPac);
    expect(() => insertarTimbre(base, ajeno)).toThrow(/SelloCFD/);
  });

  it('construirTimbre valida sus datos e incluye la Leyenda en la cadena', () => {
    expect(() => construirTimbre({ ...datos, uuid: 'no-es-uuid' }, firmarComoPac)).toThrow(/UUID/);
    expect(() => construirTimbre({ ...datos, fechaTimbrado: '2025-03-01 10:11:12' }, firmarComoPac)).toThrow(
      /FechaTimbrado/,
    );
    expect(() => construirTimbre({ ...datos, noCertificadoSat: '123' }, firmarComoPac)).toThrow(
      /NoCertificadoSAT/,
    );
    expect(() => construirTimbre({ ...datos, selloCfd: '' }, firmarComoPac)).toThrow(/SelloCFD/);
    const conLeyenda = construirTimbre({ ...datos, leyenda: 'Leyenda de prueba' }, firmarComoPac);
    expect(cadenaTfd(conLeyenda)).toContain('|SPR190613I52|Leyenda de prueba|');
    expect(verificarTimbre(insertarTimbre(base, conLeyenda), csd.certificado)).toBe(true);
  });
});

describe('URL de verificación (QR)', () => {
  it('del CFDI real timbrado, con los valores tomados a mano del XML', () => {
    // UUID C2832671-DA6D-11EF-A83D-00155D012007, Emisor ISD950921HE5, Receptor COSC8001137NA,
    // Total="1000.00" → 1000.0, Sello ends "…FoYRhNjeNw==" → last 8 characters "hNjeNw==".
    const esperado =
      'https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=C2832671-DA6D-11EF-A83D-00155D012007' +
      '&re=ISD950921HE5&rr=COSC8001137NA&tt=1000.0&fe=hNjeNw==';
    const comprobante = ejemplo('signed/ingreso-real-stamped-pue-iva16.xml');
    expect(urlVerificacionDe(comprobante)).toBe(esperado);
    expect(
      urlVerificacion({
        uuid: 'C2832671-DA6D-11EF-A83D-00155D012007',
        rfcEmisor: 'ISD950921HE5',
        rfcReceptor: 'COSC8001137NA',
        total: '1000.00',
        sello: comprobante.atributos['Sello'] as string,
      }),
    ).toBe(esperado);
  });

  it('del CFDI timbrado en el sandbox', () => {
    // Total="3327.01", Sello ends "…84qiKklI5Q==".
    expect(urlVerificacionDe(ejemplo('signed/ingreso-sandbox-stamped-descuento.xml'))).toBe(
      'https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=6F35D3B5-3651-5370-BC2C-14CDBE384CD7' +
        '&re=EKU9003173C9&rr=MCI7306249Y1&tt=3327.01&fe=KklI5Q==',
    );
  });

  it('escribe el & de un RFC como &amp; y deja la Ñ', () => {
    const url = urlVerificacion({
      uuid: 'x',
      rfcEmisor: 'H&E951128469',
      rfcReceptor: 'AÑO010101AB1',
      total: '459.360000',
      sello: '…5tSZhA==',
    });
    expect(url).toBe(
      'https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=x&re=H&amp;E951128469&rr=AÑO010101AB1&tt=459.36&fe=5tSZhA==',
    );
  });

  it.each([
    ['459.36', '459.36'],
    ['1000.00', '1000.0'],
    ['1000', '1000.0'],
    ['0', '0.0'],
    ['0.000000', '0.0'],
    ['12.340000', '12.34'],
    ['00012.50', '12.5'],
    ['1234567.123456', '1234567.123456'],
    ['999999999999999999.999999', '999999999999999999.999999'],
    ['1.1234565', '1.123457'],
    ['0.0000001', '0.0'],
  ])('tt de %s es %s', (total, tt) => {
    expect(totalEnExpresion(total)).toBe(tt);
  });

  it('rechaza totales y sellos que no sirven', () => {
    for (const malo of ['', '-1', '1e3', ' 1', '1.', '.5', '1,000.00']) {
      expect(() => totalEnExpresion(malo)).toThrow(/Total inválido/);
    }
    expect(() =>
      urlVerificacion({ uuid: 'x', rfcEmisor: 'a', rfcReceptor: 'b', total: '1', sello: 'corto' }),
    ).toThrow(/sello/);
    expect(() => urlVerificacionDe(ejemplo('signed/pago20-signed-eku.xml'))).toThrow(/no está timbrado/);
  });
});
