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

  // Bodies one route each, so each service's parameter is checked against its operation's contract type.
  r.post('/v1/clientes', async (req, res) => {
    res.status(201).json(await s.clientes.crear(alcanceDe(req), cuerpo(req, 'crearCliente')));
  });
  r.patch('/v1/clientes/:id', async (req, res) => {
    res.json(await s.clientes.actualizar(alcanceDe(req), req.params.id, cuerpo(req, 'actualizarCliente')));
  });
  r.get('/v1/clientes/:id/estado_de_cuenta', async (req, res) => {
    const q = req.query as { fecha?: string; formato?: 'json' | 'csv' };
    if (q.formato !== 'csv') {
      res.json(await s.clientes.estadoDeCuenta(alcanceDe(req), req.params.id, { fecha: q.fecha }));
      return;
    }
    // Read before the type is set: an error must go out as JSON.
    const { archivo, csv } = await s.clientes.estadoDeCuentaCsv(alcanceDe(req), req.params.id, {
      fecha: q.fecha,
    });
    res
      .type('text/csv; charset=utf-8')
      .set('Content-Disposition', `attachment; filename="${archivo}"`)
      .send(Buffer.from(csv, 'utf8'));
  });
  r.post('/v1/productos', async (req, res) => {
    res.status(201).json(await s.productos.crear(alcanceDe(req), cuerpo(req, 'crearProducto')));
  });
  r.patch('/v1/productos/:id', async (req, res) => {
    res.json(await s.productos.actualizar(alcanceDe(req), req.params.id, cuerpo(req, 'actualizarProducto')));
  });

  for (const [ruta, servicio, prefijo] of [
    ['clientes', s.clientes, 'cli'],
    ['productos', s.productos, 'prod'],
  ] as const) {
    r.get(`/v1/${ruta}`, async (req, res) => {
      const pagina = leerPagina(req.query, prefijo);
      res.json(lista<{ id: string }>(await servicio.listar(alcanceDe(req), filtros(req.query), pagina)));
    });
    r.get(`/v1/${ruta}/:id`, async (req, res) => {
      res.json(await servicio.obtener(alcanceDe(req), req.params.id));
    });
    r.delete(`/v1/${ruta}/:id`, async (req, res) => {
      res.json(await servicio.eliminar(alcanceDe(req), req.params.id));
    });
  }
  return r;
}
