import express, { type Express, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Logger } from '../log/logger';
import { rutaOpenApi } from '../config/rutas';
import type { Servicios } from '../composicion/servicios';
import { autenticacion } from './middleware/autenticacion';
import { contexto } from './middleware/contexto';
import {
  conMultipartComo400,
  disciplinaDeEntrada,
  exigirUtf8,
  sinCuerpoNoDeclarado,
} from './middleware/entrada';
import { idempotencia } from './middleware/idempotencia';
import {
  crearLimiteDeFallos,
  limiteDeSolicitudes,
  type OpcionesFallos,
  type OpcionesLimite,
} from './middleware/limite';
import { ApiError } from './errores';
import type { MetricasApi } from './metricas';
import { manejadorErrores, rutaNoEncontrada } from './middleware/manejador-errores';
import { soloOperador } from './middleware/operador';
import { rutasCertificados } from './rutas/certificados';
import { rutasCuenta } from './rutas/cuenta';
import { rutasDocumentacion } from './rutas/documentacion';
import { rutasFacturas } from './rutas/facturas';
import { rutasMetricas } from './rutas/metricas';
import { rutasOrganizaciones } from './rutas/organizaciones';
import { rutasPagos } from './rutas/pagos';
import { rutasSalud } from './rutas/salud';
import { rutasWebhooks } from './rutas/webhooks';
import { rutasCorreos } from './rutas/correos';
import { rutasRecibos } from './rutas/recibos';
import { rutasFacturasGlobales } from './rutas/facturas-globales';
import { rutasPendientes } from './rutas/pendientes';
import { rutasResumen } from './rutas/resumen';
import type { DepsSalud } from './salud/verificar';
import { crearLimitesAutofactura, type OpcionesLimitesAutofactura } from './middleware/limite-autofactura';
import { rutasAutofactura } from './rutas/autofactura';
import { rutasLogos } from './rutas/logos';
import { rutasConsola, type OpcionesConsola } from './consola/rutas';

export interface DepsApi {
  logger: Logger;
  salud: DepsSalud;
  servicios: Servicios;
  limite: OpcionesLimite;
  /** Failed authentications per client address before 429 (API keys and the operator token alike). */
  fallosAutenticacion: OpcionesFallos;
  /** TOKEN_OPERADOR: the operator routes from outside this machine; absent, loopback only. */
  tokenOperador?: string;
  /** PROXIES_CONFIABLES: the balancers whose X-Forwarded-For names the client; absent or empty, the TCP peer. */
  proxiesConfiables?: string[];
  /** Shared with the server's catalog fast path (crearServidor), so both count in one registry. */
  metricas: MetricasApi;
  /** The self-invoicing portal's limits per client address (its failed lookups' window is the authentications'). */
  autofactura: Pick<OpcionesLimitesAutofactura, 'porDireccion'> & { clavesFallidas: number };
  /** The console's links to the Temporal UI. */
  consola: OpcionesConsola;
}

/** Every /v1 route but the catalogs needs a key. */
function soloConLlave(mw: RequestHandler): RequestHandler {
  return (req, res, next) =>
    req.originalUrl.split('?')[0]!.startsWith('/v1/catalogos') ? next() : mw(req, res, next);
}

/** The contract's checks of a request: the validator, then the bodies it leaves unchecked. */
export function validacionContrato(): RequestHandler[] {
  return [
    ...conMultipartComo400(
      OpenApiValidator.middleware({
        apiSpec: rutaOpenApi(),
        validateRequests: { allowUnknownQueryParameters: false },
        validateResponses: false,
        validateSecurity: false,
        // Certificates arrive in memory (never on disk), two small files at most.
        fileUploader: { limits: { fileSize: 1024 * 1024, files: 2, fields: 10 } },
      }),
    ),
    sinCuerpoNoDeclarado,
  ];
}

