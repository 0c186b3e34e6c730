import type { MetricMeter } from '@temporalio/common';
import type { TelemetryOptions } from '@temporalio/worker';
import type { MetricasActividades } from '../activities/metricas';
import type { Modo } from '../dominio/alcance';
import { ErrorPacConfiguracion, ErrorPacTransitorio, type PuertoPac } from '../pac/puerto';

/**
 * The worker's metrics all come out of Temporal's own Prometheus exporter (`WORKER_METRICAS`, path `/metrics`):
 * the SDK's worker metrics (`temporal_*`) and ours, recorded on the runtime's metric meter.
 */
const DURACION_PAC = 'cfdi_pac_duracion_segundos';

// Core's default buckets are milliseconds (50…10000): ours are seconds, from a fast sandbox to a PAC timeout.
const CUBETAS_PAC_S = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120];

/** Runtime.install's telemetry: the Prometheus exporter on `direccion` (IP:port), durations in seconds. */
export function telemetriaWorker(direccion: string): TelemetryOptions {
  return {
    metrics: {
      prometheus: {
        bindAddress: direccion,
        useSecondsForDurations: true,
        histogramBucketOverrides: { [DURACION_PAC]: CUBETAS_PAC_S },
      },
    },
  };
}

type OperacionPac = keyof PuertoPac;

/** What a PAC answer or failure counts as: a definitive answer is a result, a failure says whether it will pass. */
function resultadoDe(operacion: OperacionPac, r: unknown): string {
  const tipo = (r as { tipo?: string } | undefined)?.tipo;
  if (operacion === 'timbrar') return (r as { previo?: boolean }).previo ? 'previo' : String(tipo);
  return operacion === 'estatusSat' ? 'ok' : String(tipo);
}

function resultadoDeError(err: unknown): string {
  if (err instanceof ErrorPacTransitorio) return 'error_transitorio';
  if (err instanceof ErrorPacConfiguracion) return 'error_configuracion';
  return 'error';
}

/** Wraps a PAC port so every call records its latency by mode, operation and result. */
export function crearMedidorPac(meter: MetricMeter): (pac: PuertoPac, modo: Modo) => PuertoPac {
  const duracion = meter.createHistogram(
    DURACION_PAC,
    'float',
    's',
    'Duración de cada llamada al PAC, por modo, operación y resultado (el conteo da las llamadas).',
  );
  return (pac, modo) => {
    const medir = async <T>(operacion: OperacionPac, llamada: () => Promise<T>): Promise<T> => {
      const inicio = performance.now();
      let resultado = 'error';
      try {
        const r = await llamada();
        resultado = resultadoDe(operacion, r);
        return r;
      } catch (err) {
        resultado = resultadoDeError(err);
        throw err;
      } finally {
        duracion.record((performance.now() - inicio) / 1000, { modo, operacion, resultado });
      }
    };
    return {
      timbrar: (xml) => medir('timbrar', () => pac.timbrar(xml)),
      consultarTimbre: (consulta) => medir('consultarTimbre', () => pac.consultarTimbre(consulta)),
      cancelar: (solicitud) => medir('cancelar', () => pac.cancelar(solicitud)),
      estatusSat: (consulta) => medir('estatusSat', () => pac.estatusSat(consulta)),
    };
  };
}

/** The activities' counters, on the same meter. */
export function crearMetricasActividades(meter: MetricMeter): MetricasActividades {
  const timbrados = meter.createCounter(
    'cfdi_timbrados_total',
    '',
    'Timbrados terminados, por resultado: timbrada (timbre guardado) o rechazada (rechazo definitivo).',
  );
  const entregas = meter.createCounter(
    'cfdi_entregas_total',
    '',
    'Intentos de entrega de webhooks, por resultado: entregada, reintentar, fallida (último intento) o cancelada.',
  );
  return {
    timbrado: (resultado) => timbrados.add(1, { resultado }),
    entrega: (resultado) => entregas.add(1, { resultado }),
  };
}
