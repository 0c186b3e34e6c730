import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cadenaOriginal, cadenaTfd, normalizarEspacios } from '../../cfdi/cadena';
import { parsear } from '../../cfdi/xml/parsear';
import { cadenaTfdPorXslt, directorioTemporal, xsltprocLote } from '../support/xslt';

// The XSLT's rules one by one, on small hand-written documents, each compared with xsltproc.

const CFDI = 'http://www.sat.gob.mx/cfd/4';
const PAGOS = 'http://www.sat.gob.mx/Pagos20';

const RAIZ =
  'Version="4.0" Serie="A" Folio="7" Fecha="2025-01-02T03:04:05" Sello="S" FormaPago="01" NoCertificado="30001000000500003416" ' +
  'Certificado="C" SubTotal="10" Moneda="MXN" Total="11.60" TipoDeComprobante="I" Exportacion="01" MetodoPago="PUE" LugarExpedicion="42501"';
const EMISOR = '<cfdi:Emisor Rfc="EKU9003173C9" Nombre="ESCUELA KEMPER URGATE" RegimenFiscal="601"/>';
const RECEPTOR =
  '<cfdi:Receptor Rfc="H&amp;E951128469" Nombre="H &amp; E" DomicilioFiscalReceptor="86991" RegimenFiscalReceptor="601" UsoCFDI="G03"/>';
const CONCEPTO =
  '<cfdi:Concepto ClaveProdServ="01010101" Cantidad="1" ClaveUnidad="ACT" Descripcion="Venta" ValorUnitario="10" Importe="10" ObjetoImp="02">' +
  '<cfdi:Impuestos><cfdi:Traslados><cfdi:Traslado Base="10" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="1.60"/></cfdi:Traslados></cfdi:Impuestos>' +
  '</cfdi:Concepto>';

