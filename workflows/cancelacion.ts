import {
  allHandlersFinished,
  condition,
  defineUpdate,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Actividades } from '../activities';
import type { EstadoCancelacion } from '../activities/cancelacion';
import type { EntradaTimbrado } from '../activities/timbrado';
import { ATRIBUTOS } from './atributos';
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

const pac = proxyActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  retry: REINTENTO_PAC,
  summary: 'Cancelación con el PAC',
});

/** One per invoice (`cancelacion:<factura>`): request, then poll the SAT durably until the answer is final. */
export async function cancelarFactura(e: EntradaCancelacion): Promise<EstadoCancelacion> {
  // Set once, read by the update handler: the API's bounded wait ends with the PAC's first answer.
  const respuesta: { primera?: EstadoCancelacion } = {};
  setHandler(esperarCancelacion, async () => {
    await condition(() => respuesta.primera !== undefined);
    return respuesta.primera!;
  });
  let estado = await pac.solicitarCancelacion(e);
  respuesta.primera = estado;
  // Workflow time: deterministic on replay.
  const limite = patched(PARCHE_PLAZO) && e.plazoMs !== undefined ? Date.now() + e.plazoMs : undefined;
  while (estado === 'en_proceso') {
    await sleep(e.intervaloMs);
    estado = await pac.consultarCancelacion(e);
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
