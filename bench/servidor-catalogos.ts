import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { contexto } from '../api/middleware/contexto';
import { manejadorErrores } from '../api/middleware/manejador-errores';
import { rutasCatalogos } from '../api/rutas/catalogos';
import { cargarConfigSinSecretos } from '../config/config';
import { CatalogosEnMemoria } from '../db/catalogos/memoria';
import { crearKnex } from '../db/conexion';
import { crearLogger } from '../log/logger';

/**
 * The catalog API alone, forked by bench/catalogos.ts so that the load generator does not share this
 * process's event loop. The access log is kept (written to /dev/null): every real request pays for it.
 */
async function main() {
  const config = cargarConfigSinSecretos();
  const db = crearKnex(config.databaseUrl);
  const inicio = performance.now();
  const catalogos = await CatalogosEnMemoria.cargar(db);
  const cargaMs = performance.now() - inicio;
  await db.destroy();

  const logger = crearLogger('bench-catalogos', 'info', pino.destination({ dest: '/dev/null', sync: false }));
  const app = express();
  app.disable('x-powered-by');
  app.use(contexto(logger));
  // Reference: the same stack and a same-sized answer, without the search. The gap to the catalog
  // route is what the search costs; the rest is HTTP, Express and the access log.
  const fija = {
    objeto: 'lista',
    catalogo: 'claves_prod_serv',
    datos: catalogos.buscar('claves_prod_serv', 'servicio'),
  };
  app.get('/referencia', (_req, res) => {
    res.set({ 'Cache-Control': 'public, max-age=3600', ETag: `"${catalogos.huella}"` });
    res.json(fija);
  });
  app.use(rutasCatalogos(catalogos));
  app.use(manejadorErrores);
  const servidor = app.listen(0, '127.0.0.1', () => {
    const { port } = servidor.address() as AddressInfo;
    process.send?.({ puerto: port, cargaMs, heapMb: process.memoryUsage().heapUsed / 1e6 });
  });
  // CPU used since the previous question: what each request costs the server.
  let antes = process.cpuUsage();
  process.on('message', (m) => {
    if (m !== 'cpu') return;
    const { user, system } = process.cpuUsage(antes);
    antes = process.cpuUsage();
    process.send?.({ cpuMs: (user + system) / 1000 });
  });
  // The parent going away (normal end or crash) ends this process too.
  process.on('disconnect', () => servidor.close(() => process.exit(0)));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
