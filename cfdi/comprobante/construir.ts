import { normalizarEspacios } from '../cadena';
import { nodo, type Nodo } from '../xml/nodo';
import { calcularImportes } from './importes';
import type { ComprobanteEntrada, ImportesCalculados, ImpuestoCalculado } from './tipos';

export const NS_CFDI = 'http://www.sat.gob.mx/cfd/4';
export const NS_XSI = 'http://www.w3.org/2001/XMLSchema-instance';
export const ESQUEMA_CFDI = `${NS_CFDI} http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd`;

// Text values are written already normalized exactly as the SAT XSLT's normalize-space does, so XML and
// cadena always agree (normalizarEspacios).

const traslado = (t: ImpuestoCalculado, prefijo = 'cfdi:Traslado') =>
  nodo(prefijo, {
    Base: t.base,
    Impuesto: t.impuesto,
    TipoFactor: t.tipo_factor,
    TasaOCuota: t.tasa_o_cuota,
    Importe: t.importe,
  });

function impuestosConcepto(t: ImpuestoCalculado[], r: ImpuestoCalculado[]): Nodo[] {
  if (!t.length && !r.length) return [];
  const hijos: Nodo[] = [];
  if (t.length)
    hijos.push(
      nodo(
        'cfdi:Traslados',
        {},
        t.map((x) => traslado(x)),
      ),
    );
  if (r.length)
    hijos.push(
      nodo(
        'cfdi:Retenciones',
        {},
        r.map((x) => traslado(x, 'cfdi:Retencion')),
      ),
    );
  return [nodo('cfdi:Impuestos', {}, hijos)];
}

function impuestosGlobales(i: ImportesCalculados): Nodo[] {
  if (!i.traslados.length && !i.retenciones.length) return [];
  const hijos: Nodo[] = [];
  // XSD order: Retenciones before Traslados.
  if (i.retenciones.length) {
    hijos.push(
      nodo(
        'cfdi:Retenciones',
        {},
        i.retenciones.map((r) => nodo('cfdi:Retencion', { Impuesto: r.impuesto, Importe: r.importe })),
      ),
    );
  }
  if (i.traslados.length)
    hijos.push(
      nodo(
        'cfdi:Traslados',
        {},
        i.traslados.map((t) => traslado(t)),
      ),
    );
  return [
    nodo(
      'cfdi:Impuestos',
      {
        TotalImpuestosRetenidos: i.total_impuestos_retenidos,
        TotalImpuestosTrasladados: i.total_impuestos_trasladados,
      },
      hijos,
    ),
  ];
}

export const nodoEmisor = (e: ComprobanteEntrada['emisor']) =>
  nodo('cfdi:Emisor', { Rfc: e.rfc, Nombre: normalizarEspacios(e.nombre), RegimenFiscal: e.regimen_fiscal });

export const nodoReceptor = (r: Omit<ComprobanteEntrada['receptor'], 'uso_cfdi'>, usoCfdi: string) =>
  nodo('cfdi:Receptor', {
    Rfc: r.rfc,
    Nombre: normalizarEspacios(r.nombre),
    DomicilioFiscalReceptor: r.domicilio_fiscal,
    ResidenciaFiscal: r.residencia_fiscal,
    NumRegIdTrib: r.num_reg_id_trib,
    RegimenFiscalReceptor: r.regimen_fiscal,
    UsoCFDI: usoCfdi,
  });

/** The unsealed CFDI 4.0 (type I or E) as a node tree, with every amount computed. */
export function construirComprobante(c: ComprobanteEntrada): { nodo: Nodo; importes: ImportesCalculados } {
  const imp = calcularImportes(c);
  const hijos: Nodo[] = [];
  if (c.informacion_global) {
    hijos.push(
      nodo('cfdi:InformacionGlobal', {
        Periodicidad: c.informacion_global.periodicidad,
        Meses: c.informacion_global.meses,
        Año: c.informacion_global.anio,
      }),
    );
  }
  for (const r of c.relaciones ?? []) {
    hijos.push(
      nodo(
        'cfdi:CfdiRelacionados',
        { TipoRelacion: r.tipo_relacion },
        r.uuids.map((u) => nodo('cfdi:CfdiRelacionado', { UUID: u.toUpperCase() })),
      ),
    );
  }
  hijos.push(nodoEmisor(c.emisor), nodoReceptor(c.receptor, c.receptor.uso_cfdi));
  hijos.push(
    nodo(
      'cfdi:Conceptos',
      {},
      imp.conceptos.map((x) =>
        nodo(
          'cfdi:Concepto',
          {
            ClaveProdServ: x.clave_prod_serv,
            NoIdentificacion: x.no_identificacion && normalizarEspacios(x.no_identificacion),
            Cantidad: x.cantidad,
            ClaveUnidad: x.clave_unidad,
            Unidad: x.unidad && normalizarEspacios(x.unidad),
            Descripcion: normalizarEspacios(x.descripcion),
            ValorUnitario: x.valor_unitario,
            Importe: x.importe,
            Descuento: x.descuento,
            ObjetoImp: x.objeto_imp,
          },
          impuestosConcepto(x.traslados, x.retenciones),
        ),
      ),
    ),
  );
  hijos.push(...impuestosGlobales(imp));

  const raiz = nodo(
    'cfdi:Comprobante',
    {
      'xmlns:cfdi': NS_CFDI,
      'xmlns:xsi': NS_XSI,
      'xsi:schemaLocation': ESQUEMA_CFDI,
      Version: '4.0',
      Serie: c.serie && normalizarEspacios(c.serie),
      Folio: c.folio && normalizarEspacios(c.folio),
      Fecha: c.fecha,
      FormaPago: c.forma_pago,
      NoCertificado: c.no_certificado,
      Certificado: c.certificado,
      CondicionesDePago: c.condiciones_pago && normalizarEspacios(c.condiciones_pago),
      SubTotal: imp.subtotal,
      Descuento: imp.descuento,
      Moneda: c.moneda,
      TipoCambio: c.tipo_cambio,
      Total: imp.total,
      TipoDeComprobante: c.tipo,
      Exportacion: c.exportacion,
      MetodoPago: c.metodo_pago,
      LugarExpedicion: c.lugar_expedicion,
    },
    hijos,
  );
  return { nodo: raiz, importes: imp };
}

/** The same root with `Sello` placed right after `Fecha`, where readers expect it. */
export function conSello(raiz: Nodo, sello: string): Nodo {
  const atributos: Record<string, string> = {};
  for (const [k, v] of Object.entries(raiz.atributos)) {
    atributos[k] = v;
    if (k === 'Fecha') atributos.Sello = sello;
  }
  return { ...raiz, atributos };
}
