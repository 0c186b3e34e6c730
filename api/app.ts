import express, { type Express, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Logger } from '../log/logger';
import { rutaOpenApi } from '../config/rutas';
import type { Servicios } from './composicion';
import { autenticacion } from './middleware/autenticacion';
import { contexto } from './middleware/contexto';
import { idempotencia } from './middleware/idempotencia';
import { limiteDeSolicitudes, type OpcionesLimite } from './middleware/limite';
import { manejadorErrores, rutaNoEncontrada } from './middleware/manejador-errores';
import { rutasCertificados } from './rutas/certificados';
import { rutasCuenta } from './rutas/cuenta';
import { rutasDocumentacion } from './rutas/documentacion';
import { rutasFacturas } from './rutas/facturas';
import { rutasOrganizaciones } from './rutas/organizaciones';
import { rutasPagos } from './rutas/pagos';
import { rutasSalud } from './rutas/salud';
import { rutasWebhooks } from './rutas/webhooks';
import type { DepsSalud } from './salud/verificar';

export interface DepsApi {
  logger: Logger;
  salud: DepsSalud;
  servicios: Servicios;
  limite: OpcionesLimite;
}

/** Every /v1 route but the catalogs needs a key. */
function soloConLlave(mw: RequestHandler): RequestHandler {
  return (req, res, next) =>
    req.originalUrl.split('?')[0]!.startsWith('/v1/catalogos') ? next() : mw(req, res, next);
}

export function crearApp(deps: DepsApi): Express {
  const { servicios } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', 'simple');
  app.use(contexto(deps.logger));
  app.use(rutasDocumentacion(rutaOpenApi()));
  // Who is asking comes before what they sent: without a valid key, a malformed or oversized body is a 401.
  app.use('/v1', soloConLlave(autenticacion({ llaves: servicios.llavesRepo, cuenta: servicios.cuenta })));
  app.use('/v1', soloConLlave(limiteDeSolicitudes(deps.limite)));
  app.use(express.json({ limit: '2mb' }));
  // HEAD is GET without a body (RFC 9110): validated and routed as GET. Node decided when the request arrived
  // that a HEAD answer has no body, so the response still carries only the headers.
  app.use((req, _res, next) => {
    if (req.method === 'HEAD') req.method = 'GET';
    next();
  });
  app.use(
    OpenApiValidator.middleware({
      apiSpec: rutaOpenApi(),
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: false,
      validateSecurity: false,
      // Certificates arrive in memory (never on disk), two small files at most.
      fileUploader: { limits: { fileSize: 1024 * 1024, files: 2, fields: 10 } },
    }),
  );
  app.use('/v1', soloConLlave(idempotencia(servicios.idempotencia)));
  app.use(rutasSalud(deps.salud));
  app.use(rutasCuenta(servicios.cuenta, servicios.llaves));
  app.use(rutasOrganizaciones(servicios));
  app.use(rutasCertificados(servicios.certificados));
  app.use(rutasFacturas(servicios.facturas, servicios.eventos));
  app.use(rutasPagos(servicios.pagos));
  app.use(rutasWebhooks(servicios.webhooks));
  app.use(rutaNoEncontrada);
  app.use(manejadorErrores);
  return app;
}
