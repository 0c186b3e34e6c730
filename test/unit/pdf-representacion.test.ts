import { createSign, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cadenaTfd } from '../../cfdi/cadena';
import { urlVerificacionDe } from '../../cfdi/qr';
import { construirTimbre, extraerTimbre, insertarTimbre } from '../../cfdi/timbre';
import { nodo, type Nodo } from '../../cfdi/xml/nodo';
import { parsear } from '../../cfdi/xml/parsear';
import { descripcionesDesdeCsv } from '../../pdf/descripciones';
import { importeConLetra, numeroEnLetras } from '../../pdf/importe-con-letra';
import { qrSvg } from '../../pdf/qr-svg';
import { htmlRepresentacion, importe, LADO_QR_MM, LEYENDA } from '../../pdf/representacion';
import { directorioSat } from '../../config/rutas';

const EJEMPLOS = join(directorioSat(), 'examples', 'signed');
const leer = (archivo: string) => readFileSync(join(EJEMPLOS, archivo), 'utf8');
const REAL = 'ingreso-real-stamped-pue-iva16.xml';
const SANDBOX = 'ingreso-sandbox-stamped-descuento.xml';
const descripciones = descripcionesDesdeCsv();
const ACENTO = '#AA3300';

/** A TFD signed with a throwaway key: enough for printing, which never verifies SelloSAT. */
function timbrar(comprobante: Nodo): Nodo {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const tfd = construirTimbre(
    {
      uuid: '5FB2822E-396D-4725-8521-CDC4BDD20CCF',
      fechaTimbrado: '2023-06-13T14:16:00',
      rfcProvCertif: 'SPR190613I52',
      selloCfd: comprobante.atributos['Sello']!,
      noCertificadoSat: '30001000000500003456',
    },
    (cadena) => createSign('RSA-SHA256').update(cadena).sign(privateKey, 'base64'),
  );
  return insertarTimbre(comprobante, tfd);
}

/** Text content with tags removed, entities left as written. */
const texto = (html: string) => html.replace(/<style>[\s\S]*?<\/style>/, '').replace(/<[^>]+>/g, ' ');

