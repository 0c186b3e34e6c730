import type { Esquema } from '../contrato';
import type { EsCancelable, EstatusCancelacion, EstatusSat } from '../pac/puerto';
import { iso } from './fechas';

type Dto = Esquema<'EstadoSat'>;

// The SAT's words as the contract's values. Typed maps: a value added to the port fails typecheck here.
const ESTADO: Record<EstatusSat['estado'], Dto['estado']> = {
  Vigente: 'vigente',
  Cancelado: 'cancelado',
  'No Encontrado': 'no_encontrado',
};
const ES_CANCELABLE: Record<EsCancelable | '', Dto['es_cancelable']> = {
  '': null,
  'Cancelable sin aceptación': 'cancelable_sin_aceptacion',
  'Cancelable con aceptación': 'cancelable_con_aceptacion',
  'No cancelable': 'no_cancelable',
};
const ESTATUS_CANCELACION: Record<EstatusCancelacion, Dto['estatus_cancelacion']> = {
  '': null,
  'En proceso': 'en_proceso',
  'Cancelado sin aceptación': 'cancelado_sin_aceptacion',
  'Cancelado con aceptación': 'cancelado_con_aceptacion',
  'Plazo vencido': 'plazo_vencido',
  'Solicitud rechazada': 'solicitud_rechazada',
};

/** What the SAT said of an invoice's CFDI (`GET /v1/facturas/{id}/estado_sat`). */
export function dtoEstadoSat(
  f: { id: string; modo: Dto['modo']; uuid: string },
  s: EstatusSat,
  consultadoEn: Date,
): Dto {
  return {
    objeto: 'estado_sat',
    modo: f.modo,
    factura: f.id,
    uuid: f.uuid,
    estado: ESTADO[s.estado],
    es_cancelable: ES_CANCELABLE[s.esCancelable],
    estatus_cancelacion: ESTATUS_CANCELACION[s.estatusCancelacion],
    codigo_estatus: s.codigoEstatus,
    consultado_en: iso(consultadoEn),
  };
}

export type EstadoSat = ReturnType<typeof dtoEstadoSat>;
