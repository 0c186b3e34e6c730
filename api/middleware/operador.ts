import type { RequestHandler } from 'express';
import { conTokenOperador, desdeLoopback } from '../../seguridad/operador';
import { ApiError } from '../errores';
import { claveDeDireccion, errorDemasiadosFallos, type LimiteDeFallos } from './limite';

export interface OpcionesOperador {
  /** TOKEN_OPERADOR; absent: only loopback gets in. */
  token?: string;
  /** Shared with the API keys: a wrong token counts as a failed authentication of the address. */
  fallos: LimiteDeFallos;
}

/**
 * The guard of the API's operator routes (detailed health, metrics): loopback, or `Authorization: Bearer
 * <TOKEN_OPERADOR>` (the checks of seguridad/operador.ts, shared with the sandbox PAC's fault switch). Anyone
 * else gets one 401, whatever was wrong.
 */
export function soloOperador(op: OpcionesOperador): RequestHandler {
  return async (req, _res, next) => {
    if (desdeLoopback(req)) return next();
    const cliente = claveDeDireccion(req.ip);
    const espera = await op.fallos.espera(cliente);
    if (espera !== null) throw errorDemasiadosFallos(espera);
    if (conTokenOperador(req, op.token)) return next();
    if (await op.fallos.registrarFallo(cliente))
      req.log.warn({ cliente }, 'operador: límite de intentos fallidos alcanzado');
    throw new ApiError(
      'autenticacion',
      'operador_requerido',
      'Esta ruta es solo para el operador del servicio: consúltela desde el propio equipo o con el token de operador (Authorization: Bearer).',
      undefined,
      { 'WWW-Authenticate': 'Bearer realm="operador", charset="UTF-8"' },
    );
  };
}
