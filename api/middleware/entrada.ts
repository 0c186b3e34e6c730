import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { caracterNoPermitido, mensajeCaracterNoPermitido } from '../../cfdi/reglas/textos';
import { ApiError } from '../errores';

/** Marks a body that is not UTF-8; `aApiError` answers it (body-parser wraps whatever `verify` throws). */
export const UTF8_INVALIDO = 'utf8_invalido';

/** express.json's `verify`: a body that is not valid UTF-8 is refused instead of decoded with U+FFFD. */
export function exigirUtf8(_req: IncomingMessage, _res: unknown, cuerpo: Buffer): void {
  if (!isUtf8(cuerpo)) throw Object.assign(new Error('cuerpo sin UTF-8 válido'), { type: UTF8_INVALIDO });
}

const unir = (ruta: string, clave: string | number) =>
  typeof clave === 'number' ? `${ruta}[${clave}]` : ruta ? `${ruta}.${clave}` : clave;

/** The first string (value or key) of a parsed JSON value holding a refused character, and where. */
function buscar(raiz: unknown, rutaRaiz: string) {
  // Iterative: a deeply nested body must not exhaust the stack.
  const pendientes: [unknown, string][] = [[raiz, rutaRaiz]];
  while (pendientes.length) {
    const [v, ruta] = pendientes.pop()!;
    if (typeof v === 'string') {
      const x = caracterNoPermitido(v);
      if (x) return { ruta, x };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) pendientes.push([v[i], unir(ruta, i)]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, hijo] of Object.entries(v)) {
        const x = caracterNoPermitido(k);
        if (x) return { ruta: unir(ruta, k), x };
        pendientes.push([hijo, unir(ruta, k)]);
      }
    }
  }
  return undefined;
}

/**
 * One input discipline for every route: no string of the body or the query may hold a character that XML
 * 1.0 or MySQL's JSON cannot store (see `cfdi/reglas/textos`). Refused with the field in `parametro`, never
 * silently changed. The SAT's own per-attribute patterns (`|`, blank text) are in openapi.yaml.
 */
export const disciplinaDeEntrada: RequestHandler = (req, _res, next) => {
  const hallazgo = buscar(req.query, '') ?? buscar(req.body, '');
  if (!hallazgo) return next();
  const campo = hallazgo.ruta || 'cuerpo';
  next(
    new ApiError(
      'solicitud_invalida',
      'caracter_no_permitido',
      mensajeCaracterNoPermitido(campo, hallazgo.x),
      campo,
    ),
  );
};

/** Whether a request brings body bytes; reads the first chunk only when no Content-Length says it. */
function traeBytes(req: IncomingMessage): Promise<boolean> {
  const largo = req.headers['content-length'];
  if (largo !== undefined) return Promise.resolve(Number(largo) > 0);
  if (req.headers['transfer-encoding'] === undefined || req.readableEnded) return Promise.resolve(false);
  return new Promise((resolver) => {
    req.once('data', () => resolver(true));
    req.once('end', () => resolver(false));
    req.once('error', () => resolver(false));
  });
}

type ConOperacion = { openapi?: { schema?: { requestBody?: unknown } } };

/**
 * The validator checks the type of a body only where the contract declares one. An operation declared without
 * a body (`POST …/timbrar`, the `DELETE`s) takes none, or an empty JSON object, as `rotar_secreto` declares
 * (many clients always send `{}`): any other body is the contract's 415, and a JSON one with fields a 400
 * naming the first, as the validator answers for a field that is not declared.
 */
export const sinCuerpoNoDeclarado: RequestHandler = (req, _res, next) => {
  const operacion = (req as ConOperacion).openapi?.schema;
  if (!operacion || operacion.requestBody || req.method === 'GET') return next();
  if (req.is('application/json')) {
    const cuerpo: unknown = req.body;
    if (cuerpo === undefined || (typeof cuerpo === 'object' && cuerpo !== null && !Array.isArray(cuerpo))) {
      const campo = cuerpo ? Object.keys(cuerpo)[0] : undefined;
      if (campo === undefined) return next();
      return next(
        new ApiError(
          'solicitud_invalida',
          'parametro_invalido',
          `El campo ${campo} no está permitido en esta solicitud: la operación no recibe cuerpo (o recibe {}).`,
          campo,
        ),
      );
    }
    return next(
      new ApiError(
        'solicitud_invalida',
        'parametro_invalido',
        'La operación no recibe cuerpo: envíela sin cuerpo o con {}.',
        'cuerpo',
      ),
    );
  }
  traeBytes(req).then((hay) => {
    if (!hay) return next();
    const [tipo, codigo, mensaje] = TIPO_NO_SOPORTADO;
    next(new ApiError(tipo, codigo, mensaje));
  }, next);
};

/** The contract's 415, saying what a bodyless operation takes. */
const TIPO_NO_SOPORTADO = [
  'tipo_de_contenido',
  'tipo_de_contenido_no_soportado',
  'El tipo de contenido no está soportado: esta operación no recibe cuerpo (envíela sin cuerpo o con {} en application/json).',
] as const;

/**
 * The validator reports any failure of its multipart parser (a truncated body, a malformed part, an
 * unexpected file field) as a 500: it is the request that is broken, so it is a 400.
 */
export function conMultipartComo400(validador: RequestHandler[]): RequestHandler[] {
  return validador.map(
    (mw): RequestHandler =>
      (req, res, next) =>
        mw(req, res, (err?: unknown) => {
          const status = (err as { status?: number } | undefined)?.status;
          if (status !== 500 || !req.is('multipart/form-data')) return next(err);
          next(
            new ApiError(
              'solicitud_invalida',
              'multipart_invalido',
              'El cuerpo multipart/form-data está incompleto o mal formado: envíe de nuevo los archivos completos.',
            ),
          );
        }),
  );
}
