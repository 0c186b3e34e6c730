import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { abrirLlave, leerCertificado } from '../../cfdi/csd';
import { construirCancelacion, firmanteConLlave, verificarCancelacion } from '../../pac/finkok/cancelacion';
import { NS_CAMPOS, NS_TIMBRADO, partirCodigo } from '../../pac/finkok/protocolo';
import {
  campo,
  FallaSoap,
  faltaSoap,
  leerRespuesta,
  leerSolicitud,
  respuestaSoap,
  SobreInvalido,
  solicitudSoap,
} from '../../pac/soap/sobre';
import { elemento, escribirXml, hijoDe, leerXml, textoDe } from '../../pac/soap/xml';
import { crearCertificadoAutofirmado } from '../../pac/sandbox/x509';
import { archivoSat, CONTRASENA_PRUEBA, CSD_VALIDO, generarCsd } from '../support/certificados';

describe('XML con texto (pac/soap/xml)', () => {
  it('lee texto, CDATA, entidades y referencias; ignora comentarios e instrucciones', () => {
    const el = leerXml(
      '<?xml version="1.0"?><!-- c --><a x="1&amp;2&#x41;\tz"><b>uno &lt;dos&gt; &#233;</b><c><![CDATA[<x/>&amp;]]></c><?pi ?></a>',
    );
    expect(el.atributos['x']).toBe('1&2A z');
    expect(textoDe(hijoDe(el, 'b'))).toBe('uno <dos> é');
    expect(textoDe(hijoDe(el, 'c'))).toBe('<x/>&amp;');
  });

  it('rechaza DOCTYPE, entidades desconocidas, cierres cruzados y texto fuera de la raíz', () => {
    expect(() => leerXml('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>')).toThrow(/DOCTYPE/);
    expect(() => leerXml('<a>&x;</a>')).toThrow(/entidad desconocida/);
    expect(() => leerXml('<a><b></a></b>')).toThrow(/cierre/);
    expect(() => leerXml('<a/>texto')).toThrow();
    expect(() => leerXml('<a>1 & 2</a>')).toThrow(/referencia/);
  });

  it('escribe y vuelve a leer lo mismo, con &, <, > y CR escapados', () => {
    const el = elemento('r', { a: 'x"y&z' }, [elemento('t', {}, ['a & b < c > d\r\n']), elemento('v')]);
    const xml = escribirXml(el, false);
    expect(xml).toBe('<r a="x&quot;y&amp;z"><t>a &amp; b &lt; c &gt; d&#13;\n</t><v/></r>');
    expect(leerXml(xml)).toEqual(el);
  });
});

