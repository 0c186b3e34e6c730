import { Router } from 'express';
import type { ServicioFacturasGlobales } from '../../servicios/facturas-globales';
import { aceptada } from '../aceptada';
import { alcanceDe } from '../alcance';
import { cuerpo } from '../cuerpo';
import { creacionDe } from '../middleware/idempotencia';

/** Global invoices to the general public. Handlers only translate HTTP. */
export function rutasFacturasGlobales(globales: ServicioFacturasGlobales): Router {
  const r = Router();
  r.post('/v1/facturas_globales', async (req, res) => {
    const g = await globales.emitir(alcanceDe(req), cuerpo(req, 'crearFacturaGlobal'), creacionDe(res));
    if (g.pendiente) aceptada(res, g.factura).json(g.factura);
    else res.status(201).json(g.factura);
  });
  return r;
}
