import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../../log/logger';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
  }
}

const ID_VALIDO = /^[A-Za-z0-9_-]{8,64}$/;

/** Gives every request an id (kept from X-Request-Id when sane), a child logger and an access log line. */
export function contexto(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const entrante = req.get('x-request-id');
    req.id = entrante && ID_VALIDO.test(entrante) ? entrante : `req_${randomBytes(12).toString('hex')}`;
    req.log = logger.child({ request_id: req.id });
    res.setHeader('X-Request-Id', req.id);
    const inicio = process.hrtime.bigint();
    res.on('finish', () => {
      req.log.info(
        {
          metodo: req.method,
          ruta: req.originalUrl.split('?')[0],
          status: res.statusCode,
          duracion_ms: Number(process.hrtime.bigint() - inicio) / 1e6,
        },
        'solicitud',
      );
    });
    next();
  };
}
