import { normalizarEspacios } from '../cadena';
import { NS_CFDI40, NS_XSI } from '../xml/espacios';
import { nodo, type Nodo } from '../xml/nodo';

const ESQUEMA_CFDI = `${NS_CFDI40} http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd`;

/** The root's own attributes, named as in ComprobanteEntrada; optional ones are left out when absent. */
export interface AtributosComprobante {
  serie?: string;
  folio?: string;
  fecha: string;
  forma_pago?: string;
  no_certificado: string;
  certificado?: string;
  condiciones_pago?: string;
  subtotal: string;
  descuento?: string;
  moneda: string;
  tipo_cambio?: string;
  total: string;
  tipo: string;
  exportacion: string;
  metodo_pago?: string;
  lugar_expedicion: string;
}

/** A complement whose namespace and schema the root declares (Pagos 2.0). */
export interface EspacioComplemento {
  prefijo: string;
  uri: string;
  esquema: string;
}

/**
 * cfdi:Comprobante with its namespaces and attributes in the order every CFDI we write uses. Text values are
 * written already normalized as the SAT XSLT's normalize-space does, so XML and cadena always agree.
 */
export function nodoComprobante(
  a: AtributosComprobante,
  hijos: Nodo[],
  complemento?: EspacioComplemento,
): Nodo {
  // One object literal, not a spread of a namespace map: the spread cost about 30 µs a document (bench:cfdi).
  return nodo(
    'cfdi:Comprobante',
    {
      'xmlns:cfdi': NS_CFDI40,
      'xmlns:xsi': NS_XSI,
      ...(complemento ? { [`xmlns:${complemento.prefijo}`]: complemento.uri } : {}),
      'xsi:schemaLocation': complemento ? `${ESQUEMA_CFDI} ${complemento.esquema}` : ESQUEMA_CFDI,
      Version: '4.0',
      Serie: a.serie && normalizarEspacios(a.serie),
      Folio: a.folio && normalizarEspacios(a.folio),
      Fecha: a.fecha,
      FormaPago: a.forma_pago,
      NoCertificado: a.no_certificado,
      Certificado: a.certificado,
      CondicionesDePago: a.condiciones_pago && normalizarEspacios(a.condiciones_pago),
      SubTotal: a.subtotal,
      Descuento: a.descuento,
      Moneda: a.moneda,
      TipoCambio: a.tipo_cambio,
      Total: a.total,
      TipoDeComprobante: a.tipo,
      Exportacion: a.exportacion,
      MetodoPago: a.metodo_pago,
      LugarExpedicion: a.lugar_expedicion,
    },
    hijos,
  );
}
