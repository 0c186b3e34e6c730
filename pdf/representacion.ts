import { cadenaTfd } from '../cfdi/cadena';
import { d } from '../cfdi/decimal';
import { urlVerificacionDe } from '../cfdi/qr';
import { extraerTimbre } from '../cfdi/timbre';
import { partesNombre } from '../cfdi/xml/espacios';
import type { Nodo } from '../cfdi/xml/nodo';
import { parsear } from '../cfdi/xml/parsear';
import { importeConLetra } from './importe-con-letra';
import { qrSvg } from './qr-svg';

/**
 * The SAT's printed representation of a stamped CFDI 4.0 (with Pagos 2.0 when type P) as one
 * self-contained HTML document: inline CSS and SVG, system fonts only, no scripts and no external
 * resources, so Chromium prints it without touching the network or the disk.
 */

/** The SAT catalogs whose descriptions are printed next to the codes. */
export type CatalogoDescripcion =
  | 'regimen_fiscal'
  | 'uso_cfdi'
  | 'forma_pago'
  | 'metodo_pago'
  | 'moneda'
  | 'clave_unidad'
  | 'objeto_imp'
  | 'exportacion'
  | 'tipo_relacion'
  | 'tipo_comprobante'
  | 'impuesto'
  | 'periodicidad'
  | 'meses';

/** Description of a code, or undefined when unknown (then only the code is printed). */
export type Descripciones = (catalogo: CatalogoDescripcion, clave: string) => string | undefined;

export interface OpcionesRepresentacion {
  /** The organization's color, `#RRGGBB` or `#RGB`: headings, table headers and rules. */
  colorAcento: string;
  descripciones?: Descripciones;
}

export const LEYENDA = 'Este documento es una representación impresa de un CFDI';

/** Anexo 20 asks for a QR of at least 2.75 cm; a little more leaves room for printer spread. */
export const LADO_QR_MM = 30;

// Part of the CFDI format itself rather than catalogs that change: always available.
const TIPOS: Readonly<Record<string, { descripcion: string; titulo: string }>> = {
  I: { descripcion: 'Ingreso', titulo: 'Factura' },
  E: { descripcion: 'Egreso', titulo: 'Nota de crédito' },
  T: { descripcion: 'Traslado', titulo: 'Traslado' },
  N: { descripcion: 'Nómina', titulo: 'Recibo de nómina' },
  P: { descripcion: 'Pago', titulo: 'Recibo de pago' },
};
const IMPUESTOS: Readonly<Record<string, string>> = { '001': 'ISR', '002': 'IVA', '003': 'IEPS' };

export function htmlRepresentacion(xmlTimbrado: string | Nodo, opciones: OpcionesRepresentacion): string {
  const comprobante = typeof xmlTimbrado === 'string' ? parsear(xmlTimbrado) : xmlTimbrado;
  if (local(comprobante) !== 'Comprobante') {
    throw new Error(`Se esperaba un cfdi:Comprobante y llegó <${comprobante.nombre}>`);
  }
  const tfd = extraerTimbre(comprobante);
  if (!tfd) throw new Error('El comprobante no está timbrado: no tiene TimbreFiscalDigital');
  const colores = paleta(opciones.colorAcento);
  const r = new Redactor(opciones.descripciones ?? (() => undefined));

  const a = comprobante.atributos;
  const tipo = a['TipoDeComprobante'] ?? '';
  const emisor = hijo(comprobante, 'Emisor');
  const receptor = hijo(comprobante, 'Receptor');
  const complemento = hijo(comprobante, 'Complemento');
  const pagos = hijo(complemento, 'Pagos');
  const uuid = tfd.atributos['UUID'] ?? '';

  const cuerpo = [
    cabecera(r, comprobante, emisor, tfd),
    `<div class="bloques">`,
    seccion('Receptor', r.datos(datosReceptor(r, receptor))),
    seccion('Datos del comprobante', r.datos(datosComprobante(r, comprobante))),
    `</div>`,
    relacionados(r, comprobante),
    conceptos(r, comprobante),
    tipo === 'P' ? '' : resumen(r, comprobante),
    pagos ? seccionPagos(r, pagos) : '',
    timbre(r, comprobante, tfd),
  ].join('');

  return (
    `<!DOCTYPE html><html lang="es"><head><meta charset="utf-8">` +
    `<title>CFDI ${esc(uuid)}</title><style>${hojaDeEstilo(colores, uuid)}</style></head>` +
    `<body>${cuerpo}</body></html>`
  );
}