describe('sobres SOAP (pac/soap/sobre)', () => {
  it('la solicitud tiene la forma de PHP SoapClient y el servidor la lee', () => {
    const xml = solicitudSoap('stamp', NS_TIMBRADO, [
      ['xml', 'PD94bWw='],
      ['username', 'u@x.mx'],
      ['password', 'a<b&c'],
    ]);
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" ' +
        'xmlns:ns1="http://facturacion.finkok.com/stamp"><SOAP-ENV:Body><ns1:stamp><ns1:xml>PD94bWw=</ns1:xml>' +
        '<ns1:username>u@x.mx</ns1:username><ns1:password>a&lt;b&amp;c</ns1:password></ns1:stamp></SOAP-ENV:Body></SOAP-ENV:Envelope>',
    );
    expect(leerSolicitud(xml)).toEqual({
      operacion: 'stamp',
      ns: NS_TIMBRADO,
      parametros: expect.objectContaining({ xml: 'PD94bWw=', username: 'u@x.mx', password: 'a<b&c' }),
    });
  });

  it('lee una respuesta con otros prefijos y con el XML timbrado escapado dentro', () => {
    const cfdi = '<?xml version="1.0" encoding="UTF-8"?><cfdi:Comprobante Total="1&amp;2"/>';
    const xml = respuestaSoap('stamp', NS_TIMBRADO, NS_CAMPOS, [
      campo('xml', cfdi),
      campo('UUID', 'ABC'),
      campo('Incidencias', []),
    ]);
    expect(xml).toContain('<tns:stampResponse><tns:stampResult><s0:xml>&lt;?xml');
    const r = leerRespuesta(xml, 'stamp');
    expect(textoDe(hijoDe(r, 'xml'))).toBe(cfdi);
    expect(textoDe(hijoDe(r, 'UUID'))).toBe('ABC');
    // Same document written by someone else: default namespace, other prefixes.
    const otro =
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
      '<stampResponse xmlns="http://facturacion.finkok.com/stamp"><stampResult><xml>x</xml></stampResult></stampResponse>' +
      '</soap:Body></soap:Envelope>';
    expect(textoDe(hijoDe(leerRespuesta(otro, 'stamp'), 'xml'))).toBe('x');
  });

  it('un Fault se lanza como FallaSoap; lo que no es un sobre, como SobreInvalido', () => {
    const falla = (() => {
      try {
        leerRespuesta(faltaSoap('Client', 'mal'), 'stamp');
      } catch (e) {
        return e;
      }
    })() as FallaSoap;
    expect(falla).toBeInstanceOf(FallaSoap);
    expect(falla.delCliente).toBe(true);
    expect(falla.mensaje).toBe('mal');
    expect(() => leerRespuesta('<html><body>502 Bad Gateway</body></html>', 'stamp')).toThrow(SobreInvalido);
    expect(() => leerRespuesta('Bad Gateway', 'stamp')).toThrow(SobreInvalido);
    const otraOperacion = respuestaSoap('stamped', NS_TIMBRADO, NS_CAMPOS, [campo('xml', '')]);
    expect(() => leerRespuesta(otraOperacion, 'stamp')).toThrow(SobreInvalido);
  });

  it('parte los CodEstatus de Finkok en código y mensaje', () => {
    expect(partirCodigo('708 - No se pudo conectar al SAT')).toEqual({
      codigo: '708',
      mensaje: 'No se pudo conectar al SAT',
    });
    expect(partirCodigo('304')).toEqual({ codigo: '304', mensaje: 'Certificado revocado o caduco' });
    expect(partirCodigo('300: Usuario y contraseña inválidos').codigo).toBe('300');
  });
});

