import type { Nodo } from '../xml/nodo';
import { AMBITO_VACIO, ambitoDe, NS_CFDI40, NS_PAGOS20, partesNombre, type Ambito } from '../xml/espacios';
import { campos, emitir, enmarcar, tablaDeNombres } from './campos';
import { nombresPagos20, PLANTILLAS_PAGOS20 } from './pagos20';

/**
 * Cadena original of a CFDI 4.0, exactly as the SAT's cadenaoriginal_4_0.xslt (with Pagos20.xslt) prints
 * it. Each `xsl:template match="cfdi:…"` is one function below, with its fields as a declarative list and
 * its `select`s as loops in the same order. Elements are recognized by namespace (resolved once at the
 * root and again at complements), as the XSLT does, not by a hard-coded `cfdi:` prefix.
 *
 * Ignored, as in the XSLT: Sello and Certificado, the Addenda, the TimbreFiscalDigital and any other
 * childless element the XSLT has no template for. Refused with an error instead of a wrong cadena:
 * complements the XSLT has templates for but we don't implement (nómina, comercio exterior, impuestos
 * locales…), and template-less elements with children (the XSLT would copy their indentation).
 */
export function cadenaOriginal(comprobante: Nodo): string {
  const ambito = ambitoDe(comprobante);
  const [prefijo, local] = partesNombre(comprobante.nombre);
  const uri = ambito[prefijo];
  if (local !== 'Comprobante' || uri !== NS_CFDI40) {
    throw new Error(
      `Se esperaba un cfdi:Comprobante 4.0 (${NS_CFDI40}) y llegó <${comprobante.nombre}> ` +
        `(espacio de nombres ${uri ?? 'no declarado en el elemento'})`,
    );
  }
  const salida: string[] = [];
  comprobanteT(comprobante, nombresCfdi(prefijo), salida, AMBITO_VACIO);
  return enmarcar(salida);
}

const LOCALES = [
  'Comprobante',
  'InformacionGlobal',
  'CfdiRelacionados',
  'CfdiRelacionado',
  'Emisor',
  'Receptor',
  'Conceptos',
  'Concepto',
  'Impuestos',
  'Traslados',
  'Traslado',
  'Retenciones',
  'Retencion',
  'ACuentaTerceros',
  'InformacionAduanera',
  'CuentaPredial',
  'ComplementoConcepto',
  'Parte',
  'Complemento',
] as const;

type NombresCfdi = Readonly<Record<(typeof LOCALES)[number], string>>;
const nombresCfdi = tablaDeNombres(LOCALES);

const CAMPOS = {
  Comprobante:
    campos(`Version Serie? Folio? Fecha FormaPago? NoCertificado CondicionesDePago? SubTotal Descuento?
    Moneda TipoCambio? Total TipoDeComprobante Exportacion MetodoPago? LugarExpedicion Confirmacion?`),
  InformacionGlobal: campos('Periodicidad Meses Año'),
  CfdiRelacionados: campos('TipoRelacion'),
  CfdiRelacionado: campos('UUID'),
  Emisor: campos('Rfc Nombre RegimenFiscal FacAtrAdquirente?'),
  Receptor: campos(
    'Rfc Nombre DomicilioFiscalReceptor ResidenciaFiscal? NumRegIdTrib? RegimenFiscalReceptor UsoCFDI',
  ),
  Concepto: campos(
    'ClaveProdServ NoIdentificacion? Cantidad ClaveUnidad Unidad? Descripcion ValorUnitario Importe Descuento? ObjetoImp',
  ),
  TrasladoConcepto: campos('Base Impuesto TipoFactor TasaOCuota? Importe?'),
  RetencionConcepto: campos('Base Impuesto TipoFactor TasaOCuota Importe'),
  ACuentaTerceros: campos(
    'RfcACuentaTerceros NombreACuentaTerceros RegimenFiscalACuentaTerceros DomicilioFiscalACuentaTerceros',
  ),
  InformacionAduanera: campos('NumeroPedimento'),
  CuentaPredial: campos('Numero'),
  Parte: campos('ClaveProdServ NoIdentificacion? Cantidad Unidad? Descripcion ValorUnitario? Importe?'),
  RetencionGlobal: campos('Impuesto Importe'),
  TotalRetenidos: campos('TotalImpuestosRetenidos?'),
  TrasladoGlobal: campos('Base Impuesto TipoFactor TasaOCuota? Importe?'),
  TotalTrasladados: campos('TotalImpuestosTrasladados?'),
};

/** `ambito`: namespaces in scope at the node's parent, needed only where complements are dispatched. */
type Plantilla = (nodo: Nodo, n: NombresCfdi, salida: string[], ambito: Ambito) => void;

