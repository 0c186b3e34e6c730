import { Router, type RequestHandler } from 'express';
import type { MetricasApi } from '../metricas';

/** `GET /metricas`: Prometheus text, for the operator only (the figures span every account). */
export function rutasMetricas(metricas: MetricasApi, soloOperador: RequestHandler): Router {
  const r = Router();
  r.get('/metricas', soloOperador, async (req, res) => {
    res.type(metricas.tipoContenido).send(await metricas.exponer(req.log));
  });
  return r;
}