// ---------------------------------------------------------------------------------------------------------
// Sections

function cabecera(r: Redactor, c: Nodo, emisor: Nodo | undefined, tfd: Nodo): string {
  const a = c.atributos;
  const e = emisor?.atributos ?? {};
  const tipo = TIPOS[a['TipoDeComprobante'] ?? ''];
  const serieFolio = [a['Serie'], a['Folio']].filter(Boolean).join('-');
  return (
    `<header class="cabecera"><div class="emisor">` +
    `<div class="emisor-nombre">${esc(e['Nombre'] ?? '')}</div>` +
    r.datos([
      ['RFC', esc(e['Rfc'])],
      ['Régimen fiscal', r.codigo('regimen_fiscal', e['RegimenFiscal'])],
      ['Fact. atr. adquirente', esc(e['FacAtrAdquirente'])],
    ]) +
    `</div><div class="documento">` +
    `<div class="titulo">${esc(tipo?.titulo ?? 'CFDI')}</div>` +
    `<div class="subtitulo">CFDI ${esc(a['Version'] ?? '')}${tipo ? ` · ${esc(tipo.descripcion)}` : ''}</div>` +
    (serieFolio ? `<div class="serie-folio">${esc(serieFolio)}</div>` : '') +
    `<div class="folio-fiscal"><span>Folio fiscal</span>${esc(tfd.atributos['UUID'])}</div>` +
    `<div class="fecha"><span>Emisión</span>${fecha(a['Fecha'])}</div>` +
    `</div></header>`
  );
}

function datosReceptor(r: Redactor, receptor: Nodo | undefined): Fila[] {
  const a = receptor?.atributos ?? {};
  return [
    ['RFC', esc(a['Rfc'])],
    ['Nombre', esc(a['Nombre'])],
    ['Domicilio fiscal', esc(a['DomicilioFiscalReceptor'])],
    ['Residencia fiscal', esc(a['ResidenciaFiscal'])],
    ['Núm. reg. id. trib.', esc(a['NumRegIdTrib'])],
    ['Régimen fiscal', r.codigo('regimen_fiscal', a['RegimenFiscalReceptor'])],
    ['Uso del CFDI', r.codigo('uso_cfdi', a['UsoCFDI'])],
  ];
}

function datosComprobante(r: Redactor, c: Nodo): Fila[] {
  const a = c.atributos;
  const global = hijo(c, 'InformacionGlobal')?.atributos;
  const tipo = a['TipoDeComprobante'];
  return [
    ['Tipo de comprobante', r.codigo('tipo_comprobante', tipo, TIPOS[tipo ?? '']?.descripcion)],
    ['Lugar de expedición', esc(a['LugarExpedicion'])],
    ['Exportación', r.codigo('exportacion', a['Exportacion'])],
    [
      'Moneda',
      a['TipoCambio'] === undefined
        ? r.codigo('moneda', a['Moneda'])
        : `${r.codigo('moneda', a['Moneda']) ?? ''} · tipo de cambio ${esc(a['TipoCambio'])}`,
    ],
    ['Forma de pago', r.codigo('forma_pago', a['FormaPago'])],
    ['Método de pago', r.codigo('metodo_pago', a['MetodoPago'])],
    ['Condiciones de pago', esc(a['CondicionesDePago'])],
    [
      'Información global',
      global
        ? `${r.codigo('periodicidad', global['Periodicidad'])}; ${r.codigo('meses', global['Meses'])}; ` +
          `año ${esc(global['Año'] ?? '')}`
        : undefined,
    ],
  ];
}

