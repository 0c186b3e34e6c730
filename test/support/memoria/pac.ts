import { randomUUID } from 'node:crypto';
import {
  ErrorPacTransitorio,
  type ConsultaEstatusSat,
  type ConsultaTimbre,
  type EstatusCancelacion,
  type EstatusSat,
  type PuertoPac,
  type ResultadoCancelacion,
  type ResultadoTimbrado,
  type SolicitudCancelacion,
  type TimbreObtenido,
} from '../../../pac/puerto';
import { crearGuion } from './guion';

/** What the fake PAC does with the next stamp request. */
export type RespuestaTimbrar =
  | { tipo: 'timbrado'; uuid?: string }
  | { tipo: 'rechazado'; codigo: string; mensaje: string }
  /** Transport failure before the PAC saw anything. */
  | { tipo: 'caido' }
  /** The PAC stamps, but its answer is lost on the way back (a later `consultarTimbre` finds it). */
  | { tipo: 'perdido' };

export type RespuestaCancelar =
  | {
      tipo: 'solicitada';
      estatusCancelacion: EstatusCancelacion;
      /** `201` (a new request, the default) or `202` (requested before). */
      estatusUuid?: '201' | '202';
      /** The SAT's acuse (default `<Acuse EstatusUUID="…"/>`) and its date. */
      acuse?: string;
      fecha?: string;
    }
  | { tipo: 'rechazada'; codigo: string; mensaje: string }
  | { tipo: 'caido' };

export type LlamadaPac =
  | { metodo: 'timbrar'; xml: string }
  | { metodo: 'consultarTimbre'; consulta: ConsultaTimbre }
  | { metodo: 'cancelar'; solicitud: SolicitudCancelacion }
  | { metodo: 'estatusSat'; consulta: ConsultaEstatusSat };

const caido = () => new ErrorPacTransitorio('PAC falso: conexión rechazada');

/**
 * A scriptable PAC that remembers what it stamped (by sealed XML), so a repeated stamp answers the original
 * with `previo: true` and `consultarTimbre` recovers a lost answer, as the port's contract says.
 */
export function crearPacEnMemoria() {
  const timbres = new Map<string, TimbreObtenido>();
  const llamadas: LlamadaPac[] = [];
  const alTimbrar = crearGuion<RespuestaTimbrar>(() => ({ tipo: 'timbrado' }));
  const alCancelar = crearGuion<RespuestaCancelar>(() => ({
    tipo: 'solicitada',
    estatusCancelacion: 'Cancelado sin aceptación',
  }));
  const alConsultarEstatus = crearGuion<Partial<EstatusSat>>(() => ({}));

  function timbrarAhora(xml: string, uuid = randomUUID().toUpperCase()): TimbreObtenido {
    const t: TimbreObtenido = {
      tipo: 'timbrado',
      xml: `${xml}<!-- TimbreFiscalDigital UUID="${uuid}" -->`,
      uuid,
      fechaTimbrado: '2025-06-01T06:00:05',
      noCertificadoSat: '30001000000500003456',
      selloSat: 'c2VsbG8gZGVsIFNBVA==',
      previo: false,
    };
    timbres.set(xml, t);
    return t;
  }

  const pac: PuertoPac = {
    async timbrar(xml): Promise<ResultadoTimbrado> {
      llamadas.push({ metodo: 'timbrar', xml });
      const previo = timbres.get(xml);
      if (previo) return { ...previo, previo: true };
      const r = alTimbrar.siguiente();
      if (r.tipo === 'caido') throw caido();
      if (r.tipo === 'rechazado') return r;
      const t = timbrarAhora(xml, r.tipo === 'timbrado' ? r.uuid : undefined);
      if (r.tipo === 'perdido') throw caido();
      return t;
    },
    async consultarTimbre(consulta) {
      llamadas.push({ metodo: 'consultarTimbre', consulta });
      const t =
        typeof consulta === 'string'
          ? timbres.get(consulta)
          : 'xmlSellado' in consulta
            ? timbres.get(consulta.xmlSellado)
            : [...timbres.values()].find((x) => x.uuid === consulta.uuid);
      return t ? { ...t, previo: true } : { tipo: 'no_encontrado' };
    },
    async cancelar(solicitud): Promise<ResultadoCancelacion> {
      llamadas.push({ metodo: 'cancelar', solicitud });
      const r = alCancelar.siguiente();
      if (r.tipo === 'caido') throw caido();
      if (r.tipo === 'rechazada') return r;
      const estatusUuid = r.estatusUuid ?? '201';
      return {
        tipo: 'solicitada',
        estatusCancelacion: r.estatusCancelacion,
        uuid: solicitud.uuid,
        estatusUuid,
        acuse: r.acuse ?? `<Acuse UUID="${solicitud.uuid}" EstatusUUID="${estatusUuid}"/>`,
        fecha: r.fecha ?? '2025-06-01T06:10:00',
      };
    },
    async estatusSat(consulta) {
      llamadas.push({ metodo: 'estatusSat', consulta });
      return {
        estado: 'Vigente',
        esCancelable: 'Cancelable con aceptación',
        estatusCancelacion: 'En proceso',
        codigoEstatus: 'S - Comprobante obtenido satisfactoriamente.',
        ...alConsultarEstatus.siguiente(),
      };
    },
  };

  return {
    ...pac,
    llamadas,
    alTimbrar: alTimbrar.poner,
    alCancelar: alCancelar.poner,
    alConsultarEstatus: alConsultarEstatus.poner,
    /** The methods called, in order. */
    metodos: () => llamadas.map((l) => l.metodo),
  };
}

export type PacEnMemoria = ReturnType<typeof crearPacEnMemoria>;
