import {
  allHandlersFinished,
  condition,
  defineUpdate,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Actividades } from '../activities';
import type { EstadoCancelacion } from '../activities/cancelacion';
import type { EntradaTimbrado } from '../activities/timbrado';
import { ATRIBUTOS } from './atributos';
import { CANCELABLE, crearEsperas } from './pasos';
import { REINTENTO_PAC } from './reintentos';

export interface EntradaCancelacion extends EntradaTimbrado {
  /** Between SAT status checks while the receiver decides (an input: workflows never read settings). */
  intervaloMs: number;
  /** How long a cancellation awaiting the receiver is followed before it ends `vencida`. */
  plazoMs?: number;
}

// Cancellations started before the tracking window existed polled without end: their histories replay as they were.
// It stays: such a cancellation polls until the SAT's answer is final, which nothing of ours bounds, and
// cancelarFactura is still the type started. Deprecate it once the README's check (Ops, "Retiring old workflow
// code") finds no running cancellation without its marker.
const PARCHE_PLAZO = 'cancelacion-plazo';

/** The API's bounded wait: the first answer of the PAC (cancelled at once, or in process). */
export const esperarCancelacion = defineUpdate<EstadoCancelacion>('esperarCancelacion');

// Cancellable (a retry-now cuts its backoff short: the activity in backoff ends at once, a running one first ends
// its call), as a stamping's PAC step.
const pac = proxyActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  retry: REINTENTO_PAC,
  summary: 'Cancelación con el PAC',
  ...CANCELABLE,
});

/**
 * One per invoice (`cancelacion:<factura>`): request, then poll the SAT durably until the answer is final. An
 * operator's retry-now (`reintentarAhora`, the API's `…/cancelacion/reintentar`) cuts the PAC call's backoff or the
 * wait before the next poll short. No patch: the cut steps are the same commands (an activity scheduled in a
 * cancellation scope, one timer per wait), so runs from before it replay unchanged (their recorded histories do).
 */
export async function cancelarFactura(e: EntradaCancelacion): Promise<EstadoCancelacion> {
  // Set once, read by the update handler: the API's bounded wait ends with the PAC's first answer.
  const respuesta: { primera?: EstadoCancelacion } = {};
  setHandler(esperarCancelacion, async () => {
    await condition(() => respuesta.primera !== undefined);
    return respuesta.primera!;
  });
  const esperas = crearEsperas();
  let estado = await esperas(() => pac.solicitarCancelacion(e));
  respuesta.primera = estado;
  // Workflow time: deterministic on replay.
  const limite = patched(PARCHE_PLAZO) && e.plazoMs !== undefined ? Date.now() + e.plazoMs : undefined;
  while (estado === 'en_proceso') {
    await esperas.dormir(e.intervaloMs);
    estado = await esperas(() => pac.consultarCancelacion(e));
    if (estado === 'en_proceso' && limite !== undefined && Date.now() >= limite) {
      estado = await pac.vencerCancelacion(e);
    }
  }
  upsertSearchAttributes([
    { key: ATRIBUTOS.EstadoFactura, value: estado === 'cancelada' ? 'cancelada' : 'timbrada' },
  ]);
  await condition(allHandlersFinished);
  return estado;
}
