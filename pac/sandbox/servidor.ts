import express, { type Express } from 'express';
import type { Logger } from '../../log/logger';

export const VERSION_SANDBOX = 'pac-sandbox/0.1';

/** The sandbox PAC: a real HTTP service that test mode talks to through the production adapter. */
export function crearServidorPac(deps: { logger: Logger }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/salud', (_req, res) => {
    res.json({ estado: 'ok', version: VERSION_SANDBOX });
  });
  app.use((req, res) => {
    deps.logger.info({ metodo: req.method, ruta: req.path }, 'ruta desconocida');
    res.status(404).json({ error: 'ruta desconocida' });
  });
  return app;
}
