import { createServer, type RequestListener, type Server } from 'node:http';
import type { CatalogosEnMemoria } from '../db/catalogos/memoria';
import type { Logger } from '../log/logger';
import { abrirSolicitud } from './middleware/contexto';
import { crearRutaCatalogos, esRutaCatalogos } from './rutas/catalogos';

/**
 * The API's HTTP server: public catalog reads go straight to their handler (Express alone costs several
 * times the cached answer there), everything else goes through the Express app and its validation.
 */
export function crearServidor(d: {
  app: RequestListener;
  catalogos: CatalogosEnMemoria;
  logger: Logger;
}): Server {
  const catalogos = crearRutaCatalogos(d.catalogos);
  return createServer((req, res) => {
    if (esRutaCatalogos(req)) catalogos(req, res, abrirSolicitud(d.logger, req, res).log);
    else void d.app(req, res);
  });
}
