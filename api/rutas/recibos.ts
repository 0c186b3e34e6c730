import { Router } from 'express';
import type { EstadoRecibo } from '../../dominio/recibo';
import type { ServicioRecibos } from '../../servicios/recibos';
import { aceptada } from '../aceptada';
import { alcanceDe } from '../alcance';
import { cuerpo } from '../cuerpo';
import { creacionDe } from '../middleware/idempotencia';
import { leerPagina, lista } from '../paginacion';

/** Receipts of sales to the public. Handlers only translate HTTP. */
export function rutasRecibos(recibos: ServicioRecibos): Router {
  const r = Router();
  r.post('/v1/recibos', async (req, res) => {
    const recibo = await recibos.crear(alcanceDe(req), cuerpo(req, 'crearRecibo'), creacionDe(res));
    res.status(201).json(recibo);
  });
  r.get('/v1/recibos', async (req, res) => {
    const q = req.query as {
      organizacion?: string;
      estado?: EstadoRecibo;
      fecha_desde?: string;
      fecha_hasta?: string;
      factura_global?: string;
    };
    res.json(lista(await recibos.listar(alcanceDe(req), q, leerPagina(req.query, 'rec'))));
  });
  r.get('/v1/recibos/:id', async (req, res) => {
    res.json(await recibos.obtener(alcanceDe(req), req.params.id));
  });
  r.post('/v1/recibos/:id/cancelar', async (req, res) => {
    res.json(await recibos.cancelar(alcanceDe(req), req.params.id));
  });
  r.post('/v1/recibos/:id/facturar', async (req, res) => {
    const r = await recibos.facturar(alcanceDe(req), req.params.id, cuerpo(req, 'facturarRecibo'));
    // A new invoice is 201 once stamped; the same invoice again (a double submit) 200; either 202 while stamping.
    if (r.pendiente) aceptada(res, r.factura).json(r.factura);
    else res.status(r.nueva ? 201 : 200).json(r.factura);
  });
  r.get('/v1/recibos/:id/qr', async (req, res) => {
    const formato = (req.query as { formato?: 'png' | 'svg' }).formato ?? 'png';
    const qr = await recibos.qr(alcanceDe(req), req.params.id, formato);
    res
      .type(qr.tipo)
      .set('Content-Disposition', `inline; filename="${req.params.id}.${formato}"`)
      .send(qr.cuerpo);
  });
  return r;
}
