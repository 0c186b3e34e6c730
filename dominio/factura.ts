import type { ComprobanteEntrada, ImportesCalculados } from '../cfdi/comprobante/tipos';
import type { PreferenciasCorreo } from './correo';
import type { ComplementoPagosCalculado } from '../cfdi/pagos/tipos';

export type TipoFactura = 'ingreso' | 'egreso' | 'pago';
export type EstadoFactura = 'borrador' | 'timbrada' | 'cancelada';
export type EstadoTimbrado = 'no_solicitado' | 'pendiente' | 'timbrada' | 'fallido';

/** Why a stamping ended without a stamp: the SAT or PAC code (or ours) and its message. */
/** The step of the stamping an error happened in: ops and support see where it is stuck. */
export type PasoTimbrado = 'certificado' | 'sellado' | 'validacion' | 'pac';

export interface ErrorTimbrado {
  codigo: string;
  mensaje: string;
  /** Stamping errors only (a cancellation's error has none); absent in errors stored before it existed. */
  paso?: PasoTimbrado;
}

export type MotivoCancelacion = '01' | '02' | '03' | '04';

/** The cancellation's progress as the invoice shows it. */
export interface Cancelacion {
  estado: 'solicitada' | 'en_proceso' | 'aceptada' | 'rechazada' | 'vencida';
  motivo: MotivoCancelacion;
  uuid_sustitucion: string | null;
  solicitada_en: string;
  actualizada_en: string;
  error?: ErrorTimbrado;
}

/** A cancellation still waiting for the PAC or the receiver: a second request must wait for it. */
export const cancelacionEnCurso = (c: Cancelacion | null) =>
  c !== null && (c.estado === 'solicitada' || c.estado === 'en_proceso');

/**
 * What an invoice is built from, stored as JSON at creation: the CFDI input with snapshots of the client
 * and the products as they were, and the computed amounts. The certificate and the final Fecha are added
 * when it is sealed.
 */
export interface DocumentoFactura {
  /** For a payment CFDI (type P) the fixed root and concept Anexo 20 asks, amounts 0 in XXX. */
  entrada: Omit<ComprobanteEntrada, 'no_certificado' | 'certificado' | 'tipo'> & { tipo: 'I' | 'E' | 'P' };
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
  /** Of a payment CFDI: its payment and the Pagos 2.0 complement computed when the ledger took it. */
  pago?: { id: string; complemento: ComplementoPagosCalculado };
  /** Absent in invoices older than email, and in payment CFDIs: send, to the client alone. */
  correo?: PreferenciasCorreo;
  /** Of a global invoice to the general public: the period its receipts' sales are of, and what it reissues. */
  global?: { periodicidad: string; desde: string; hasta: string; reemplaza: string | null };
}
