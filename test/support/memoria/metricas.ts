import type { MetricasActividades } from '../../../activities/metricas';

/** The activities' counters, remembered in order so a test can say what was counted. */
export function crearMetricasEnMemoria() {
  const timbrados: Parameters<MetricasActividades['timbrado']>[0][] = [];
  const entregas: Parameters<MetricasActividades['entrega']>[0][] = [];
  const metricas: MetricasActividades = {
    timbrado: (r) => void timbrados.push(r),
    entrega: (r) => void entregas.push(r),
  };
  return { ...metricas, timbrados, entregas };
}

export type MetricasEnMemoria = ReturnType<typeof crearMetricasEnMemoria>;
