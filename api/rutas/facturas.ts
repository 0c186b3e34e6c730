import { Router } from 'express';
import type { ServicioEventos } from '../../servicios/eventos';
import type { ServicioFacturas } from '../../servicios/facturas';
import { alcanceDe } from '../alcance';
import { leerPagina } from '../paginacion';

export function rutasFacturas(facturas: ServicioFacturas, eventos: ServicioEventos): Router {
  const r = Router();
  r.post('/v1/facturas', async (req, res) => {
    const { status, factura } = await facturas.crear(alcanceDe(req), req.body);
    res.status(status).json(factura);
  });
  r.get('/v1/facturas', async (req, res) => {
    const q = req.query as Record<string, string | undefined>;
    const filtros = { organizacion: q.organizacion, cliente: q.cliente, estado: q.estado, tipo: q.tipo };
    res.json(await facturas.listar(alcanceDe(req), filtros, leerPagina(req.query, 'fac')));
  });
  r.get('/v1/facturas/:id', async (req, res) => {
    res.json(await facturas.obtener(alcanceDe(req), req.params.id));
  });
  r.post('/v1/facturas/:id/timbrar', async (req, res) => {
    const { status, factura } = await facturas.timbrar(alcanceDe(req), req.params.id);
    res.status(status).json(factura);
  });
  r.post('/v1/facturas/:id/cancelar', async (req, res) => {
    const { status, factura } = await facturas.cancelar(alcanceDe(req), req.params.id, req.body);
    res.status(status).json(factura);
  });
  r.get('/v1/facturas/:id/xml', async (req, res) => {
    // Byte for byte as stamped: sent as a Buffer so nothing re-encodes it.
    res.type('application/xml').send(Buffer.from(await facturas.xml(alcanceDe(req), req.params.id), 'utf8'));
  });
  r.get('/v1/facturas/:id/pdf', async (req, res) => {
    const pdf = await facturas.pdf(alcanceDe(req), req.params.id);
    res
      .type('application/pdf')
      .set('Content-Disposition', `inline; filename="${req.params.id}.pdf"`)
      .send(pdf);
  });

  r.get('/v1/eventos', async (req, res) => {
    res.json(
      await eventos.listar(
        alcanceDe(req),
        req.query.tipo as string | undefined,
        leerPagina(req.query, 'evt'),
      ),
    );
  });
  r.get('/v1/eventos/:id', async (req, res) => {
    res.json(await eventos.obtener(alcanceDe(req), req.params.id));
  });
  return r;
}