describe('htmlRepresentacion con el CFDI real timbrado', () => {
  const xml = leer(REAL);
  const comprobante = parsear(xml);
  const tfd = extraerTimbre(comprobante)!;
  const html = htmlRepresentacion(xml, { colorAcento: ACENTO, descripciones });
  const plano = texto(html).replace(/\s+/g, ' ');

  it('es un documento HTML completo y autocontenido', () => {
    expect(html.startsWith('<!DOCTYPE html><html lang="es">')).toBe(true);
    expect(html.endsWith('</html>')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    // Nothing fetched: no scripts, links, images by URL, @import or url().
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|\bhref=|@import|url\(/i);
  });

  it('muestra los datos fiscales del timbre', () => {
    const a = tfd.atributos;
    expect(html).toContain('C2832671-DA6D-11EF-A83D-00155D012007');
    expect(plano).toContain('No. de serie del CSD del emisor 00001000000510877575');
    expect(plano).toContain('No. de serie del certificado del SAT 00001000000708361114');
    expect(plano).toContain('Fecha y hora de certificación 2025-01-24 10:10:42');
    expect(plano).toContain('RFC del PAC TBN040609RKA');
    expect(html).toContain(comprobante.atributos['Sello']);
    expect(html).toContain(a['SelloSAT']);
  });

  it('imprime la cadena del TFD exactamente como cadenaTfd (y como la XSLT del SAT)', () => {
    const cadena = cadenaTfd(tfd);
    expect(cadena).toBe(leer('ingreso-real-stamped-pue-iva16.tfd-cadena.txt'));
    expect(html).toContain(`<p class="mono">${cadena}</p>`);
    expect(plano).toContain('Cadena original del complemento de certificación digital del SAT');
  });

  it('incluye la leyenda, el importe con letra y el QR de la URL de verificación a ≥ 2.75 cm', () => {
    expect(html).toContain(LEYENDA);
    expect(LEYENDA).toBe('Este documento es una representación impresa de un CFDI');
    expect(plano).toContain('UN MIL PESOS 00/100 M.N.');
    expect(LADO_QR_MM).toBeGreaterThanOrEqual(27.5);
    expect(html).toContain(qrSvg(urlVerificacionDe(comprobante), LADO_QR_MM));
    expect(html).toContain(`width="${LADO_QR_MM}mm" height="${LADO_QR_MM}mm"`);
  });

  it('muestra emisor, receptor y datos del comprobante con sus descripciones de catálogo', () => {
    for (const fragmento of [
      'PASE, SERVICIOS ELECTRONICOS',
      'RFC ISD950921HE5',
      'Régimen fiscal 601 – General de Ley Personas Morales',
      'RFC COSC8001137NA',
      'Nombre CARLOS CORTES SOTO',
      'Domicilio fiscal 52176',
      '612 – Personas Físicas con Actividades Empresariales y Profesionales',
      'Uso del CFDI G03 – Gastos en general.',
      'Tipo de comprobante I – Ingreso',
      'O-52375239',
      'Emisión 2025-01-24 10:10:41',
      'Lugar de expedición 11529',
      'Exportación 01 – No aplica',
      'Moneda MXN – Peso Mexicano · tipo de cambio 1',
      'Forma de pago 04 – Tarjeta de crédito',
      'Método de pago PUE – Pago en una sola exhibición',
    ]) {
      expect(plano).toContain(fragmento);
    }
  });

  it('muestra los conceptos con sus impuestos y los totales', () => {
    for (const fragmento of [
      '80141628',
      '1.000000',
      'E48',
      'NO APLICA',
      'COMISION RECARGA IDMX',
      '853.448276',
      'Objeto imp. 02 – Sí objeto de impuesto.',
      'Traslado IVA 16% · base 853.448276 · importe 136.551724',
      'Subtotal 862.07',
      'IVA trasladado 16% 137.93',
      'Total MXN 1,000.00',
    ]) {
      expect(plano).toContain(fragmento);
    }
  });

  it('usa el color de acento en encabezados, tablas y reglas', () => {
    expect(html).toContain(
      `h2 {\n  margin: 0 0 1.6mm; padding-bottom: 0.8mm; border-bottom: 0.35mm solid ${ACENTO};`,
    );
    expect(html).toContain(`background: ${ACENTO}; color: #FFFFFF;`);
    expect(html.split(ACENTO).length).toBeGreaterThan(8);
  });

  it('acepta el Nodo ya parseado y da el mismo documento', () => {
    expect(htmlRepresentacion(comprobante, { colorAcento: ACENTO, descripciones })).toBe(html);
  });
});

describe('htmlRepresentacion: otros comprobantes', () => {
  it('el ejemplo con descuento muestra la columna y el total en letra con centavos', () => {
    const plano = texto(htmlRepresentacion(leer(SANDBOX), { colorAcento: ACENTO, descripciones })).replace(
      /\s+/g,
      ' ',
    );
    expect(plano).toContain('Descuento');
    expect(plano).toContain('Descuento 956.04');
    expect(plano).toContain('Portable tetris gamepad pro++ ⏻');
    expect(plano).toContain('TRES MIL TRESCIENTOS VEINTISIETE PESOS 01/100 M.N.');
    expect(plano).toContain('6F35D3B5-3651-5370-BC2C-14CDBE384CD7');
    expect(plano).toContain('Régimen fiscal 603 – Personas Morales con Fines no Lucrativos');
  });

  it('retenciones por impuesto y tasas no redondas', () => {
    const html = htmlRepresentacion(leer('ingreso-ppd-iva16-ret-isr10-iva-2tercios-fake-tfd.xml'), {
      colorAcento: ACENTO,
      descripciones,
    });
    const plano = texto(html).replace(/\s+/g, ' ');
    expect(plano).toContain('Retención ISR 10% · base 15,390.30 · importe 1,539.03');
    expect(plano).toContain('Retención IVA 10.6667% · base 15,390.30 · importe 1,641.64');
    expect(plano).toContain('ISR retenido 1,539.03');
    expect(plano).toContain('IVA retenido 1,641.64');
    expect(plano).toContain('Cuenta predial 1234567890');
    expect(plano).toContain('Método de pago PPD – Pago en parcialidades o diferido');
  });

  it('otra moneda: importe con letra con su código', () => {
    const comprobante = timbrar(parsear(leer('ingreso-usd-descuentos-signed-eku.xml')));
    const plano = texto(htmlRepresentacion(comprobante, { colorAcento: ACENTO, descripciones })).replace(
      /\s+/g,
      ' ',
    );
    expect(plano).toContain('TRES MIL DOSCIENTOS CUARENTA Y OCHO DÓLARES 00/100 USD');
    expect(plano).toContain('Total USD 3,248.00');
    expect(plano).toContain('USD – Dólar americano · tipo de cambio 18.9008');
    expect(plano).toContain('Pedimento 17 24 3420 7010987');
    // The XML's &quot; comes back escaped for HTML.
    expect(plano).toContain('Pantalla led 3x4&quot; con entrada HDMI');
  });

  it('tipo P: detalle de Pagos 2.0 y sin importe con letra del total XXX', () => {
    const comprobante = timbrar(parsear(leer('pago20-signed-eku.xml')));
    const html = htmlRepresentacion(comprobante, { colorAcento: ACENTO, descripciones });
    const plano = texto(html).replace(/\s+/g, ' ');
    for (const fragmento of [
      'Recibo de pago CFDI 4.0 · Pago',
      'Complemento de pagos 2.0',
      'Fecha de pago 2023-06-12 17:18:19',
      'Forma de pago 03 – Transferencia electrónica de fondos',
      'Moneda MXN – Peso Mexicano',
      'Monto MXN 15,000.00',
      'Monto con letra QUINCE MIL PESOS 00/100 M.N.',
      'Núm. de operación 963852',
      '00000000-1111-2222-3333-00000000000A MXN 1 2 12,000.00 12,000.00 0 02',
      '00000000-1111-2222-3333-00000000000B MXN 1 1 10,000.00 3,000.00 7,000.00 02',
      'Traslado IVA 16% · base 12,931.040000 · importe 2,068.960000',
      'Monto total de pagos MXN 15,000.00',
      'Uso del CFDI CP01 – Pagos',
    ]) {
      expect(plano).toContain(fragmento);
    }
    expect(plano).not.toContain('Importe con letra');
    expect(html).toContain(qrSvg(urlVerificacionDe(comprobante), LADO_QR_MM));
  });

  it('CFDI relacionados con su tipo de relación', () => {
    const base = parsear(leer(REAL));
    const relacionado = nodo('cfdi:CfdiRelacionados', { TipoRelacion: '04' }, [
      nodo('cfdi:CfdiRelacionado', { UUID: 'AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE' }),
    ]);
    const comprobante = { ...base, hijos: [relacionado, ...base.hijos] };
    const plano = texto(htmlRepresentacion(comprobante, { colorAcento: ACENTO, descripciones })).replace(
      /\s+/g,
      ' ',
    );
    expect(plano).toContain('CFDI relacionados');
    expect(plano).toContain('04 – Sustitución de los CFDI previos AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE');
  });

  it('sin descripciones imprime solo las claves', () => {
    const plano = texto(htmlRepresentacion(leer(REAL), { colorAcento: ACENTO })).replace(/\s+/g, ' ');
    expect(plano).toContain('Régimen fiscal 601 ');
    expect(plano).not.toContain('General de Ley');
    // Type and tax names are part of the format and need no catalog.
    expect(plano).toContain('I – Ingreso');
    expect(plano).toContain('IVA trasladado 16%');
  });
});

describe('htmlRepresentacion: entradas hostiles o inválidas', () => {
  const HOSTIL = `<script>alert("x")</script> & 'q' </td></tr>`;

  it('escapa todo texto del XML', () => {
    const base = parsear(leer(REAL));
    const cambiar = (n: Nodo): Nodo => ({
      ...n,
      atributos: {
        ...n.atributos,
        ...(n.atributos['Descripcion'] ? { Descripcion: HOSTIL } : {}),
        ...(n.nombre === 'cfdi:Emisor' ? { Nombre: '<b>A&B</b>' } : {}),
        ...(n.nombre === 'cfdi:Receptor' ? { Nombre: `O'Brien "<img src=x>"` } : {}),
      },
      hijos: n.hijos.map(cambiar),
    });
    const html = htmlRepresentacion(cambiar(base), { colorAcento: ACENTO });
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; &lt;/td&gt;&lt;/tr&gt;',
    );
    expect(html).toContain('&lt;b&gt;A&amp;B&lt;/b&gt;');
    expect(html).toContain('O&#39;Brien &quot;&lt;img src=x&gt;&quot;');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>A&B');
  });

  it('un XML hostil llega escapado también por el parser', () => {
    const xml = leer(REAL).replace(
      'Descripcion="RECARGA IDMX"',
      'Descripcion="&lt;/style&gt;&lt;script&gt;x()&lt;/script&gt;"',
    );
    const html = htmlRepresentacion(xml, { colorAcento: ACENTO });
    expect(html).toContain('&lt;/style&gt;&lt;script&gt;x()&lt;/script&gt;');
    expect(html).not.toContain('<script');
  });

  it('rechaza un color que no es hexadecimal (iría dentro del CSS)', () => {
    for (const color of ['red', '#12345', '#1234567', '#12345G', '#123456;}body{display:none', '']) {
      expect(() => htmlRepresentacion(leer(REAL), { colorAcento: color })).toThrow(/colorAcento inválido/);
    }
    expect(htmlRepresentacion(leer(REAL), { colorAcento: '#a30' })).toContain('#AA3300');
  });

  it('un acento claro lleva texto oscuro en los encabezados de tabla', () => {
    const html = htmlRepresentacion(leer(REAL), { colorAcento: '#FFD700' });
    expect(html).toContain('background: #FFD700; color: #111111;');
  });

  it('rechaza un comprobante sin timbre o que no es un Comprobante', () => {
    expect(() => htmlRepresentacion(leer('pago20-signed-eku.xml'), { colorAcento: ACENTO })).toThrow(
      /no está timbrado/,
    );
    expect(() => htmlRepresentacion('<cfdi:Otro xmlns:cfdi="x"/>', { colorAcento: ACENTO })).toThrow(
      /Comprobante/,
    );
  });
});

