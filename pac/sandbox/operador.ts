import type { RequestHandler } from 'express';
import type { Logger } from '../../log/logger';
import { conTokenOperador, desdeLoopback } from '../../seguridad/operador';

/**
 * The guard of the sandbox's global controls: they change what every account's stampings meet, so only the
 * operator may use them (loopback, or `Authorization: Bearer <TOKEN_OPERADOR>`; seguridad/operador.ts).
 * Per-document magic values stay open to integrators. No failed-attempt limit here: a token of 32
 * characters or more cannot be guessed, and the sandbox holds no secret a guess would reach.
 */
export function soloOperador(token: string | undefined, logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (desdeLoopback(req) || conTokenOperador(req, token)) return next();
    logger.warn(
      { metodo: req.method, ruta: req.path, direccion: req.socket.remoteAddress },
      'PAC sandbox: control del operador rechazado',
    );
    res
      .status(401)
      .set('WWW-Authenticate', 'Bearer realm="operador", charset="UTF-8"')
      .json({
        error: 'solo el operador',
        detalle: [
          'El control global de fallas es solo para el operador: úselo desde el propio equipo o con el token de operador (Authorization: Bearer). Para simular una falla en un solo documento use los valores mágicos SANDBOX:… en su Serie o CondicionesDePago (serie o condiciones_pago de la API).',
        ],
      });
  };
}
