import type { ComprobanteEntrada, ImportesCalculados } from '../../cfdi/comprobante/tipos';

/**
 * What an invoice is built from, stored as JSON at creation: the CFDI input with snapshots of the client
 * and the products as they were, and the computed amounts. The certificate and the final Fecha are added
 * when it is sealed.
 */
export interface DocumentoFactura {
  entrada: Omit<ComprobanteEntrada, 'no_certificado' | 'certificado'>;
  /** Product id of each concept, or null for inline concepts. */
  productos: (string | null)[];
  importes: ImportesCalculados;
  cliente: {
    id: string;
    rfc: string;
    nombre: string;
    regimen_fiscal: string;
    domicilio_fiscal: string;
    uso_cfdi: string;
  };
  /** Zone of the place of issue (c_CodigoPostal), for the CFDI's local Fecha. */
  huso_horario: string;
}