describe('importeConLetra', () => {
  it.each([
    ['0.50', 'MXN', 'CERO PESOS 50/100 M.N.'],
    ['1', 'MXN', 'UN PESO 00/100 M.N.'],
    ['15', 'MXN', 'QUINCE PESOS 00/100 M.N.'],
    ['16', 'MXN', 'DIECISÉIS PESOS 00/100 M.N.'],
    ['22.10', 'MXN', 'VEINTIDÓS PESOS 10/100 M.N.'],
    ['31', 'MXN', 'TREINTA Y UN PESOS 00/100 M.N.'],
    ['100', 'MXN', 'CIEN PESOS 00/100 M.N.'],
    ['101', 'MXN', 'CIENTO UN PESOS 00/100 M.N.'],
    ['777', 'MXN', 'SETECIENTOS SETENTA Y SIETE PESOS 00/100 M.N.'],
    ['1000', 'MXN', 'UN MIL PESOS 00/100 M.N.'],
    ['1001', 'MXN', 'UN MIL UN PESOS 00/100 M.N.'],
    ['1200.50', 'MXN', 'UN MIL DOSCIENTOS PESOS 50/100 M.N.'],
    ['3327.01', 'MXN', 'TRES MIL TRESCIENTOS VEINTISIETE PESOS 01/100 M.N.'],
    ['21000', 'MXN', 'VEINTIÚN MIL PESOS 00/100 M.N.'],
    ['100000', 'MXN', 'CIEN MIL PESOS 00/100 M.N.'],
    ['1000000', 'MXN', 'UN MILLÓN DE PESOS 00/100 M.N.'],
    ['1000100', 'MXN', 'UN MILLÓN CIEN PESOS 00/100 M.N.'],
    ['2000001', 'MXN', 'DOS MILLONES UN PESOS 00/100 M.N.'],
    ['2500123.45', 'MXN', 'DOS MILLONES QUINIENTOS MIL CIENTO VEINTITRÉS PESOS 45/100 M.N.'],
    ['1000000000', 'MXN', 'UN MIL MILLONES DE PESOS 00/100 M.N.'],
    ['1000000000000', 'MXN', 'UN BILLÓN DE PESOS 00/100 M.N.'],
    ['999.995', 'MXN', 'UN MIL PESOS 00/100 M.N.'],
    ['1000.00', 'USD', 'UN MIL DÓLARES 00/100 USD'],
    ['1', 'USD', 'UN DÓLAR 00/100 USD'],
    ['2000000', 'USD', 'DOS MILLONES DE DÓLARES 00/100 USD'],
    ['35.5', 'EUR', 'TREINTA Y CINCO EUROS 50/100 EUR'],
    ['12.345', 'GBP', 'DOCE 35/100 GBP'],
  ])('%s %s → %s', (importeTexto, moneda, esperado) => {
    expect(importeConLetra(importeTexto, moneda)).toBe(esperado);
  });

  it('rechaza importes que no son t_Importe', () => {
    for (const malo of ['', '-1', '1e3', '1,000.00', ' 1', '1.']) {
      expect(() => importeConLetra(malo, 'MXN')).toThrow(/Importe inválido/);
    }
  });

  it('cubre los 18 dígitos enteros de t_Importe', () => {
    expect(numeroEnLetras(999_999_999_999_999_999n)).toBe(
      'NOVECIENTOS NOVENTA Y NUEVE MIL NOVECIENTOS NOVENTA Y NUEVE BILLONES ' +
        'NOVECIENTOS NOVENTA Y NUEVE MIL NOVECIENTOS NOVENTA Y NUEVE MILLONES ' +
        'NOVECIENTOS NOVENTA Y NUEVE MIL NOVECIENTOS NOVENTA Y NUEVE',
    );
    expect(() => numeroEnLetras(10n ** 18n)).toThrow(RangeError);
  });
});