function relacionados(r: Redactor, c: Nodo): string {
  const grupos = hijos(c, 'CfdiRelacionados');
  if (grupos.length === 0) return '';
  const filas = grupos.map(
    (g) =>
      `<tr><td>${r.codigo('tipo_relacion', g.atributos['TipoRelacion'])}</td>` +
      `<td class="uuid">${hijos(g, 'CfdiRelacionado')
        .map((u) => esc(u.atributos['UUID']))
        .join('<br>')}</td></tr>`,
  );
  return seccion(
    'CFDI relacionados',
    `<table class="tabla"><thead><tr><th>Tipo de relación</th><th>Folio fiscal (UUID)</th></tr></thead>` +
      `<tbody>${filas.join('')}</tbody></table>`,
  );
}

function conceptos(r: Redactor, c: Nodo): string {
  const lista = hijos(hijo(c, 'Conceptos'), 'Concepto');
  const conDescuento = lista.some((k) => k.atributos['Descuento'] !== undefined);
  const columnas = conDescuento ? 8 : 7;
  const cuerpos = lista.map((k) => {
    const a = k.atributos;
    const unidad = a['Unidad'] ?? r.descripcion('clave_unidad', a['ClaveUnidad'] ?? '');
    const detalle = detalleConcepto(r, k);
    return (
      `<tbody class="concepto"><tr>` +
      `<td>${esc(a['ClaveProdServ'])}</td>` +
      `<td class="corte">${esc(a['NoIdentificacion'])}</td>` +
      `<td class="num">${esc(a['Cantidad'])}</td>` +
      `<td><b>${esc(a['ClaveUnidad'])}</b>${unidad ? `<div class="nota">${esc(unidad)}</div>` : ''}</td>` +
      `<td class="descripcion">${esc(a['Descripcion'])}</td>` +
      `<td class="num">${importe(a['ValorUnitario'])}</td>` +
      (conDescuento ? `<td class="num">${importe(a['Descuento'])}</td>` : '') +
      `<td class="num">${importe(a['Importe'])}</td>` +
      `</tr><tr class="detalle"><td colspan="4"></td><td colspan="${columnas - 4}">${detalle}</td></tr></tbody>`
    );
  });
  return (
    `<table class="tabla conceptos"><colgroup><col style="width:16mm"><col style="width:23mm">` +
    `<col style="width:15mm"><col style="width:19mm"><col><col style="width:22mm">` +
    (conDescuento ? `<col style="width:19mm">` : '') +
    `<col style="width:22mm"></colgroup><thead><tr>` +
    `<th>Clave prod./serv.</th><th>No. ident.</th><th class="num">Cantidad</th>` +
    `<th>Unidad</th><th>Descripción</th><th class="num">Valor unitario</th>` +
    (conDescuento ? `<th class="num">Descuento</th>` : '') +
    `<th class="num">Importe</th></tr></thead>${cuerpos.join('')}</table>`
  );
}

/** Objeto imp., the concept's taxes and its other nodes, one short line each. */
function detalleConcepto(r: Redactor, k: Nodo): string {
  const lineas = [`<span class="et">Objeto imp.</span> ${r.codigo('objeto_imp', k.atributos['ObjetoImp'])}`];
  const impuestos = hijo(k, 'Impuestos');
  for (const t of hijos(hijo(impuestos, 'Traslados'), 'Traslado'))
    lineas.push(lineaImpuesto(r, 'Traslado', t));
  for (const t of hijos(hijo(impuestos, 'Retenciones'), 'Retencion')) {
    lineas.push(lineaImpuesto(r, 'Retención', t));
  }
  const terceros = hijo(k, 'ACuentaTerceros')?.atributos;
  if (terceros) {
    lineas.push(
      `<span class="et">A cuenta de terceros</span> ${esc(terceros['RfcACuentaTerceros'])} ` +
        `${esc(terceros['NombreACuentaTerceros'])} · régimen ${r.codigo('regimen_fiscal', terceros['RegimenFiscalACuentaTerceros'])}` +
        ` · domicilio ${esc(terceros['DomicilioFiscalACuentaTerceros'])}`,
    );
  }
  for (const p of hijos(k, 'InformacionAduanera')) {
    lineas.push(`<span class="et">Pedimento</span> ${esc(p.atributos['NumeroPedimento'])}`);
  }
  for (const p of hijos(k, 'CuentaPredial')) {
    lineas.push(`<span class="et">Cuenta predial</span> ${esc(p.atributos['Numero'])}`);
  }
  for (const p of hijos(k, 'Parte')) {
    const b = p.atributos;
    lineas.push(
      `<span class="et">Parte</span> ${esc(b['ClaveProdServ'])} · ${esc(b['Cantidad'])} ` +
        `${esc(b['Unidad'] ?? '')} · ${esc(b['Descripcion'])}` +
        (b['Importe'] ? ` · ${importe(b['Importe'])}` : ''),
    );
  }
  return lineas.map((l) => `<div>${l}</div>`).join('');
}

