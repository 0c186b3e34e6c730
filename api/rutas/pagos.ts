import { cuerpo } from '../cuerpo';
import { aceptada } from '../aceptada';
import { Router } from 'express';
import type { ServicioPagos } from '../../servicios/pagos';
import { alcanceDe } from '../alcance';
import { creacionDe } from '../middleware/idempotencia';
import { leerPagina, lista } from '../paginacion';

export function rutasPagos(pagos: ServicioPagos): Router {
  const r = Router();
  r.post('/v1/pagos', async (req, res) => {
    const { pago, pendiente } = await pagos.crear(alcanceDe(req), cuerpo(req, 'crearPago'), creacionDe(res));
    if (pendiente) aceptada(res, pago).json(pago);
    else res.status(201).json(pago);
  });
  r.get('/v1/pagos', async (req, res) => {
    const q = req.query as Record<string, string | undefined>;
    const filtros = { organizacion: q.organizacion, factura: q.factura };
    res.json(lista(await pagos.listar(alcanceDe(req), filtros, leerPagina(req.query, 'pago'))));
  });
  r.get('/v1/pagos/:id', async (req, res) => {
    res.json(await pagos.obtener(alcanceDe(req), req.params.id));
  });
  return r;
}
