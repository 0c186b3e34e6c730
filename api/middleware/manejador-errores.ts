import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../../log/logger';
import { esFallaDeConexion } from '../../db/conexion';
import { ErrorNegocio } from '../../dominio/errores';
import { ApiError, type TipoError } from '../errores';
import { UTF8_INVALIDO } from './entrada';
import { mensajeValidacion } from './mensajes-validacion';

interface ErrorValidador {
  status?: number;
  message?: string;
  /** The validator's 405 names the allowed methods in `Allow`. */
  headers?: Record<string, string>;
  errors?: { path?: string; message?: string; errorCode?: string }[];
  type?: string;
}

const POR_STATUS: Record<number, [TipoError, string, string]> = {
  400: ['solicitud_invalida', 'parametro_invalido', 'La solicitud no es válida.'],
  404: ['no_encontrado', 'ruta_no_encontrada', 'La ruta solicitada no existe.'],
  405: ['metodo_no_permitido', 'metodo_no_permitido', 'El método no está permitido en esta ruta.'],
  413: [
    'carga_demasiado_grande',
    'cuerpo_demasiado_grande',
    'El cuerpo de la solicitud es demasiado grande.',
  ],
  415: [
    'tipo_de_contenido',
    'tipo_de_contenido_no_soportado',
    'El tipo de contenido no está soportado: envíe el cuerpo como application/json (o multipart/form-data donde la ruta lo admite).',
  ],
};

/** A business refusal: its kind is the envelope's `tipo` and picks the status; a retry hint is `Retry-After`. */
function desdeNegocio(e: ErrorNegocio): ApiError {
  const { reintentarEnSegundos, factura, pago } = e.detalle;
  const encabezados: Record<string, string> =
    reintentarEnSegundos === undefined ? {} : { 'Retry-After': String(reintentarEnSegundos) };
  const error = new ApiError(e.tipo, e.codigo, e.message, e.parametro, encabezados);
  error.factura = factura;
  error.pago = pago;
  return error;
}

/** Maps whatever was thrown into an ApiError; unknown errors become a 500 without internals. */
export function aApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof ErrorNegocio) return desdeNegocio(err);
  // The database down or restarting: a stable 503 the client may retry, never a 500 with the driver's words.
  if (esFallaDeConexion(err)) {
    return new ApiError(
      'servicio_no_disponible',
      'base_de_datos_no_disponible',
      'La base de datos no está disponible en este momento. Intente de nuevo en unos segundos.',
      undefined,
      { 'Retry-After': '5' },
    );
  }
  const e = err as ErrorValidador & { type?: string };
  if (e?.type === 'entity.parse.failed') {
    return new ApiError('solicitud_invalida', 'json_invalido', 'El cuerpo no es JSON válido.');
  }
  if (e?.type === UTF8_INVALIDO) {
    return new ApiError(
      'solicitud_invalida',
      'utf8_invalido',
      'El cuerpo no está codificado en UTF-8 válido: envíelo en UTF-8 (el servicio no reemplaza bytes inválidos).',
    );
  }
  if (e?.type === 'entity.too.large') {
    const [tipo, codigo, mensaje] = POR_STATUS[413]!;
    return new ApiError(tipo, codigo, mensaje);
  }
  const fila = typeof e?.status === 'number' ? POR_STATUS[e.status] : undefined;
  if (fila) {
    const [tipo, codigo, mensaje] = fila;
    if (e.status === 405 && e.headers?.Allow) {
      return new ApiError(tipo, codigo, `${mensaje} Métodos permitidos: ${e.headers.Allow}.`, undefined, {
        Allow: e.headers.Allow,
      });
    }
    if (e.status !== 400) return new ApiError(tipo, codigo, mensaje);
    // Only a 400 names a parameter; for 404/405 the validator's "path" is the URL itself.
    if (!e.errors?.length) return new ApiError(tipo, codigo, mensaje);
    const validacion = mensajeValidacion(e.errors);
    return new ApiError(tipo, codigo, validacion.mensaje, validacion.parametro);
  }
  return new ApiError('interno', 'error_interno', 'Ocurrió un error interno. Intente de nuevo más tarde.');
}

/** Maps and logs what was thrown: both the Express handler and the catalog fast path answer with it. */
export function errorRegistrado(log: Logger, err: unknown): ApiError {
  const apiError = aApiError(err);
  if (apiError.status >= 500) log.error({ err }, 'error no controlado');
  else log.info({ codigo: apiError.codigo }, 'solicitud rechazada');
  return apiError;
}

// Through res.json: the idempotency middleware keeps business errors by wrapping it.
export const manejadorErrores: ErrorRequestHandler = (err, req, res, _next) => {
  const apiError = errorRegistrado(req.log, err);
  res.status(apiError.status).set(apiError.encabezados).json(apiError);
};

export const rutaNoEncontrada: RequestHandler = (_req, _res, next) => {
  const [tipo, codigo, mensaje] = POR_STATUS[404]!;
  next(new ApiError(tipo, codigo, mensaje));
};
