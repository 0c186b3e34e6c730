import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Logger } from '../log/logger';
import { rutaOpenApi } from '../config/rutas';
import { contexto } from './middleware/contexto';
import { manejadorErrores, rutaNoEncontrada } from './middleware/manejador-errores';
import { rutasSalud } from './rutas/salud';
import type { DepsSalud } from './salud/verificar';

export interface DepsApi {
  logger: Logger;
  salud: DepsSalud;
}

export function crearApp(deps: DepsApi): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(contexto(deps.logger));
  app.use(express.json({ limit: '2mb' }));
  app.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').sendFile(rutaOpenApi());
  });
  app.use(
    OpenApiValidator.middleware({
      apiSpec: rutaOpenApi(),
      validateRequests: true,
      validateResponses: false,
      validateSecurity: false,
    }),
  );
  app.use(rutasSalud(deps.salud));
  app.use(rutaNoEncontrada);
  app.use(manejadorErrores);
  return app;
}
