import { Router } from 'express';
import type { EstadoEntrega } from '../../dominio/webhook';
import type { ServicioWebhooks } from '../../servicios/webhooks';
import { alcanceDe } from '../alcance';
import { leerPagina, lista } from '../paginacion';

const estadoDe = (q: unknown) => (q as { estado?: EstadoEntrega }).estado;

export function rutasWebhooks(w: ServicioWebhooks): Router {
  const r = Router();
  r.post('/v1/webhooks', async (req, res) => {
    res.status(201).json(await w.crear(alcanceDe(req), req.body));
  });
  r.get('/v1/webhooks', async (req, res) => {
    res.json(lista(await w.listar(alcanceDe(req), leerPagina(req.query, 'wh'))));
  });
  r.get('/v1/webhooks/:id', async (req, res) => {
    res.json(await w.obtener(alcanceDe(req), req.params.id));
  });
  r.patch('/v1/webhooks/:id', async (req, res) => {
    res.json(await w.actualizar(alcanceDe(req), req.params.id, req.body));
  });
  r.delete('/v1/webhooks/:id', async (req, res) => {
    res.json(await w.eliminar(alcanceDe(req), req.params.id));
  });
  r.post('/v1/webhooks/:id/rotar_secreto', async (req, res) => {
    res.json(await w.rotarSecreto(alcanceDe(req), req.params.id));
  });
  r.get('/v1/webhooks/:id/entregas', async (req, res) => {
    const ambito = `webhook:${req.params.id}`;
    const pagina = leerPagina(req.query, 'ent', ambito);
    const filtros = { estado: estadoDe(req.query) };
    res.json(lista(await w.entregasDeWebhook(alcanceDe(req), req.params.id, filtros, pagina), ambito));
  });
  r.post('/v1/webhooks/:id/entregas', async (req, res) => {
    res.status(202).json(await w.reenviar(alcanceDe(req), req.params.id, req.body.evento));
  });
  r.get('/v1/eventos/:id/entregas', async (req, res) => {
    const pagina = leerPagina(req.query, 'ent');
    res.json(
      lista(await w.entregasDeEvento(alcanceDe(req), req.params.id, { estado: estadoDe(req.query) }, pagina)),
    );
  });
  r.get('/v1/entregas/:id', async (req, res) => {
    res.json(await w.obtenerEntrega(alcanceDe(req), req.params.id));
  });
  return r;
}
