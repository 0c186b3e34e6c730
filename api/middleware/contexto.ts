import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '../../log/logger';
import type { MetricasApi } from '../metricas';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
  }
}

const ID_VALIDO = /^[A-Za-z0-9_-]{8,64}$/;

// Unique without a syscall per request: a random prefix per process and a counter (ids are not secrets).
const PREFIJO = randomBytes(8).toString('hex');
let contador = 0;

function nuevoId(): string {
  contador = (contador + 1) >>> 0;
  return `req_${PREFIJO}${contador.toString(16).padStart(8, '0')}`;
}

// The API answers JSON, never a page to frame or a script to run; the docs page loads only its own files.
const CSP_API = "default-src 'none'; frame-ancestors 'none'";
const CSP_DOCS =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";
/**
 * The self-invoicing portal runs its own script and style sheet only (no inline code, nothing from elsewhere), shows
 * the logo inline (data:), talks only to this origin and cannot be framed: whatever a receipt holds, no script
 * injected into it could run or send the buyer's key anywhere.
 */
export const CSP_PORTAL =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The console is server-rendered and runs no script at all: its style sheet, inline SVG charts, forms posting to
 * itself, never framed.
 */
export const CSP_CONSOLA =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; " +
  "base-uri 'none'";

/** Headers every answer carries, whichever path serves it; authenticated answers are never cached. */
function encabezadosDeSeguridad(res: ServerResponse, ruta: string): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  const portal = ruta === '/autofactura' || ruta.startsWith('/autofactura/');
  const consola = ruta === '/consola' || ruta.startsWith('/consola/');
  res.setHeader(
    'Content-Security-Policy',
    ruta.startsWith('/docs') ? CSP_DOCS : portal ? CSP_PORTAL : consola ? CSP_CONSOLA : CSP_API,
  );
  // The portal's answers carry a receipt's or a buyer's data, and its page's address the key; the console's, an
  // account's: never stored (the console's style sheet sets its own).
  if ((ruta.startsWith('/v1/') && !ruta.startsWith('/v1/catalogos')) || portal || consola)
    res.setHeader('Cache-Control', 'no-store');
}

export interface Solicitud {
  id: string;
  log: Logger;
}

/** What a finished request is reported to. */
export type MedidorSolicitudes = Pick<MetricasApi, 'solicitud'>;

/**
 * Gives a request its id (kept from X-Request-Id when sane), a child logger, an access log line and its
 * metrics. Plain Node types: the catalog fast path and the Express middleware share it.
 */
export function abrirSolicitud(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  metricas: MedidorSolicitudes,
): Solicitud {
  const entrante = req.headers['x-request-id'];
  const id = typeof entrante === 'string' && ID_VALIDO.test(entrante) ? entrante : nuevoId();
  const log = logger.child({ request_id: id });
  res.setHeader('X-Request-Id', id);
  // Read now: Express rewrites req.url inside mounted routers.
  const url = req.url ?? '';
  const q = url.indexOf('?');
  const ruta = q < 0 ? url : url.slice(0, q);
  encabezadosDeSeguridad(res, ruta);
  // Also read now: the app handles HEAD as GET, and the metrics keep what the client sent.
  const metodo = req.method ?? '';
  const inicio = process.hrtime.bigint();
  res.on('finish', () => {
    const duracionMs = Number(process.hrtime.bigint() - inicio) / 1e6;
    // The balancer's and the container's liveness checks (every second, every replica): logged only when they fail.
    const nivel = ruta === '/salud/vivo' && res.statusCode === 200 ? 'debug' : 'info';
    log[nivel]({ metodo: req.method, ruta, status: res.statusCode, duracion_ms: duracionMs }, 'solicitud');
    metricas.solicitud(metodo, ruta, res.statusCode, duracionMs / 1000);
  });
  return { id, log };
}

export function contexto(logger: Logger, metricas: MedidorSolicitudes): RequestHandler {
  return (req, res, next) => {
    const { id, log } = abrirSolicitud(logger, req, res, metricas);
    req.id = id;
    req.log = log;
    next();
  };
}