function lineaImpuesto(r: Redactor, clase: string, t: Nodo): string {
  const a = t.atributos;
  const partes = [`<span class="et">${clase}</span> ${esc(nombreImpuesto(r, a['Impuesto']))} ${tasa(a)}`];
  if (a['Base'] !== undefined) partes.push(`base ${importe(a['Base'])}`);
  if (a['Importe'] !== undefined) partes.push(`importe ${importe(a['Importe'])}`);
  return partes.join(' · ');
}

function resumen(r: Redactor, c: Nodo): string {
  const a = c.atributos;
  const moneda = a['Moneda'] ?? '';
  const impuestos = hijo(c, 'Impuestos');
  const filas: string[] = [fila('Subtotal', importe(a['SubTotal']))];
  if (a['Descuento'] !== undefined) filas.push(fila('Descuento', importe(a['Descuento'])));
  for (const t of hijos(hijo(impuestos, 'Traslados'), 'Traslado')) {
    const b = t.atributos;
    const etiqueta = `${esc(nombreImpuesto(r, b['Impuesto']))} trasladado ${tasa(b)}`;
    // An exempt row has no amount: show its base so the line still says something.
    filas.push(fila(etiqueta, b['Importe'] ? importe(b['Importe']) : `base ${importe(b['Base'])}`));
  }
  for (const t of hijos(hijo(impuestos, 'Retenciones'), 'Retencion')) {
    filas.push(
      fila(`${esc(nombreImpuesto(r, t.atributos['Impuesto']))} retenido`, importe(t.atributos['Importe'])),
    );
  }
  let letra = '';
  try {
    letra = importeConLetra(a['Total'] ?? '', moneda);
  } catch {
    // A total the words cannot express (malformed): the figures still print.
  }
  return (
    `<div class="resumen"><div class="letra">` +
    (letra ? `<h2>Importe con letra</h2><p class="en-letra">${esc(letra)}</p>` : '') +
    `</div><table class="totales"><tbody>${filas.join('')}` +
    `<tr class="total"><th>Total</th><td class="num">${esc(moneda)} ${importe(a['Total'])}</td></tr>` +
    `</tbody></table></div>`
  );
}

