import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '../../log/logger';

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

export interface Solicitud {
  id: string;
  log: Logger;
}

/**
 * Gives a request its id (kept from X-Request-Id when sane), a child logger and an access log line.
 * Plain Node types: the catalog fast path and the Express middleware share it.
 */
export function abrirSolicitud(logger: Logger, req: IncomingMessage, res: ServerResponse): Solicitud {
  const entrante = req.headers['x-request-id'];
  const id = typeof entrante === 'string' && ID_VALIDO.test(entrante) ? entrante : nuevoId();
  const log = logger.child({ request_id: id });
  res.setHeader('X-Request-Id', id);
  // Read now: Express rewrites req.url inside mounted routers.
  const url = req.url ?? '';
  const q = url.indexOf('?');
  const ruta = q < 0 ? url : url.slice(0, q);
  const inicio = process.hrtime.bigint();
  res.on('finish', () => {
    log.info(
      {
        metodo: req.method,
        ruta,
        status: res.statusCode,
        duracion_ms: Number(process.hrtime.bigint() - inicio) / 1e6,
      },
      'solicitud',
    );
  });
  return { id, log };
}

export function contexto(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const { id, log } = abrirSolicitud(logger, req, res);
    req.id = id;
    req.log = log;
    next();
  };
}
