import { cuerpo } from '../cuerpo';
import { aceptada } from '../aceptada';
import { Router, type RequestHandler } from 'express';
import type { EstadoEntrega } from '../../dominio/webhook';
import type { ServicioWebhooks } from '../../servicios/webhooks';
import { alcanceDe } from '../alcance';
import { leerPagina, lista } from '../paginacion';

const estadoDe = (q: unknown) => (q as { estado?: EstadoEntrega }).estado;

type Entregas = ServicioWebhooks['entregasDeWebhook'];

export function rutasWebhooks(w: ServicioWebhooks): Router {
  const r = Router();
  /** A list of deliveries: several share the `ent_` prefix, so each cursor also names the list (`ambito`). */
  const entregas =
    (ambito: string, leer: Entregas): RequestHandler<{ id: string }> =>
    async (req, res) => {
      const a = `${ambito}:${req.params.id}`;
      const pagina = leerPagina(req.query, 'ent', a);
      res.json(lista(await leer(alcanceDe(req), req.params.id, { estado: estadoDe(req.query) }, pagina), a));
    };
  r.post('/v1/webhooks', async (req, res) => {
    res.status(201).json(await w.crear(alcanceDe(req), cuerpo(req, 'crearWebhook')));
  });
  r.get('/v1/webhooks', async (req, res) => {
    res.json(lista(await w.listar(alcanceDe(req), leerPagina(req.query, 'wh'))));
  });
  r.get('/v1/webhooks/:id', async (req, res) => {
    res.json(await w.obtener(alcanceDe(req), req.params.id));
  });
  r.patch('/v1/webhooks/:id', async (req, res) => {
    res.json(await w.actualizar(alcanceDe(req), req.params.id, cuerpo(req, 'actualizarWebhook')));
  });
  r.delete('/v1/webhooks/:id', async (req, res) => {
    res.json(await w.eliminar(alcanceDe(req), req.params.id));
  });
  r.post('/v1/webhooks/:id/rotar_secreto', async (req, res) => {
    res.json(await w.rotarSecreto(alcanceDe(req), req.params.id));
  });
  r.get('/v1/webhooks/:id/entregas', entregas('webhook', w.entregasDeWebhook));
  r.post('/v1/webhooks/:id/entregas', async (req, res) => {
    const entrega = await w.reenviar(alcanceDe(req), req.params.id, cuerpo(req, 'reenviarEvento').evento);
    aceptada(res, entrega).json(entrega);
  });
  r.get('/v1/eventos/:id/entregas', entregas('evento', w.entregasDeEvento));
  r.get('/v1/entregas', async (req, res) => {
    const q = req.query as { estado?: EstadoEntrega; webhook?: string; evento?: string };
    // Every delivery of the account: a list of its own, apart from a webhook's or an event's.
    const pagina = leerPagina(req.query, 'ent', 'cuenta');
    res.json(lista(await w.listarEntregas(alcanceDe(req), q, pagina), 'cuenta'));
  });
  r.get('/v1/entregas/:id', async (req, res) => {
    res.json(await w.obtenerEntrega(alcanceDe(req), req.params.id));
  });
  r.post('/v1/entregas/:id/reintentar', async (req, res) => {
    const { entrega, pendiente } = await w.reintentarEntrega(alcanceDe(req), req.params.id);
    if (pendiente) aceptada(res, entrega).json(entrega);
    else res.json(entrega);
  });
  return r;
}