/** A CFDI with the given pieces; everything else a plain valid ingreso. */
function cfdi(
  p: { raiz?: string; antes?: string; conceptos?: string; despues?: string; ns?: string } = {},
): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?><cfdi:Comprobante xmlns:cfdi="${CFDI}"${p.ns ?? ''} ${p.raiz ?? RAIZ}>` +
    `${p.antes ?? ''}${EMISOR}${RECEPTOR}<cfdi:Conceptos>${p.conceptos ?? CONCEPTO}</cfdi:Conceptos>${p.despues ?? ''}` +
    '</cfdi:Comprobante>'
  );
}

const PAGO =
  '<pago20:Pago FechaPago="2025-01-01T12:00:00" FormaDePagoP="03" MonedaP="MXN" TipoCambioP="1" Monto="116.00">' +
  '<pago20:DoctoRelacionado IdDocumento="00000000-1111-2222-3333-00000000000A" MonedaDR="MXN" EquivalenciaDR="1" NumParcialidad="1" ImpSaldoAnt="116.00" ImpPagado="116.00" ImpSaldoInsoluto="0" ObjetoImpDR="02">' +
  '<pago20:ImpuestosDR><pago20:TrasladosDR><pago20:TrasladoDR BaseDR="100" ImpuestoDR="002" TipoFactorDR="Tasa" TasaOCuotaDR="0.160000" ImporteDR="16"/></pago20:TrasladosDR>' +
  '<pago20:RetencionesDR><pago20:RetencionDR BaseDR="100" ImpuestoDR="001" TipoFactorDR="Tasa" TasaOCuotaDR="0.100000" ImporteDR="10"/></pago20:RetencionesDR></pago20:ImpuestosDR>' +
  '</pago20:DoctoRelacionado>' +
  '<pago20:ImpuestosP><pago20:TrasladosP><pago20:TrasladoP BaseP="100" ImpuestoP="002" TipoFactorP="Tasa" TasaOCuotaP="0.160000" ImporteP="16"/></pago20:TrasladosP>' +
  '<pago20:RetencionesP><pago20:RetencionP ImpuestoP="001" ImporteP="10"/></pago20:RetencionesP></pago20:ImpuestosP>' +
  '</pago20:Pago>';
const PAGOS20 = `<pago20:Pagos xmlns:pago20="${PAGOS}" Version="2.0"><pago20:Totales MontoTotalPagos="116.00" TotalRetencionesISR="10.00"/>${PAGO}</pago20:Pagos>`;

const CASOS: [string, string][] = [
  ['un CFDI sencillo', cfdi()],
  [
    'atributos en otro orden que el del XSLT',
    cfdi({
      raiz: RAIZ.split(/ (?=[A-Z])/)
        .reverse()
        .join(' '),
    }),
  ],
  [
    'requeridos ausentes: | sin valor',
    cfdi({ raiz: RAIZ.replace('Fecha="2025-01-02T03:04:05" ', '').replace('SubTotal="10" ', '') }),
  ],
  [
    'opcionales presentes pero vacíos o en blanco',
    cfdi({ raiz: RAIZ.replace('Serie="A"', 'Serie=""').replace('Folio="7"', 'Folio=" \t "') }),
  ],
  [
    'normalize-space: orillas, tabuladores, saltos, retornos; NBSP se queda',
    cfdi({
      conceptos: CONCEPTO.replace(
        'Descripcion="Venta"',
        'Descripcion="  Venta&#9;de \t  pan&#10;y&#13;&#10;café \u00a0 dulce\u00a0 "',
      ),
    }),
  ],
  [
    'entidades y caracteres especiales',
    cfdi({
      conceptos: CONCEPTO.replace(
        'Descripcion="Venta"',
        `Descripcion="&lt;a&gt; &quot;b&quot; 'c' &amp;amp; 😀 ñ €"`,
      ),
    }),
  ],
  [
    'Addenda ignorada, aunque contenga nodos del CFDI',
    cfdi({
      despues: `<cfdi:Addenda><cfdi:Emisor Rfc="XAXX010101000" Nombre="NO" RegimenFiscal="616"/></cfdi:Addenda>`,
    }),
  ],
  [
    'TFD y complementos desconocidos sin hijos: ignorados',
    cfdi({
      despues:
        '<cfdi:Complemento><x:Otro xmlns:x="urn:otro" a="1"/>' +
        '<tfd:TimbreFiscalDigital xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="1.1" UUID="u"/></cfdi:Complemento>',
    }),
  ],
  [
    'Pagos 2.0: retenciones antes que traslados, en DR y en P',
    cfdi({
      raiz: RAIZ.replace('TipoDeComprobante="I"', 'TipoDeComprobante="P"'),
      despues: `<cfdi:Complemento>${PAGOS20}</cfdi:Complemento>`,
    }),
  ],
  [
    'Pagos 2.0 con otro prefijo, declarado en la raíz',
    cfdi({
      ns: ` xmlns:p="${PAGOS}"`,
      despues: `<cfdi:Complemento>${PAGOS20.replace(/pago20:/g, 'p:').replace(` xmlns:p="${PAGOS}"`, '')}</cfdi:Complemento>`,
    }),
  ],
  [
    'Pagos 2.0 con Totales después de los Pago y varios Pago',
    cfdi({
      despues: `<cfdi:Complemento><pago20:Pagos xmlns:pago20="${PAGOS}" Version="2.0">${PAGO}${PAGO.replace('03', '04')}<pago20:Totales MontoTotalPagos="1"/></pago20:Pagos></cfdi:Complemento>`,
    }),
  ],
  [
    'dos Complemento',
    cfdi({
      despues: `<cfdi:Complemento>${PAGOS20}</cfdi:Complemento><cfdi:Complemento>${PAGOS20}</cfdi:Complemento>`,
    }),
  ],
  [
    'Impuestos globales: retenciones primero aunque vengan después',
    cfdi({
      despues:
        '<cfdi:Impuestos TotalImpuestosTrasladados="1.60" TotalImpuestosRetenidos="1.00"><cfdi:Traslados>' +
        '<cfdi:Traslado Base="10" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="1.60"/>' +
        '<cfdi:Traslado Base="5" Impuesto="002" TipoFactor="Exento"/></cfdi:Traslados>' +
        '<cfdi:Retenciones><cfdi:Retencion Impuesto="001" Importe="1.00"/></cfdi:Retenciones></cfdi:Impuestos>',
    }),
  ],
  [
    'Concepto con todo: terceros, aduana, predial, ComplementoConcepto desconocido y Partes',
    cfdi({
      conceptos:
        '<cfdi:Concepto ClaveProdServ="01010101" NoIdentificacion="X1" Cantidad="2" ClaveUnidad="H87" Unidad="Pieza" Descripcion="D" ValorUnitario="5" Importe="10" Descuento="1" ObjetoImp="02">' +
        '<cfdi:Impuestos><cfdi:Retenciones><cfdi:Retencion Base="9" Impuesto="001" TipoFactor="Tasa" TasaOCuota="0.100000" Importe="0.90"/></cfdi:Retenciones>' +
        '<cfdi:Traslados><cfdi:Traslado Base="9" Impuesto="002" TipoFactor="Exento"/></cfdi:Traslados></cfdi:Impuestos>' +
        '<cfdi:ACuentaTerceros RfcACuentaTerceros="XIA190128J61" NombreACuentaTerceros="T" RegimenFiscalACuentaTerceros="601" DomicilioFiscalACuentaTerceros="76343"/>' +
        '<cfdi:InformacionAduanera NumeroPedimento="21  47  3807  8003832"/><cfdi:InformacionAduanera NumeroPedimento="21  47  3807  8003833"/>' +
        '<cfdi:CuentaPredial Numero="123"/><cfdi:CuentaPredial Numero="456"/>' +
        '<cfdi:ComplementoConcepto><x:Cosa xmlns:x="urn:x" a="1"/></cfdi:ComplementoConcepto>' +
        '<cfdi:Parte ClaveProdServ="01010101" Cantidad="1" Descripcion="P1" Importe="1"><cfdi:InformacionAduanera NumeroPedimento="21  47  3807  8003834"/></cfdi:Parte>' +
        '<cfdi:Parte ClaveProdServ="01010101" NoIdentificacion="N" Cantidad="1" Unidad="U" Descripcion="P2" ValorUnitario="1"/>' +
        `</cfdi:Concepto>${CONCEPTO}`,
    }),
  ],
  [
    'dos Impuestos en un Concepto: todos los traslados y luego todas las retenciones',
    cfdi({
      conceptos: CONCEPTO.replace(
        '</cfdi:Impuestos>',
        '<cfdi:Retenciones><cfdi:Retencion Base="1" Impuesto="001" TipoFactor="Tasa" TasaOCuota="0.1" Importe="0.1"/></cfdi:Retenciones></cfdi:Impuestos>' +
          '<cfdi:Impuestos><cfdi:Traslados><cfdi:Traslado Base="2" Impuesto="003" TipoFactor="Cuota" TasaOCuota="1.5" Importe="3"/></cfdi:Traslados></cfdi:Impuestos>',
      ),
    }),
  ],
  [
    'InformacionGlobal y varios CfdiRelacionados',
    cfdi({
      antes:
        '<cfdi:InformacionGlobal Periodicidad="04" Meses="03" Año="2025"/>' +
        '<cfdi:CfdiRelacionados TipoRelacion="01"><cfdi:CfdiRelacionado UUID="A"/><cfdi:CfdiRelacionado UUID="B"/></cfdi:CfdiRelacionados>' +
        '<cfdi:CfdiRelacionados TipoRelacion="04"><cfdi:CfdiRelacionado UUID="C"/></cfdi:CfdiRelacionados>',
    }),
  ],
  [
    'espacio de nombres por omisión, sin prefijos',
    cfdi().replace(/cfdi:/g, '').replace(`xmlns:cfdi="${CFDI}"`, `xmlns="${CFDI}"`),
  ],
  [
    'un nodo del CFDI dentro del Complemento recibe su plantilla, como en el XSLT',
    cfdi({ despues: '<cfdi:Complemento><cfdi:CuentaPredial Numero="999"/></cfdi:Complemento>' }),
  ],
  [
    'documento con sangría: los espacios entre elementos no cuentan',
    cfdi({ despues: `<cfdi:Complemento>\n  ${PAGOS20.replace(/></g, '>\n    <')}\n</cfdi:Complemento>\n` }),
  ],
];

describe('reglas del XSLT de la cadena original, contra xsltproc', () => {
  const temporal = directorioTemporal('cfdi-reglas-');
  afterAll(() => temporal.borrar());
  const archivos = CASOS.map(([, xml], k) => {
    const archivo = join(temporal.ruta, `${k}.xml`);
    writeFileSync(archivo, xml, 'utf8');
    return archivo;
  });
  let porXslt: string[] = [];
  beforeAll(async () => {
    porXslt = await xsltprocLote(archivos);
  });

  it.each(CASOS.map(([nombre, xml], k) => [nombre, xml, k] as const))('%s', (_n, xml, k) => {
    expect(cadenaOriginal(parsear(xml))).toBe(porXslt[k]);
  });

  it('los casos dicen lo que su nombre promete', () => {
    const cadena = (k: number): string => cadenaOriginal(parsear(CASOS[k]?.[1] as string));
    expect(cadena(0)).toBe(
      '||4.0|A|7|2025-01-02T03:04:05|01|30001000000500003416|10|MXN|11.60|I|01|PUE|42501|EKU9003173C9|ESCUELA KEMPER URGATE|601|' +
        'H&E951128469|H & E|86991|601|G03|01010101|1|ACT|Venta|10|10|02|10|002|Tasa|0.160000|1.60||',
    );
    expect(cadena(1)).toBe(cadena(0));
    expect(cadena(2)).toMatch(/^\|\|4\.0\|A\|7\|\|01\|30001000000500003416\|\|MXN\|/);
    expect(cadena(3)).toMatch(/^\|\|4\.0\|\|\|2025-01-02T03:04:05\|/);
    expect(cadena(4)).toContain('|Venta de pan y café \u00a0 dulce\u00a0|');
    expect(cadena(6)).toBe(cadena(0));
    expect(cadena(7)).toBe(cadena(0));
  });
});

describe('lo que la cadena no puede calcular se rechaza', () => {
  const enComplemento = (x: string): string => cfdi({ despues: `<cfdi:Complemento>${x}</cfdi:Complemento>` });
  it.each([
    [
      'un complemento del XSLT que no implementamos',
      enComplemento(
        '<implocal:ImpuestosLocales xmlns:implocal="http://www.sat.gob.mx/implocal" version="1.0" TotaldeRetenciones="0" TotaldeTraslados="0"/>',
      ),
    ],
    [
      'un complemento de concepto del XSLT',
      cfdi({
        conceptos: CONCEPTO.replace(
          '</cfdi:Concepto>',
          '<cfdi:ComplementoConcepto><iedu:instEducativas xmlns:iedu="http://www.sat.gob.mx/iedu" version="1.0"/></cfdi:ComplementoConcepto></cfdi:Concepto>',
        ),
      }),
    ],
    [
      'un elemento sin plantilla que tiene hijos',
      enComplemento('<x:Otro xmlns:x="urn:otro"><x:Sub/></x:Otro>'),
    ],
  ])('%s', (_n, xml) => {
    expect(() => cadenaOriginal(parsear(xml))).toThrow(/Complemento no soportado en la cadena original/);
  });

  it('una raíz que no es cfdi:Comprobante 4.0', () => {
    expect(() =>
      cadenaOriginal(parsear('<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/3" Version="3.3"/>')),
    ).toThrow(/cfdi:Comprobante 4.0/);
    expect(() => cadenaOriginal(parsear(`<cfdi:Otro xmlns:cfdi="${CFDI}"/>`))).toThrow(
      /cfdi:Comprobante 4.0/,
    );
  });
});

describe('cadena del TimbreFiscalDigital 1.1', () => {
  const TFD = 'xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital"';
  it.each([
    [
      'sin Leyenda',
      `<tfd:TimbreFiscalDigital ${TFD} SelloSAT="Z" NoCertificadoSAT="30001000000500003456" SelloCFD="abc" RfcProvCertif="SAT970701NN3" FechaTimbrado="2025-01-01T00:00:00" UUID="6F35D3B5-3651-5370-BC2C-14CDBE384CD7" Version="1.1"/>`,
    ],
    [
      'con Leyenda y espacios',
      `<tfd:TimbreFiscalDigital ${TFD} Version="1.1" UUID="u" FechaTimbrado="f" RfcProvCertif="r" Leyenda="  Una   leyenda &amp; más " SelloCFD="s" NoCertificadoSAT="n" SelloSAT="z"/>`,
    ],
    [
      'sin UUID (requerido)',
      `<tfd:TimbreFiscalDigital ${TFD} Version="1.1" FechaTimbrado="f" RfcProvCertif="r" SelloCFD="s" NoCertificadoSAT="n"/>`,
    ],
  ])('%s', (_n, xml) => {
    expect(cadenaTfd(parsear(xml))).toBe(cadenaTfdPorXslt(xml));
  });

  it('rechaza lo que no es un TFD', () => {
    expect(() => cadenaTfd(parsear(`<cfdi:Comprobante xmlns:cfdi="${CFDI}"/>`))).toThrow(
      /TimbreFiscalDigital/,
    );
    expect(() => cadenaTfd(parsear('<tfd:TimbreFiscalDigital xmlns:tfd="urn:otro"/>'))).toThrow(
      /TimbreFiscalDigital/,
    );
  });
});

describe('normalizarEspacios (XPath normalize-space)', () => {
  it.each([
    ['', ''],
    ['a', 'a'],
    ['a b', 'a b'],
    [' a', 'a'],
    ['a ', 'a'],
    ['  a  b  ', 'a b'],
    ['a\tb', 'a b'],
    ['a\r\nb', 'a b'],
    [' \t\n\r ', ''],
    ['a\u00a0b', 'a\u00a0b'],
    ['\u00a0a\u2003', '\u00a0a\u2003'],
  ])('%j → %j', (entrada, salida) => {
    expect(normalizarEspacios(entrada)).toBe(salida);
  });

  it('devuelve la misma cadena (sin copiar) cuando ya está normalizada', () => {
    const s = 'ESCUELA KEMPER URGATE';
    expect(normalizarEspacios(s)).toBe(s);
  });
});