export function crearApp(deps: DepsApi): Express {
  const { servicios } = deps;
  const app = express();
  app.disable('x-powered-by');
  // Only the listed balancers may say who the client is (X-Forwarded-For); anyone else is the TCP peer.
  app.set('trust proxy', deps.proxiesConfiables?.length ? deps.proxiesConfiables : false);
  app.set('query parser', 'simple');
  app.use(contexto(deps.logger, deps.metricas));
  app.use(rutasDocumentacion(rutaOpenApi()));
  // The console's pages and forms (HTML, urlencoded, its own session): outside the JSON contract and its checks.
  app.use(rutasConsola(servicios, deps.consola));
  // Who is asking comes before what they sent: without a valid key, a malformed or oversized body is a 401.
  const fallos = crearLimiteDeFallos(servicios.limites, deps.fallosAutenticacion);
  app.use(
    '/v1',
    soloConLlave(autenticacion({ llaves: servicios.llavesRepo, cuenta: servicios.cuenta, fallos })),
  );
  app.use('/v1', soloConLlave(limiteDeSolicitudes(servicios.limites, deps.limite)));
  // The portal's operations count against the client's address before their bodies are read.
  const limitesPortal = crearLimitesAutofactura(servicios.limites, {
    porDireccion: deps.autofactura.porDireccion,
    fallos: { maximo: deps.autofactura.clavesFallidas, ventanaMs: deps.fallosAutenticacion.ventanaMs },
  });
  app.post('/autofactura/*ruta', limitesPortal.porDireccion);
  // A GET's or HEAD's body has no meaning (RFC 9110): it is neither read nor judged, so it cannot fail them.
  const json = express.json({ limit: '2mb', verify: exigirUtf8 });
  // A buyer's key and fiscal data: a few hundred bytes.
  const jsonPortal = express.json({ limit: '16kb', verify: exigirUtf8 });
  app.use((req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    (req.path.startsWith('/autofactura/') ? jsonPortal : json)(req, res, next);
  });
  // A logo is the image itself; the service refuses one over 256 KB with its own code, the parser past 1 MB.
  const imagen = express.raw({ type: ['image/png', 'image/jpeg'], limit: '1mb' });
  app.put(
    '/v1/organizaciones/:id/logo',
    (req, _res, next) => {
      // The contract's 415, saying what this route takes (the general one speaks of JSON).
      if (req.is(['image/png', 'image/jpeg'])) return next();
      throw new ApiError(
        'tipo_de_contenido',
        'tipo_de_contenido_no_soportado',
        'El logo se envía como la imagen misma, con Content-Type image/png o image/jpeg.',
      );
    },
    imagen,
  );
  // HEAD is GET without a body (RFC 9110): validated and routed as GET. Node decided when the request arrived
  // that a HEAD answer has no body, so the response still carries only the headers.
  app.use((req, _res, next) => {
    if (req.method === 'HEAD') req.method = 'GET';
    next();
  });
  app.use(disciplinaDeEntrada);
  app.use(validacionContrato());
  app.use('/v1', soloConLlave(idempotencia(servicios.idempotencia)));
  const operador = soloOperador({ token: deps.tokenOperador, fallos });
  app.use(rutasSalud(deps.salud, operador));
  app.use(rutasMetricas(deps.metricas, operador));
  app.use(rutasCuenta(servicios.cuenta, servicios.llaves));
  app.use(rutasOrganizaciones(servicios));
  app.use(rutasLogos(servicios.logos));
  app.use(rutasAutofactura(servicios.autofactura, limitesPortal));
  app.use(rutasCertificados(servicios.certificados));
  app.use(rutasFacturas(servicios.facturas, servicios.eventos, servicios.auditoria, servicios.historia));
  app.use(rutasPagos(servicios.pagos));
  app.use(rutasRecibos(servicios.recibos));
  app.use(rutasFacturasGlobales(servicios.facturasGlobales));
  app.use(rutasWebhooks(servicios.webhooks));
  app.use(rutasCorreos(servicios.correos));
  app.use(rutasPendientes(servicios.pendientes));
  app.use(rutasResumen(servicios.resumen));
  app.use(rutaNoEncontrada);
  app.use(manejadorErrores);
  return app;
}