function comprobanteT(nodo: Nodo, n: NombresCfdi, salida: string[], ambitoPadre: Ambito): void {
  const ambito = ambitoDe(nodo, ambitoPadre);
  emitir(salida, nodo, CAMPOS.Comprobante);
  const hijos = nodo.hijos;
  for (const h of hijos) if (h.nombre === n.InformacionGlobal) informacionGlobal(h, n, salida);
  for (const h of hijos) if (h.nombre === n.CfdiRelacionados) cfdiRelacionados(h, n, salida);
  for (const h of hijos) if (h.nombre === n.Emisor) emisor(h, n, salida);
  for (const h of hijos) if (h.nombre === n.Receptor) receptor(h, n, salida);
  for (const h of hijos) if (h.nombre === n.Conceptos) conceptos(h, n, salida, ambito);
  for (const h of hijos) if (h.nombre === n.Impuestos) impuestos(h, n, salida);
  for (const h of hijos) if (h.nombre === n.Complemento) complemento(h, n, salida, ambito);
}

function informacionGlobal(nodo: Nodo, _n: NombresCfdi, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.InformacionGlobal);
}

function cfdiRelacionados(nodo: Nodo, n: NombresCfdi, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.CfdiRelacionados);
  for (const h of nodo.hijos) if (h.nombre === n.CfdiRelacionado) emitir(salida, h, CAMPOS.CfdiRelacionado);
}

function emisor(nodo: Nodo, _n: NombresCfdi, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.Emisor);
}

function receptor(nodo: Nodo, _n: NombresCfdi, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.Receptor);
}

function conceptos(nodo: Nodo, n: NombresCfdi, salida: string[], ambitoPadre: Ambito): void {
  const ambito = ambitoDe(nodo, ambitoPadre);
  for (const h of nodo.hijos) if (h.nombre === n.Concepto) concepto(h, n, salida, ambito);
}

function concepto(nodo: Nodo, n: NombresCfdi, salida: string[], ambitoPadre: Ambito): void {
  emitir(salida, nodo, CAMPOS.Concepto);
  const hijos = nodo.hijos;
  // ./Impuestos/Traslados/Traslado, then ./Impuestos/Retenciones/Retencion.
  for (const imp of hijos) {
    if (imp.nombre !== n.Impuestos) continue;
    for (const grupo of imp.hijos) {
      if (grupo.nombre !== n.Traslados) continue;
      for (const t of grupo.hijos) if (t.nombre === n.Traslado) emitir(salida, t, CAMPOS.TrasladoConcepto);
    }
  }
  for (const imp of hijos) {
    if (imp.nombre !== n.Impuestos) continue;
    for (const grupo of imp.hijos) {
      if (grupo.nombre !== n.Retenciones) continue;
      for (const r of grupo.hijos) if (r.nombre === n.Retencion) emitir(salida, r, CAMPOS.RetencionConcepto);
    }
  }
  for (const h of hijos) if (h.nombre === n.ACuentaTerceros) emitir(salida, h, CAMPOS.ACuentaTerceros);
  for (const h of hijos)
    if (h.nombre === n.InformacionAduanera) emitir(salida, h, CAMPOS.InformacionAduanera);
  for (const h of hijos) if (h.nombre === n.CuentaPredial) emitir(salida, h, CAMPOS.CuentaPredial);
  for (const h of hijos) {
    if (h.nombre === n.ComplementoConcepto) complementoConcepto(h, n, salida, ambitoDe(nodo, ambitoPadre));
  }
  // .//cfdi:Parte: descendants at any depth, in document order.
  for (const h of hijos) porDescendientes(h, n.Parte, n, salida, parte);
}

function parte(nodo: Nodo, n: NombresCfdi, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.Parte);
  for (const h of nodo.hijos) porDescendientes(h, n.InformacionAduanera, n, salida, informacionAduanera);
}

function informacionAduanera(nodo: Nodo, _n: NombresCfdi, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.InformacionAduanera);
}

/** Applies `plantilla` to `nodo` and to every descendant named `nombre`, in document order. */
function porDescendientes(
  nodo: Nodo,
  nombre: string,
  n: NombresCfdi,
  salida: string[],
  plantilla: (nodo: Nodo, n: NombresCfdi, salida: string[]) => void,
): void {
  if (nodo.nombre === nombre) plantilla(nodo, n, salida);
  for (const h of nodo.hijos) porDescendientes(h, nombre, n, salida, plantilla);
}

