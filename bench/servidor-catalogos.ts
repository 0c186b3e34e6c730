import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { crearMetricasApi } from '../api/metricas';
import { contexto } from '../api/middleware/contexto';
import { manejadorErrores, rutaNoEncontrada } from '../api/middleware/manejador-errores';
import { crearServidor } from '../api/servidor';
import { cargarConfigSinSecretos } from '../config/config';
import { CatalogosEnMemoria } from '../db/catalogos/memoria';
import { crearKnex } from '../db/conexion';
import { crearLogger } from '../log/logger';

/**
 * The API's HTTP server with the catalogs, forked by bench/catalogos.ts so that the load generator does not
 * share this process's event loop. The access log is kept (written to /dev/null): every real request pays
 * for it.
 */
async function main() {
  const config = cargarConfigSinSecretos();
  const db = crearKnex(config.databaseUrl);
  const inicio = performance.now();
  const catalogos = await CatalogosEnMemoria.cargar(db);
  // As api/main.ts: the indexes are built at start, not by the first search.
  catalogos.preparar();
  const cargaMs = performance.now() - inicio;
  await db.destroy();

  const logger = crearLogger('bench-catalogos', 'info', pino.destination({ dest: '/dev/null', sync: false }));
  // The API's own server: catalog reads never reach Express, which here only answers the rest with 404.
  // Every request pays for its metrics too; nothing scrapes them here, so the MySQL figures are never read.
  const metricas = crearMetricasApi({
    atrasos: () => Promise.reject(new Error('sin base de datos en este benchmark')),
  });
  const app = express();
  app.use(contexto(logger, metricas));
  app.use(rutaNoEncontrada);
  app.use(manejadorErrores);
  const servidor = crearServidor({ app, catalogos, logger, metricas });
  servidor.listen(0, '127.0.0.1', () => {
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