function seccionPagos(r: Redactor, pagos: Nodo): string {
  const partes: string[] = [];
  const totales = hijo(pagos, 'Totales')?.atributos;
  for (const p of hijos(pagos, 'Pago')) {
    const a = p.atributos;
    const monedaP = a['MonedaP'] ?? '';
    let letra: string | undefined;
    try {
      letra = importeConLetra(a['Monto'] ?? '', monedaP);
    } catch {
      letra = undefined;
    }
    const datos = r.datos(
      [
        ['Fecha de pago', a['FechaPago'] ? fecha(a['FechaPago']) : undefined],
        ['Forma de pago', r.codigo('forma_pago', a['FormaDePagoP'])],
        ['Moneda', r.codigo('moneda', monedaP)],
        ['Tipo de cambio', esc(a['TipoCambioP'])],
        ['Monto', a['Monto'] ? `<b>${esc(monedaP)} ${importe(a['Monto'])}</b>` : undefined],
        ['Núm. de operación', esc(a['NumOperacion'])],
        ['Cuenta ordenante', esc(cuenta(a['RfcEmisorCtaOrd'], a['NomBancoOrdExt'], a['CtaOrdenante']))],
        ['Cuenta beneficiaria', esc(cuenta(a['RfcEmisorCtaBen'], undefined, a['CtaBeneficiario']))],
        ['Monto con letra', esc(letra), true],
      ],
      true,
    );
    const documentos = hijos(p, 'DoctoRelacionado').map((dr) => {
      const b = dr.atributos;
      return (
        `<tr><td class="uuid">${esc(b['IdDocumento'])}</td>` +
        `<td>${esc([b['Serie'], b['Folio']].filter(Boolean).join('-'))}</td>` +
        `<td>${esc(b['MonedaDR'])}</td><td class="num">${esc(b['EquivalenciaDR'])}</td>` +
        `<td class="num">${esc(b['NumParcialidad'])}</td>` +
        `<td class="num">${importe(b['ImpSaldoAnt'])}</td><td class="num">${importe(b['ImpPagado'])}</td>` +
        `<td class="num">${importe(b['ImpSaldoInsoluto'])}</td><td>${esc(b['ObjetoImpDR'])}</td></tr>`
      );
    });
    const impuestosP = hijo(p, 'ImpuestosP');
    const lineas = [
      ...hijos(hijo(impuestosP, 'TrasladosP'), 'TrasladoP').map((t) =>
        lineaImpuesto(r, 'Traslado', sinSufijo(t, 'P')),
      ),
      ...hijos(hijo(impuestosP, 'RetencionesP'), 'RetencionP').map((t) =>
        lineaImpuesto(r, 'Retención', sinSufijo(t, 'P')),
      ),
    ];
    partes.push(
      `<div class="pago">${datos}` +
        `<table class="tabla documentos"><colgroup><col style="width:56mm"><col style="width:17mm">` +
        `<col style="width:14mm"><col style="width:15mm"><col style="width:15mm"><col><col><col>` +
        `<col style="width:13mm"></colgroup><thead><tr><th>Documento relacionado (UUID)</th><th>Serie-folio</th>` +
        `<th>Moneda</th><th class="num">Equiv.</th><th class="num">Parcial.</th>` +
        `<th class="num">Saldo anterior</th><th class="num">Importe pagado</th>` +
        `<th class="num">Saldo insoluto</th><th>Obj. imp.</th></tr></thead>` +
        `<tbody>${documentos.join('')}</tbody></table>` +
        (lineas.length
          ? `<div class="impuestos-pago">${lineas.map((l) => `<div>${l}</div>`).join('')}</div>`
          : '') +
        `</div>`,
    );
  }
  if (totales) {
    const etiquetas: Record<string, string> = {
      TotalRetencionesIVA: 'Total retenciones IVA',
      TotalRetencionesISR: 'Total retenciones ISR',
      TotalRetencionesIEPS: 'Total retenciones IEPS',
      TotalTrasladosBaseIVA16: 'Base IVA 16%',
      TotalTrasladosImpuestoIVA16: 'IVA 16%',
      TotalTrasladosBaseIVA8: 'Base IVA 8%',
      TotalTrasladosImpuestoIVA8: 'IVA 8%',
      TotalTrasladosBaseIVA0: 'Base IVA 0%',
      TotalTrasladosImpuestoIVA0: 'IVA 0%',
      TotalTrasladosBaseIVAExento: 'Base IVA exento',
    };
    const filas = Object.entries(etiquetas)
      .filter(([k]) => totales[k] !== undefined)
      .map(([k, v]) => fila(v, importe(totales[k])));
    partes.push(
      `<div class="resumen"><div></div><table class="totales"><tbody>${filas.join('')}` +
        `<tr class="total"><th>Monto total de pagos</th><td class="num">MXN ${importe(totales['MontoTotalPagos'])}</td></tr>` +
        `</tbody></table></div>`,
    );
  }
  return seccion(`Complemento de pagos ${esc(pagos.atributos['Version'] ?? '')}`, partes.join(''));
}

