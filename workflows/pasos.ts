import type { SearchAttributePair, UpdateDefinition } from '@temporalio/common';
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  defineUpdate,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { SolicitudAbandono } from '../activities/timbrado';
import { ATRIBUTOS } from './atributos';

/**
 * An operator's "retry now": a stamping waiting in a retry backoff (the PAC or the database was down) starts a
 * fresh attempt at once. Answers whether there was a wait to cut short.
 */
export const reintentarAhora = defineUpdate<boolean>('reintentarAhora');

/**
 * The API's bounded wait on a run (`esperarTimbrado`, `esperarPago`): answered once the run sets `resultado`.
 * The update may arrive before that, even with the run's first task.
 */
export function responderEspera<R>(espera: UpdateDefinition<R, []>) {
  const fin: { resultado?: R } = {};
  setHandler(espera, async () => {
    await condition(() => fin.resultado !== undefined);
    return fin.resultado!;
  });
  return fin;
}

/** Regular activities a retry-now may cancel: a cancelled one in backoff ends at once, a running one first ends. */
export const CANCELABLE = {
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
} as const;

/**
 * An operator abandons a stamping retrying cannot fix: the step in progress stops (its attempt ends first) and no
 * other starts. Answered once the stamping is final: `fallido`, or `timbrada` when the PAC had stamped it.
 */
export const abandonarTimbrado = defineUpdate<'timbrada' | 'fallido', [SolicitudAbandono]>(
  'abandonarTimbrado',
);

/** Thrown out of a stamping's steps once an abandon was asked: the workflow then records it. */
export class Abandonado extends Error {
  constructor() {
    super('timbrado abandonado por un operador');
    this.name = 'Abandonado';
  }
}

/** A run's abandon, if one was asked (timbrarFacturaV3 only: other workflows never set it). */
export type { SolicitudAbandono };
export interface Abandono {
  pedido?: SolicitudAbandono;
}

/**
 * Waits that an operator may cut short. One per workflow run: the update handler cancels the scope of the wait
 * in progress, and the step starts again as a new activity (attempt 1, no backoff). With `abandono`, an abandon
 * cancels the step in progress as well and no step starts after it: `Abandonado` is thrown instead.
 */
export function crearEsperas(abandono?: Abandono) {
  let actual: CancellationScope | undefined;
  let pedido = false;
  // A workflow's own wait between steps (a cancellation's polling) that the same request cuts short.
  let despertar: (() => void) | undefined;
  setHandler(reintentarAhora, () => {
    if (despertar) {
      despertar();
      return true;
    }
    if (!actual) return false;
    pedido = true;
    actual.cancel();
    return true;
  });
  const abandonada = () => abandono?.pedido !== undefined;

  /** Runs a retrying step; an operator's retry-now restarts it. The workflow's own cancellation still ends it. */
  async function cancelable<T>(paso: () => Promise<T>): Promise<T> {
    for (;;) {
      if (abandonada()) throw new Abandonado();
      const scope = new CancellationScope();
      actual = scope;
      pedido = false;
      try {
        // An attempt that ends well despite the abandon (the PAC stamped it) is the outcome.
        return await scope.run(paso);
      } catch (err) {
        if (abandonada()) throw new Abandonado();
        // Whatever the attempt ended with after the operator's request (cancelled, or failed on its way out),
        // a new one runs; a definitive error will end that one too.
        if (!pedido || CancellationScope.current().consideredCancelled) throw err;
      } finally {
        actual = undefined;
      }
    }
  }
  /**
   * `sleep(ms)` that an operator's retry-now ends early: the same one timer in the history (`condition` with a
   * timeout), so a run replays the same whether or not it was cut.
   */
  async function dormir(ms: number): Promise<void> {
    let cortado = false;
    despertar = () => void (cortado = true);
    try {
      await condition(() => cortado, ms);
    } finally {
      despertar = undefined;
    }
  }
  return Object.assign(cancelable, {
    abandonada,
    dormir,
    /** The abandon's cut: the step in progress is cancelled, and waits for its attempt to end. */
    cortar: () => actual?.cancel(),
  });
}

export type Esperas = ReturnType<typeof crearEsperas>;

/** A definitive failure (a missing record, wrong PAC settings) is thrown again at once, not retried. */
export const definitiva = (err: unknown): boolean => {
  for (let c: unknown = err; c instanceof Error; c = (c as { cause?: unknown }).cause)
    if ((c as { nonRetryable?: unknown }).nonRetryable === true) return true;
  return false;
};

/**
 * A step as a local activity first (no server round trip); when that fails, the error is shown on the workflow
 * (`ErrorTimbrado`) and a regular activity retries it for as long as it takes.
 */
export async function pasoAcotado<T>(
  nombre: string,
  esperas: Esperas,
  local: () => Promise<T>,
  remota: () => Promise<T>,
  /** Written with the error (what ops find a waiting operation by, when not written before). */
  conElError: () => SearchAttributePair[] = () => [],
): Promise<{ valor: T; falla: boolean }> {
  // Nothing more is tried once abandoned, not even the local try; a rejection already answered is still recorded.
  if (nombre !== 'registro' && esperas.abandonada()) throw new Abandonado();
  try {
    return { valor: await local(), falla: false };
  } catch (err) {
    if (definitiva(err)) throw err;
    marcarError(nombre, err, conElError());
    return { valor: await esperas(remota), falla: true };
  }
}

/** What failed and where, as the Temporal UI and `ErrorTimbrado="…"` filters show it. */
function marcarError(paso: string, err: unknown, mas: SearchAttributePair[]): void {
  upsertSearchAttributes([{ key: ATRIBUTOS.ErrorTimbrado, value: [paso, codigoDeFalla(paso, err)] }, ...mas]);
}

// The worker's interceptor gives database failures the driver's code as their type (worker/interceptores.ts).
const DE_BASE_DE_DATOS = /^(ER_|PROTOCOL_|ECONN|ETIMEDOUT|EHOSTUNREACH|ErrorBaseDeDatos$|KnexTimeoutError$)/;

/** A stable keyword for a failure: what ops filter on, the same words `timbrado.ultimo_error` uses. */
function codigoDeFalla(paso: string, err: unknown): string {
  let causa: unknown = err;
  // ActivityFailure wraps the activity's own failure.
  while (causa instanceof Error && (causa as { cause?: unknown }).cause instanceof Error)
    causa = (causa as { cause: Error }).cause;
  const tipo = (causa as { type?: unknown } | undefined)?.type;
  const t = typeof tipo === 'string' ? tipo : '';
  if (DE_BASE_DE_DATOS.test(t)) return 'base_de_datos_no_disponible';
  if (paso === 'pac') return 'pac_no_disponible';
  return t || 'error_transitorio';
}
