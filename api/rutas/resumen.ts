import { Router } from 'express';
import type { FiltrosResumenFacturacion, ServicioResumen } from '../../servicios/resumen';
import { alcanceDe } from '../alcance';

/** The billing summary of a dashboard. Handlers only translate HTTP. */
export function rutasResumen(s: ServicioResumen): Router {
  const r = Router();
  r.get('/v1/resumen', async (req, res) => {
    res.json(await s.facturacion(alcanceDe(req), req.query as FiltrosResumenFacturacion));
  });
  return r;
}
