import { randomUUID } from 'node:crypto';
import { TIMBRADO_CORRECTO } from '../finkok/protocolo';
import { campo, type CodigoFalla, type SolicitudLeida } from '../soap/sobre';
import type { ElementoXml } from '../soap/xml';
import type { FilaTimbre } from './almacen';
import type { Rechazo } from './timbrado';

/**
 * What a handler decides, written to HTTP by the dispatcher (despacho.ts): handlers never touch the
 * request or the response, so they run in tests without a server.
 */
export type Respuesta =
  /** The operation's `…Result` fields, HTTP 200. */
  | { tipo: 'soap'; campos: ElementoXml[] }
  /** A SOAP Fault, HTTP 500. */
  | { tipo: 'falta'; codigo: CodigoFalla; mensaje: string }
  /** The connection is dropped without an answer. */
  | { tipo: 'cortar' }
  /** The connection is reset (TCP RST) without an answer. */
  | { tipo: 'reiniciar' }
  /** No answer until the sandbox's maximum wait runs out. */
  | { tipo: 'retener' };

export type ManejadorSoap = (s: SolicitudLeida) => Promise<Respuesta>;

export const soap = (campos: ElementoXml[]): Respuesta => ({ tipo: 'soap', campos });

/** Finkok's Incidencia; the ids are random because nobody looks them up. */
export function incidencia(r: Rechazo, fechaRegistro: string, uuid = ''): ElementoXml {
  return campo('Incidencia', [
    campo('IdIncidencia', randomUUID()),
    campo('Uuid', uuid),
    campo('CodigoError', r.codigo),
    campo('WorkProcessId', randomUUID()),
    campo('MensajeIncidencia', r.mensaje),
    campo('ExtraInfo', ''),
    campo('NoCertificadoPac', ''),
    campo('FechaRegistro', fechaRegistro),
  ]);
}

/**
 * stampResult / stampedResult: the stamp when there is one, and the incidencias. `conXml` false is
 * quick_stamp's repeat, which only says the document was stamped before.
 */
export function camposTimbre(
  fila: FilaTimbre | undefined,
  incidencias: readonly Rechazo[],
  fechaRegistro: string,
  conXml = true,
): ElementoXml[] {
  const estatus = !fila
    ? ''
    : incidencias.length === 0
      ? TIMBRADO_CORRECTO
      : 'Comprobante timbrado previamente';
  return [
    campo('xml', fila && conXml ? fila.xml_timbrado : ''),
    campo('UUID', fila?.uuid ?? ''),
    campo('Fecha', fila?.fecha_timbrado_local ?? ''),
    campo('CodEstatus', estatus),
    campo('SatSeal', fila?.sello_sat ?? ''),
    campo(
      'Incidencias',
      incidencias.map((i) => incidencia(i, fechaRegistro, fila?.uuid)),
    ),
    campo('NoCertificadoSAT', fila?.no_certificado_sat ?? ''),
  ];
}
