import { ErrorTiempoAgotado } from './errores';
import { respuestaDe, type Transporte } from './transporte';

export interface OpcionesEspera {
  /** Give up after this long (default 60 s) with `ErrorTiempoAgotado`. */
  tiempoMaximoMs?: number;
  /** Pause between reads when the answer has no `Retry-After` (default 1 s). */
  intervaloMs?: number;
  signal?: AbortSignal;
}

interface Recurso {
  id: string;
}

/**
 * Polls a resource until `terminado` says so. Given the object of a 202 answer it follows that answer's
 * `Location` (same origin only) after its `Retry-After`; given an id, or with neither header, it reads
 * `rutaPorOmision` and pauses `intervaloMs`. Each later read's `Retry-After`, if any, sets the next pause.
 */
export async function esperarHasta<T extends Recurso>(
  transporte: Transporte,
  recurso: T | string,
  rutaPorOmision: (id: string) => string,
  terminado: (x: T) => boolean,
  descripcion: string,
  op: OpcionesEspera = {},
): Promise<T> {
  const intervaloMs = op.intervaloMs ?? 1000;
  const limite = Date.now() + (op.tiempoMaximoMs ?? 60_000);
  let ultimo = typeof recurso === 'string' ? undefined : recurso;
  if (ultimo && terminado(ultimo)) return ultimo;
  const id = typeof recurso === 'string' ? recurso : recurso.id;
  const meta = ultimo ? respuestaDe(ultimo) : undefined;
  const ruta = meta?.ubicacion ?? rutaPorOmision(id);
  // With only an id nothing is known yet: read at once.
  let pausa = ultimo ? (meta?.reintentarEnMs ?? intervaloMs) : 0;

  for (;;) {
    const restante = limite - Date.now();
    if (restante <= 0) {
      throw new ErrorTiempoAgotado(`${descripcion} de ${id} no terminó a tiempo.`, ultimo);
    }
    if (pausa > 0) await transporte.dormir(Math.min(pausa, restante));
    op.signal?.throwIfAborted();
    ultimo = await transporte.json<T>({ metodo: 'GET', ruta, opciones: { signal: op.signal } });
    if (terminado(ultimo)) return ultimo;
    pausa = respuestaDe(ultimo)?.reintentarEnMs ?? intervaloMs;
  }
}
