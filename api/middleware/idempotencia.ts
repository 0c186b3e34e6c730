import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { RepositorioIdempotencia } from '../../db/repositorios/idempotencia';
import type { CreacionIdempotente } from '../../servicios/creacion';
import { aceptada } from '../aceptada';
import { alcanceDe } from '../alcance';
import { ApiError } from '../errores';

export const VIGENCIA_MS = 24 * 60 * 60 * 1000;
/** A request still "en curso" after this long died with its process: its key may be taken over. */
export const ABANDONO_MS = 60_000;

/** JSON with object keys sorted: the same body sent with its properties in another order is the same request. */
function canonico(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonico).join(',')}]`;
  if (v && typeof v === 'object') {
    const pares = Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonico((v as Record<string, unknown>)[k])}`);
    return `{${pares.join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

export function huellaDe(metodo: string, ruta: string, cuerpo: unknown): Buffer {
  return createHash('sha256')
    .update(`${metodo}\n${ruta}\n${canonico(cuerpo)}`)
    .digest();
}

/** What a create route hands its service: empty without `Clave-Idempotencia`. */
export const creacionDe = (res: Response): CreacionIdempotente =>
  (res.locals.creacion as CreacionIdempotente | undefined) ?? {};

/**
 * `Clave-Idempotencia` on POST: the first request runs and its answer is stored; the same key with the
 * same request replays it; with another request → 422; while the first still runs → 409, unless it already
 * committed what it creates (invoices, payments): then the retry answers for that resource (`creacionDe`), so an
 * answer lost after the commit never becomes a second invoice. Keys are scoped by account and mode and live
 * 24 h. Runs after validation, so a rejected request stores nothing.
 */
export function idempotencia(
  repo: RepositorioIdempotencia,
  ahora: () => Date = () => new Date(),
): RequestHandler {
  return async (req, res, next) => {
    const clave = req.get('clave-idempotencia');
    if (req.method !== 'POST' || clave === undefined) return next();
    if (!/^[\x21-\x7e]{1,255}$/.test(clave)) {
      throw new ApiError(
        'solicitud_invalida',
        'clave_idempotencia_invalida',
        'Clave-Idempotencia debe tener entre 1 y 255 caracteres ASCII visibles.',
        'Clave-Idempotencia',
      );
    }
    const alcance = alcanceDe(req);
    const huella = huellaDe(req.method, req.originalUrl, req.body);

    let propia = await repo.reclamar(alcance, clave, huella, ahora());
    let recurso: string | undefined;
    if (!propia) {
      const fila = await repo.leer(alcance, clave);
      const t = ahora().getTime();
      const vencida = !fila || t - new Date(fila.creado_en).getTime() > VIGENCIA_MS;
      const abandonada =
        fila?.estado === 'en_curso' && t - new Date(fila.actualizado_en).getTime() > ABANDONO_MS;
      if (!fila) {
        propia = await repo.reclamar(alcance, clave, huella, ahora());
      } else if (vencida || (abandonada && !fila.recurso)) {
        propia = await repo.retomar(alcance, clave, fila, huella, ahora());
      } else if (!fila.huella.equals(huella)) {
        throw new ApiError(
          'regla_de_negocio',
          'clave_idempotencia_reutilizada',
          'Esta Clave-Idempotencia ya se usó con otra solicitud: use una clave nueva para cada operación distinta.',
          'Clave-Idempotencia',
        );
      } else if (fila.estado === 'completada') {
        res.setHeader('Idempotencia-Repetida', 'true');
        // A replayed 202 points where the first one did: the body names the resource.
        if (fila.status === 202) aceptada(res, JSON.parse(fila.cuerpo!) as Parameters<typeof aceptada>[1]);
        res.status(fila.status!).type('application/json').send(fila.cuerpo);
        return;
      } else if (fila.recurso) {
        // Created and committed, its answer lost or still on its way: this request answers for that resource.
        recurso = fila.recurso;
      }
      if (!propia && !recurso) {
        throw new ApiError(
          'conflicto',
          'solicitud_en_curso',
          'Una solicitud con esta Clave-Idempotencia aún está en curso: reintente en unos segundos.',
          'Clave-Idempotencia',
        );
      }
    }
    const creacion: CreacionIdempotente = propia
      ? { anotar: (tx, id) => repo.anotarRecurso(tx, alcance, clave, id) }
      : { recurso };
    res.locals.creacion = creacion;

    // Store the answer before it leaves, so a retry right after it sees "completada", never "en curso".
    const json = res.json.bind(res);
    let guardada = false;
    res.json = (body: unknown) => {
      guardada = true;
      const texto = JSON.stringify(body);
      const guardar =
        res.statusCode >= 500
          ? repo.liberar(alcance, clave)
          : repo.completar(alcance, clave, huella, res.statusCode, texto, ahora());
      guardar
        .catch((e) => req.log.error({ err: e }, 'no se pudo guardar el resultado idempotente'))
        .finally(() => json(body));
      return res;
    };
    res.on('close', () => {
      if (!guardada) repo.liberar(alcance, clave).catch(() => undefined);
    });
    next();
  };
}