function impuestos(nodo: Nodo, n: NombresCfdi, salida: string[]): void {
  // Global taxes: retenciones block (rows, then total) before traslados (rows, then total).
  for (const grupo of nodo.hijos) {
    if (grupo.nombre !== n.Retenciones) continue;
    for (const r of grupo.hijos) if (r.nombre === n.Retencion) emitir(salida, r, CAMPOS.RetencionGlobal);
  }
  emitir(salida, nodo, CAMPOS.TotalRetenidos);
  for (const grupo of nodo.hijos) {
    if (grupo.nombre !== n.Traslados) continue;
    for (const t of grupo.hijos) if (t.nombre === n.Traslado) emitir(salida, t, CAMPOS.TrasladoGlobal);
  }
  emitir(salida, nodo, CAMPOS.TotalTrasladados);
}

function complemento(nodo: Nodo, _n: NombresCfdi, salida: string[], ambitoPadre: Ambito): void {
  const ambito = ambitoDe(nodo, ambitoPadre);
  for (const h of nodo.hijos) aplicarPlantillas(h, salida, ambito);
}

function complementoConcepto(nodo: Nodo, _n: NombresCfdi, salida: string[], ambitoPadre: Ambito): void {
  const ambito = ambitoDe(nodo, ambitoPadre);
  for (const h of nodo.hijos) aplicarPlantillas(h, salida, ambito);
}

const PLANTILLAS_CFDI: ReadonlyMap<string, Plantilla> = new Map<string, Plantilla>([
  ['Comprobante', comprobanteT],
  ['InformacionGlobal', informacionGlobal],
  ['CfdiRelacionados', cfdiRelacionados],
  ['Emisor', emisor],
  ['Receptor', receptor],
  ['Conceptos', conceptos],
  ['Concepto', concepto],
  ['ACuentaTerceros', (nodo, _n, salida) => emitir(salida, nodo, CAMPOS.ACuentaTerceros)],
  ['InformacionAduanera', informacionAduanera],
  ['CuentaPredial', (nodo, _n, salida) => emitir(salida, nodo, CAMPOS.CuentaPredial)],
  ['ComplementoConcepto', complementoConcepto],
  ['Parte', parte],
  ['Complemento', complemento],
  ['Impuestos', impuestos],
]);

/**
 * Namespaces of the complements whose templates cadenaoriginal_4_0.xslt includes, apart from Pagos 2.0.
 * A document carrying one of them would need that complement's rules, which we don't implement.
 */
const COMPLEMENTOS_SIN_SOPORTE = new Set(
  [
    'aerolineas',
    'CartaPorte20',
    'CartaPorte30',
    'CartaPorte31',
    'ComercioExterior11',
    'ComercioExterior20',
    'ConsumoDeCombustibles11',
    'renovacionysustitucionvehiculos',
    'certificadodestruccion',
    'detallista',
    'divisas',
    'donat',
    'EstadoDeCuentaCombustible12',
    'GastosHidrocarburos10',
    'hidrocarburospetroliferos',
    'iedu',
    'IngresosHidrocarburos10',
    'implocal',
    'ine',
    'leyendasFiscales',
    'nomina12',
    'notariospublicos',
    'arteantiguedades',
    'pagoenespecie',
    'pfic',
    'registrofiscal',
    'servicioparcialconstruccion',
    'TuristaPasajeroExtranjero',
    'valesdedespensa',
    'vehiculousado',
    'ventavehiculos',
  ].map((n) => `http://www.sat.gob.mx/${n}`),
);

/** `xsl:apply-templates` on one element: its `match` template, or the built-in rule (recurse into children). */
function aplicarPlantillas(nodo: Nodo, salida: string[], ambitoPadre: Ambito): void {
  const ambito = ambitoDe(nodo, ambitoPadre);
  const [prefijo, local] = partesNombre(nodo.nombre);
  const uri = ambito[prefijo];
  if (uri === NS_PAGOS20) {
    const plantilla = PLANTILLAS_PAGOS20.get(local);
    if (plantilla) return plantilla(nodo, nombresPagos20(prefijo), salida);
  } else if (uri === NS_CFDI40) {
    const plantilla = PLANTILLAS_CFDI.get(local);
    if (plantilla) return plantilla(nodo, nombresCfdi(prefijo), salida, ambitoPadre);
  } else if (uri !== undefined && COMPLEMENTOS_SIN_SOPORTE.has(uri)) {
    throw new Error(`Complemento no soportado en la cadena original: <${nodo.nombre}> (${uri})`);
  }
  // No template (TimbreFiscalDigital, unknown complements): XSLT's built-in rule prints the element's text
  // nodes and descends into its children. A leaf prints nothing (the parser refuses text that is not
  // whitespace). Below an element with children there usually is indentation the XSLT would copy into
  // the cadena and a Nodo does not keep, so such a document is refused rather than given a wrong cadena.
  if (nodo.hijos.length > 0) {
    throw new Error(
      `Complemento no soportado en la cadena original: <${nodo.nombre}> (${uri ?? 'sin espacio de nombres'}) ` +
        'no tiene plantilla en el XSLT y contiene elementos',
    );
  }
}
