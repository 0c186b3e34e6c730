import type { ConceptoEntrada, ImportesCalculados } from '../cfdi/comprobante/tipos';

/**
 * A receipt's life: `abierto` until its buyer invoices it (`facturado`), the period's global invoice includes it
 * (`en_factura_global`) or its issuer cancels it (`cancelado`, only while `abierto`).
 */
export type EstadoRecibo = 'abierto' | 'facturado' | 'en_factura_global' | 'cancelado';

export const ESTADOS_RECIBO: readonly EstadoRecibo[] = [
  'abierto',
  'facturado',
  'en_factura_global',
  'cancelado',
];

/** Days a receipt may be invoiced by its buyer unless the request or the organization says otherwise. */
export const PLAZO_AUTOFACTURA_DIAS = 30;
/** The longest an organization or a request may leave a receipt open to its buyer. */
export const PLAZO_AUTOFACTURA_MAXIMO_DIAS = 366;

/**
 * What a receipt is made of, kept as one document: the concepts as the invoice's machinery resolved and
 * computed them, so the invoice or global invoice made from it later carries exactly these amounts.
 */
export interface DocumentoRecibo {
  forma_pago: string;
  moneda: string;
  decimales_moneda: number;
  tipo_cambio?: string;
  lugar_expedicion: string;
  huso_horario: string;
  conceptos: ConceptoEntrada[];
  productos: (string | null)[];
  importes: ImportesCalculados;
}