describe('piezas', () => {
  it('importe separa miles y conserva los decimales como se timbraron', () => {
    expect(importe('0')).toBe('0');
    expect(importe('999.5')).toBe('999.5');
    expect(importe('1000')).toBe('1,000');
    expect(importe('1234567.500000')).toBe('1,234,567.500000');
    expect(importe('x<y')).toBe('x&lt;y');
    expect(importe(undefined)).toBe('');
  });

  it('descripcionesDesdeCsv lee los catálogos del proyecto', () => {
    expect(descripciones('regimen_fiscal', '601')).toBe('General de Ley Personas Morales');
    expect(descripciones('clave_unidad', 'E48')).toBe('Unidad de servicio');
    expect(descripciones('uso_cfdi', 'G03')).toBe('Gastos en general.');
    expect(descripciones('moneda', 'MXN')).toBe('Peso Mexicano');
    expect(descripciones('meses', '01')).toBe('Enero');
    expect(descripciones('regimen_fiscal', '999')).toBeUndefined();
  });

  it('qrSvg dibuja un SVG cuadrado del lado pedido', () => {
    const svg = qrSvg('https://ejemplo.mx/?a=1&b=2', 30);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 (\d+) \1" width="30mm"/);
    expect(svg).toMatch(/<path fill="#000" d="(M\d+ \d+h\d+v1h-\d+z)+"\/><\/svg>$/);
  });
});