function timbre(r: Redactor, c: Nodo, tfd: Nodo): string {
  const a = tfd.atributos;
  const datos = r.datos(
    [
      ['Folio fiscal (UUID)', `<b>${esc(a['UUID'])}</b>`, true],
      ['No. de serie del CSD del emisor', esc(c.atributos['NoCertificado'])],
      ['Fecha y hora de certificación', a['FechaTimbrado'] ? fecha(a['FechaTimbrado']) : undefined],
      ['No. de serie del certificado del SAT', esc(a['NoCertificadoSAT'])],
      ['RFC del PAC', esc(a['RfcProvCertif'])],
      ['Leyenda del PAC', esc(a['Leyenda']), true],
    ],
    true,
  );
  const bloque = (titulo: string, texto: string | undefined) =>
    `<div class="sello"><h3>${titulo}</h3><p class="mono">${esc(texto ?? '')}</p></div>`;
  return (
    `<section class="timbre"><h2>Timbre fiscal digital</h2><div class="timbre-cuerpo">` +
    `<div class="qr">${qrSvg(urlVerificacionDe(c), LADO_QR_MM)}</div>` +
    `<div class="timbre-datos">${datos}` +
    bloque('Sello digital del CFDI', c.atributos['Sello']) +
    bloque('Sello del SAT', a['SelloSAT']) +
    bloque('Cadena original del complemento de certificación digital del SAT', cadenaTfd(tfd)) +
    `</div></div><p class="leyenda">${LEYENDA}</p></section>`
  );
}

// ---------------------------------------------------------------------------------------------------------
// Pieces

/** A label and its value as HTML (already escaped); rows without a value are left out. */
type Fila = [etiqueta: string, html: string | undefined, ancha?: boolean];

class Redactor {
  constructor(private readonly buscar: Descripciones) {}

  descripcion(catalogo: CatalogoDescripcion, clave: string): string | undefined {
    return this.buscar(catalogo, clave) ?? undefined;
  }

  /** "601 – General de Ley Personas Morales", or just the code when its description is unknown. */
  codigo(catalogo: CatalogoDescripcion, clave: string | undefined, respaldo?: string): string | undefined {
    if (clave === undefined) return undefined;
    const texto = this.descripcion(catalogo, clave) ?? respaldo;
    return texto ? `${esc(clave)} <span class="desc">– ${esc(texto)}</span>` : esc(clave);
  }

  /** A label/value list; `dos` lays it out in two pairs per line, a wide row taking a whole line. */
  datos(filas: Fila[], dos = false): string {
    const presentes = filas.filter((f) => f[1] !== undefined && f[1] !== '');
    const html = presentes.map(
      ([e, v, ancha]) => `<dt>${e}</dt><dd${ancha ? ' class="ancha"' : ''}>${v}</dd>`,
    );
    return `<dl class="datos${dos ? ' dos' : ''}">${html.join('')}</dl>`;
  }
}

function nombreImpuesto(r: Redactor, clave: string | undefined): string {
  if (clave === undefined) return '';
  return r.descripcion('impuesto', clave) ?? IMPUESTOS[clave] ?? clave;
}

/** "16%", "10.6667%", "cuota 0.5000", "exento". */
function tasa(a: Record<string, string>): string {
  const factor = a['TipoFactor'];
  const valor = a['TasaOCuota'];
  if (factor === 'Exento') return 'exento';
  if (valor === undefined || !/^[0-9]+(\.[0-9]+)?$/.test(valor)) return esc(valor ?? '');
  if (factor === 'Cuota') return `cuota ${esc(valor)}`;
  return `${d(valor).times(100).toString()}%`;
}

/** Pagos 2.0 names tax attributes with a suffix (ImpuestoP, BaseP…): strip it to reuse lineaImpuesto. */
function sinSufijo(n: Nodo, sufijo: string): Nodo {
  const atributos: Record<string, string> = {};
  for (const [k, v] of Object.entries(n.atributos)) {
    atributos[k.endsWith(sufijo) ? k.slice(0, -sufijo.length) : k] = v;
  }
  return { ...n, atributos };
}

