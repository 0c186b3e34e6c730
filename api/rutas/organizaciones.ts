import { cuerpo } from '../cuerpo';
import { Router } from 'express';
import type { ServicioClientes } from '../../servicios/clientes';
import type { ServicioOrganizaciones } from '../../servicios/organizaciones';
import type { ServicioProductos } from '../../servicios/productos';
import { alcanceDe } from '../alcance';
import { leerPagina, lista } from '../paginacion';

const filtros = (q: Record<string, unknown>) => ({
  organizacion: q.organizacion as string | undefined,
  q: q.q as string | undefined,
});

/** Organizations and what hangs from them: clients and products. Handlers only translate HTTP. */
export function rutasOrganizaciones(s: {
  organizaciones: ServicioOrganizaciones;
  clientes: ServicioClientes;
  productos: ServicioProductos;
}): Router {
  const r = Router();
  r.post('/v1/organizaciones', async (req, res) => {
    res.status(201).json(await s.organizaciones.crear(alcanceDe(req), cuerpo(req, 'crearOrganizacion')));
  });
  r.get('/v1/organizaciones', async (req, res) => {
    res.json(lista(await s.organizaciones.listar(alcanceDe(req), leerPagina(req.query, 'org'))));
  });
  r.get('/v1/organizaciones/:id', async (req, res) => {
    res.json(await s.organizaciones.obtener(alcanceDe(req), req.params.id));
  });
  r.patch('/v1/organizaciones/:id', async (req, res) => {
    res.json(
      await s.organizaciones.actualizar(alcanceDe(req), req.params.id, cuerpo(req, 'actualizarOrganizacion')),
    );
  });

  for (const [ruta, servicio, prefijo] of [
    ['clientes', s.clientes, 'cli'],
    ['productos', s.productos, 'prod'],
  ] as const) {
    r.post(`/v1/${ruta}`, async (req, res) => {
      res.status(201).json(await servicio.crear(alcanceDe(req), req.body));
    });
    r.get(`/v1/${ruta}`, async (req, res) => {
      const pagina = leerPagina(req.query, prefijo);
      res.json(lista<{ id: string }>(await servicio.listar(alcanceDe(req), filtros(req.query), pagina)));
    });
    r.get(`/v1/${ruta}/:id`, async (req, res) => {
      res.json(await servicio.obtener(alcanceDe(req), req.params.id));
    });
    r.patch(`/v1/${ruta}/:id`, async (req, res) => {
      res.json(await servicio.actualizar(alcanceDe(req), req.params.id, req.body));
    });
    r.delete(`/v1/${ruta}/:id`, async (req, res) => {
      res.json(await servicio.eliminar(alcanceDe(req), req.params.id));
    });
  }
  return r;
}
