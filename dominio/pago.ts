import type { TipoErrorNegocio } from './errores';

/** The series of payment CFDIs unless the request names another: their folios count apart from invoices'. */
export const SERIE_PAGOS = 'P';

/**
 * A payment's life: `registrando` while its workflow checks it against the invoices (under their locks),
 * `registrado` once the ledger holds it (its payment CFDI then goes its own way), `rechazado` when a rule
 * refused it (nothing of it reached the ledger).
 */
export type EstadoPago = 'registrando' | 'registrado' | 'rechazado';

/** The request as the API validated it: amounts as decimal strings, `fecha_pago` already local time. */
export interface SolicitudPago {
  /** Series of the payment CFDI; its folio is the next of the organization's counter for it. */
  serie: string;
  fecha_pago: string;
  forma_pago: string;
  moneda: string;
  /** Decimals of `moneda` (c_Moneda). */
  decimales_moneda: number;
  tipo_cambio: string | null;
  monto: string;
  facturas_pagadas: { factura: string; imp_pagado: string; equivalencia: string | null }[];
}

/** Why a rule refused the payment, as the API will say it. */
export interface RechazoPago {
  tipo: TipoErrorNegocio;
  codigo: string;
  mensaje: string;
  parametro?: string;
}

/** One line of the ledger: what one payment applied to one invoice. Amounts in the invoice's currency. */
export interface ParcialidadPago {
  factura: string;
  uuid: string;
  moneda: string;
  decimales: number;
  equivalencia: string | null;
  num_parcialidad: number;
  imp_saldo_anterior: string;
  imp_pagado: string;
  imp_saldo_insoluto: string;
  objeto_imp: string;
  vigente: boolean;
}
