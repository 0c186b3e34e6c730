import type { ResultadoIntento } from './entregas';

/**
 * What the activities count for the worker's Prometheus endpoint (worker/metricas.ts puts it on Temporal's
 * metric meter; the unit tests pass a fake). PAC latency is measured around the PAC port, not here.
 */
export interface MetricasActividades {
  /** A stamping ended: its stamp or its definitive rejection was written (once per invoice, not per retry). */
  timbrado(resultado: 'timbrada' | 'rechazada'): void;
  /** A webhook delivery attempt ended. */
  entrega(resultado: ResultadoIntento): void;
}
