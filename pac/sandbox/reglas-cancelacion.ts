import Decimal from 'decimal.js';
import type { EsCancelable, EstatusCancelacion } from '../puerto';

/**
 * The SAT's cancellation rules as the sandbox simulates them (notes §7, RMF 2.7.1.35). Pure functions of
 * the stored stamp and the clock, so the same answers come out of cancel_signature, get_sat_status and
 * the test controls, and a term that expired while nobody looked is seen as expired by everybody.
 */

export const RFC_PUBLICO_GENERAL = 'XAXX010101000';
export const RFC_EXTRANJERO = 'XEXX010101000';
export const LIMITE_SIN_ACEPTACION_MXN = new Decimal(1000);

/** Types that never need acceptance: egreso, traslado, nómina. */
const TIPOS_SIN_ACEPTACION = new Set(['E', 'T', 'N']);

export interface DocumentoCancelable {
  tipo: string;
  /** Total in pesos (Total × TipoCambio). */
  totalMxn: string;
  rfcReceptor: string;
}

/**
 * The cases decided by the document alone: egresos, traslados and nómina; público en general and foreign
 * receivers; totals up to 1,000 MXN except payment CFDIs.
 */
export function sinAceptacionPorDocumento(d: DocumentoCancelable): boolean {
  if (TIPOS_SIN_ACEPTACION.has(d.tipo)) return true;
  if (d.rfcReceptor === RFC_PUBLICO_GENERAL || d.rfcReceptor === RFC_EXTRANJERO) return true;
  return d.tipo !== 'P' && new Decimal(d.totalMxn).lte(LIMITE_SIN_ACEPTACION_MXN);
}

/** Total × TipoCambio (absent TipoCambio: already pesos, or XXX whose total is 0). */
export function totalEnPesos(total: string, tipoCambio: string | undefined): string {
  const t = new Decimal(total);
  return (tipoCambio ? t.mul(new Decimal(tipoCambio)) : t).toFixed();
}

export interface EstadoCancelacion {
  estado: 'Vigente' | 'Cancelado';
  estatusCancelacion: EstatusCancelacion;
}

export interface TimbreCancelable {
  sinAceptacionPorDocumento: boolean;
  /** SANDBOX:CON_ACEPTACION: acceptance whatever the amount or the age. */
  forzarAceptacion: boolean;
  fechaTimbrado: Date;
  estado: 'Vigente' | 'Cancelado';
  estatusCancelacion: EstatusCancelacion;
  cancelacionSolicitadaEn: Date | null;
  /** Per-document term (SANDBOX:PLAZO), else the configured one. */
  plazoAceptacionMs: number | null;
}

export interface Reloj {
  ahora: Date;
  ventanaSinAceptacionMs: number;
  plazoAceptacionMs: number;
}

export function esCancelable(t: TimbreCancelable, r: Reloj, conRelacionadosVigentes: boolean): EsCancelable {
  if (conRelacionadosVigentes) return 'No cancelable';
  return requiereAceptacion(t, r) ? 'Cancelable con aceptación' : 'Cancelable sin aceptación';
}

/** Cancelling within the window right after stamping needs no acceptance either. */
export function requiereAceptacion(t: TimbreCancelable, r: Reloj): boolean {
  if (t.forzarAceptacion) return true;
  if (t.sinAceptacionPorDocumento) return false;
  return r.ahora.getTime() - t.fechaTimbrado.getTime() > r.ventanaSinAceptacionMs;
}

/** The state now: a request still "En proceso" after its term is "Plazo vencido", which cancels. */
export function estadoVigente(t: TimbreCancelable, r: Reloj): EstadoCancelacion {
  if (t.estatusCancelacion === 'En proceso' && t.cancelacionSolicitadaEn) {
    const plazo = t.plazoAceptacionMs ?? r.plazoAceptacionMs;
    if (r.ahora.getTime() - t.cancelacionSolicitadaEn.getTime() >= plazo) {
      return { estado: 'Cancelado', estatusCancelacion: 'Plazo vencido' };
    }
  }
  return { estado: t.estado, estatusCancelacion: t.estatusCancelacion };
}

export type DecisionCancelacion =
  | { tipo: 'previa'; estado: EstadoCancelacion }
  | { tipo: 'no_cancelable' }
  | { tipo: 'aplicar'; estado: EstadoCancelacion };

/**
 * What a new cancellation request does: already cancelled or pending → 202 with the current state;
 * related live documents → no_cancelable; otherwise cancelled at once or pending the receiver's answer.
 * A rejected request can be presented again.
 */
export function decidirCancelacion(
  t: TimbreCancelable,
  r: Reloj,
  conRelacionadosVigentes: boolean,
): DecisionCancelacion {
  const actual = estadoVigente(t, r);
  if (actual.estado === 'Cancelado' || actual.estatusCancelacion === 'En proceso') {
    return { tipo: 'previa', estado: actual };
  }
  if (conRelacionadosVigentes) return { tipo: 'no_cancelable' };
  return {
    tipo: 'aplicar',
    estado: requiereAceptacion(t, r)
      ? { estado: 'Vigente', estatusCancelacion: 'En proceso' }
      : { estado: 'Cancelado', estatusCancelacion: 'Cancelado sin aceptación' },
  };
}

/** The receiver's answer to a pending request; null when there is nothing pending to answer. */
export function responderSolicitud(
  t: TimbreCancelable,
  r: Reloj,
  respuesta: 'aceptar' | 'rechazar',
): EstadoCancelacion | null {
  const actual = estadoVigente(t, r);
  if (actual.estatusCancelacion !== 'En proceso') return null;
  return respuesta === 'aceptar'
    ? { estado: 'Cancelado', estatusCancelacion: 'Cancelado con aceptación' }
    : { estado: 'Vigente', estatusCancelacion: 'Solicitud rechazada' };
}