function cuenta(rfcBanco?: string, banco?: string, numero?: string): string | undefined {
  const partes = [rfcBanco, banco, numero].filter(Boolean);
  return partes.length ? partes.join(' · ') : undefined;
}

const seccion = (titulo: string, contenido: string) => `<section><h2>${titulo}</h2>${contenido}</section>`;
const fila = (etiqueta: string, valor: string) =>
  `<tr><th>${etiqueta}</th><td class="num">${valor}</td></tr>`;

/** `1234567.500000` → `1,234,567.500000`: thousands separated, decimals exactly as stamped. */
export function importe(valor: string | undefined): string {
  if (valor === undefined) return '';
  const m = /^([0-9]+)(\.[0-9]+)?$/.exec(valor);
  if (!m) return esc(valor);
  return m[1]!.replace(/\B(?=([0-9]{3})+$)/g, ',') + (m[2] ?? '');
}

const fecha = (f: string | undefined): string => esc(f?.replace('T', ' '));

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text → HTML text or attribute value. */
export function esc(texto: string | undefined): string {
  return texto === undefined ? '' : texto.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const local = (n: Nodo): string => partesNombre(n.nombre)[1];
const hijo = (n: Nodo | undefined, nombre: string): Nodo | undefined =>
  n?.hijos.find((h) => local(h) === nombre);
const hijos = (n: Nodo | undefined, nombre: string): Nodo[] =>
  n?.hijos.filter((h) => local(h) === nombre) ?? [];

// ---------------------------------------------------------------------------------------------------------
// Style

interface Paleta {
  acento: string;
  /** Text on an accent background: white, or near-black when the accent is light. */
  sobreAcento: string;
  /** The accent mixed into white, for quiet backgrounds. */
  tinte: string;
}

function paleta(color: string): Paleta {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color);
  if (!m) throw new Error(`colorAcento inválido: "${color}" (se espera #RRGGBB)`);
  const hex = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!;
  const rgb = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  // WCAG relative luminance decides which text color reads on the accent.
  const lineal = rgb.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  const luminancia = 0.2126 * lineal[0]! + 0.7152 * lineal[1]! + 0.0722 * lineal[2]!;
  const tinte = rgb.map((v) => Math.round(255 - (255 - v) * 0.08));
  return {
    acento: `#${hex.toUpperCase()}`,
    sobreAcento: luminancia > 0.45 ? '#111111' : '#FFFFFF',
    tinte: `#${tinte
      .map((v) => v.toString(16).padStart(2, '0'))
      .join('')
      .toUpperCase()}`,
  };
}

const UUID = /^[0-9A-Fa-f-]{36}$/;

