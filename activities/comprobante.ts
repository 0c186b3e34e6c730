import { construirComprobante } from '../cfdi/comprobante/construir';
import { construirComprobantePago } from '../cfdi/comprobante/pago';
import type { Nodo } from '../cfdi/xml/nodo';
import type { DocumentoFactura } from '../dominio/factura';

/** The unsealed CFDI of a stored document: an invoice (I/E) or a payment CFDI (P) with its complement. */
export function comprobanteSinSello(
  doc: DocumentoFactura,
  fecha: string,
  csd: { noCertificado: string; certificadoBase64: string },
): Nodo {
  const { tipo, ...e } = doc.entrada;
  const sello = { fecha, no_certificado: csd.noCertificado, certificado: csd.certificadoBase64 };
  if (tipo === 'P') {
    if (!doc.pago) throw new Error('CFDI de pago sin complemento');
    return construirComprobantePago({
      serie: e.serie,
      folio: e.folio,
      lugar_expedicion: e.lugar_expedicion,
      emisor: e.emisor,
      receptor: e.receptor,
      complemento: doc.pago.complemento,
      ...sello,
    });
  }
  return construirComprobante({ ...e, tipo, ...sello }).nodo;
}