describe('solicitud de cancelación firmada (pac/finkok/cancelacion)', () => {
  const cer = archivoSat(CSD_VALIDO.cer);
  const abierta = abrirLlave(archivoSat(CSD_VALIDO.key), CONTRASENA_PRUEBA);
  if (!abierta.ok) throw new Error('no abre la llave de prueba');
  const firmante = firmanteConLlave(cer, abierta.llave);
  const datos = {
    rfcEmisor: CSD_VALIDO.rfc,
    fecha: '2026-11-22T10:00:00',
    folios: [
      {
        uuid: 'a2d530d5-86ee-4ed6-afb7-1c965d72a3e2',
        motivo: '01',
        folioSustitucion: 'b2d530d5-86ee-4ed6-afb7-1c965d72a3e2',
      },
    ],
    firmante,
  };

  it('se firma con el CSD del emisor y se verifica', async () => {
    const xml = await construirCancelacion(datos);
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?><Cancelacion xmlns="http:\/\/cancelacfd.sat.gob.mx" xmlns:xsd=.* RfcEmisor="EKU9003173C9" Fecha="2026-11-22T10:00:00"><Folios><Folio UUID="A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2" Motivo="01" FolioSustitucion="B2D530D5-86EE-4ED6-AFB7-1C965D72A3E2"\/><\/Folios><Signature xmlns="http:\/\/www.w3.org\/2000\/09\/xmldsig#"><SignedInfo>/,
    );
    const v = verificarCancelacion(xml);
    expect(v).toMatchObject({
      ok: true,
      rfcEmisor: 'EKU9003173C9',
      folios: [
        {
          uuid: 'A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2',
          motivo: '01',
          folioSustitucion: 'B2D530D5-86EE-4ED6-AFB7-1C965D72A3E2',
        },
      ],
    });
    if (v.ok) expect(v.certificado.rfc).toBe('EKU9003173C9');
    expect(xml).toContain(`<X509SerialNumber>${CSD_VALIDO.noCertificado}</X509SerialNumber>`);
  });

  it('espacios añadidos después de firmar cambian la digestión (la C14N conserva el texto)', async () => {
    const xml = await construirCancelacion({ ...datos, folios: [{ uuid: 'A', motivo: '02' }] });
    expect(verificarCancelacion(xml.replace('<Folios>', '<Folios>\n  '))).toMatchObject({ ok: false });
  });

  it('detecta un documento alterado, una firma ajena y la falta de firma', async () => {
    const xml = await construirCancelacion(datos);
    expect(verificarCancelacion(xml.replace('Motivo="01"', 'Motivo="02"'))).toMatchObject({
      ok: false,
      motivo: expect.stringMatching(/digestión/),
    });
    const otro = generarCsd({ rfc: CSD_VALIDO.rfc, llave: 7 });
    const ajena = await construirCancelacion({
      ...datos,
      firmante: firmanteConLlave(otro.cer, abierta.llave),
    });
    expect(verificarCancelacion(ajena)).toMatchObject({
      ok: false,
      motivo: expect.stringMatching(/no corresponde/),
    });
    const sinFirma = xml.replace(/<Signature[\s\S]*<\/Signature>/, '');
    expect(verificarCancelacion(sinFirma)).toMatchObject({
      ok: false,
      motivo: expect.stringMatching(/no está firmada/),
    });
    expect(verificarCancelacion('<otro/>')).toMatchObject({ ok: false });
  });

  it('una e.firma (FIEL) no sirve para cancelar', async () => {
    const fiel = generarCsd({ rfc: CSD_VALIDO.rfc, tipo: 'fiel', llave: 3 });
    const xml = await construirCancelacion({
      ...datos,
      firmante: firmanteConLlave(fiel.cer, fiel.llavePrivada),
    });
    expect(verificarCancelacion(xml)).toMatchObject({ ok: false, deCertificado: true });
  });
});

describe('certificado X.509 autofirmado (pac/sandbox/x509)', () => {
  it('OpenSSL y leerCertificado lo leen: serie ASCII, vigencia, usos de llave y firma', () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const desde = new Date('2026-01-01T00:00:00Z');
    const hasta = new Date('2051-06-30T12:34:56Z');
    const der = crearCertificadoAutofirmado({
      nombre: { cn: 'SANDBOX SAT', o: 'SANDBOX SAT', ou: 'PRUEBAS', c: 'MX' },
      serie: Buffer.from('30001000000512345678', 'latin1'),
      desde,
      hasta,
      llavePublica: publicKey,
      llavePrivada: privateKey,
    });
    const x509 = new X509Certificate(der);
    expect(x509.verify(publicKey)).toBe(true);
    expect(x509.checkPrivateKey(privateKey)).toBe(true);
    expect(x509.subject).toContain('CN=SANDBOX SAT');
    expect(x509.issuer).toBe(x509.subject);
    const c = leerCertificado(der);
    expect(c.noCertificado).toBe('30001000000512345678');
    expect(c.validoDesde).toEqual(desde);
    // After 2049 the validity is a GeneralizedTime.
    expect(c.validoHasta).toEqual(hasta);
    expect(c.usosLlave).toEqual(['digitalSignature', 'nonRepudiation']);
    const texto = execFileSync('openssl', ['x509', '-inform', 'DER', '-noout', '-text'], {
      input: der,
      encoding: 'utf8',
    });
    expect(texto).toMatch(/Version: 3/);
    expect(texto).toMatch(/sha256WithRSAEncryption/);
    expect(texto).toMatch(/CA:FALSE/);
  });
});