function hojaDeEstilo(p: Paleta, uuid: string): string {
  const letra = `"Liberation Sans", Arial, "DejaVu Sans", Helvetica, sans-serif`;
  // Only a well-formed UUID goes into a CSS string; anything else could close the string.
  const pie = UUID.test(uuid) ? `"Folio fiscal ${uuid} · Página "` : `"Página "`;
  return `
@page {
  size: letter;
  margin: 12mm 12mm 15mm;
  @bottom-left { content: "${LEYENDA}"; font: 6.5pt ${letra}; color: #6b6b6b; }
  @bottom-right { content: ${pie} counter(page) " de " counter(pages); font: 6.5pt ${letra}; color: #6b6b6b; }
}
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; font: 8pt/1.35 ${letra}; color: #1f1f1f; }
h2 {
  margin: 0 0 1.6mm; padding-bottom: 0.8mm; border-bottom: 0.35mm solid ${p.acento};
  font-size: 7pt; letter-spacing: 0.07em; text-transform: uppercase; color: ${p.acento};
}
h3 { margin: 1.8mm 0 0.4mm; font-size: 6.8pt; color: ${p.acento}; }
section { margin-top: 4.5mm; }
.cabecera {
  display: flex; justify-content: space-between; gap: 8mm;
  padding-bottom: 3mm; border-bottom: 0.9mm solid ${p.acento};
}
.emisor-nombre { margin-bottom: 1.6mm; font-size: 14pt; font-weight: bold; line-height: 1.15; color: ${p.acento}; }
.documento { min-width: 64mm; text-align: right; }
.titulo { font-size: 14pt; font-weight: bold; letter-spacing: 0.03em; text-transform: uppercase; color: ${p.acento}; }
.subtitulo { margin-bottom: 1.4mm; color: #6b6b6b; }
.serie-folio { margin-bottom: 1.2mm; font-size: 11pt; font-weight: bold; }
.folio-fiscal, .fecha { font-size: 7.5pt; }
.folio-fiscal span, .fecha span { margin-right: 1.5mm; color: #6b6b6b; }
.bloques { display: grid; grid-template-columns: 1fr 1fr; gap: 6mm; }
dl.datos { display: grid; grid-template-columns: max-content 1fr; gap: 0.5mm 3mm; margin: 0; }
dl.datos.dos { grid-template-columns: max-content 1fr max-content 1fr; }
dl.datos.dos dd.ancha { grid-column: span 3; }
/* A wide value's label starts a row of its own: after an odd number of pairs it would sit in column 3. */
dl.datos.dos dt:has(+ dd.ancha) { grid-column: 1; }
dl.datos dt { color: #6b6b6b; }
dl.datos dd { margin: 0; overflow-wrap: anywhere; }
.desc { color: #4a4a4a; }
.tabla { width: 100%; border-collapse: collapse; table-layout: fixed; margin-top: 0; }
.conceptos { margin-top: 5mm; }
.tabla th {
  padding: 1.3mm 1.4mm; background: ${p.acento}; color: ${p.sobreAcento};
  font-size: 6.4pt; font-weight: bold; letter-spacing: 0.03em; text-transform: uppercase; text-align: left;
}
.tabla td { padding: 1.2mm 1.4mm 0.6mm; font-size: 7.6pt; vertical-align: top; }
.num { text-align: right; }
td.num { white-space: nowrap; font-variant-numeric: tabular-nums; }
.tabla > tbody > tr:last-child td { border-bottom: 0.2mm solid #d9d9d9; }
tbody.concepto { break-inside: avoid; }
tbody.concepto:nth-of-type(even) td { background: ${p.tinte}; }
tr.detalle td { padding-top: 0; padding-bottom: 1.2mm; font-size: 6.6pt; color: #555; }
.et { color: ${p.acento}; font-weight: bold; }
.nota { font-size: 6.6pt; color: #6b6b6b; }
.descripcion, .corte, .uuid { overflow-wrap: anywhere; }
.tabla td.uuid { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 6.6pt; }
.resumen { display: grid; grid-template-columns: 1fr 72mm; gap: 8mm; margin-top: 3.5mm; break-inside: avoid; }
.en-letra { margin: 0; font-weight: bold; }
.totales { width: 100%; border-collapse: collapse; }
.totales th { padding: 0.8mm 0; font-weight: normal; color: #4a4a4a; text-align: left; }
.totales td { padding: 0.8mm 0; }
.totales tr.total th, .totales tr.total td {
  padding-top: 1.6mm; border-top: 0.5mm solid ${p.acento}; font-size: 10.5pt; font-weight: bold; color: ${p.acento};
}
.pago { margin-bottom: 3mm; break-inside: avoid; }
.pago dl.datos { margin-bottom: 2mm; }
.impuestos-pago { margin-top: 1mm; font-size: 6.8pt; color: #555; }
.timbre { break-inside: avoid; }
.timbre-cuerpo { display: grid; grid-template-columns: ${LADO_QR_MM + 6}mm 1fr; gap: 4mm; }
.qr { padding: 3mm; }
.qr svg { display: block; }
.sello h3 { margin-top: 1.6mm; }
.mono {
  margin: 0; font: 6.1pt/1.3 "DejaVu Sans Mono", "Liberation Mono", monospace; color: #333;
  word-break: break-all; overflow-wrap: anywhere;
}
.leyenda {
  margin: 3mm 0 0; padding: 1.4mm 2mm; background: ${p.tinte}; border-left: 0.8mm solid ${p.acento};
  font-size: 7.5pt; font-weight: bold; text-align: center;
}
`;
}
