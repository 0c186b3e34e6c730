import {
  ApplicationFailure,
  condition,
  defineSignal,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Actividades } from '../activities';
import type { EntradaEntrega, ResultadoIntento } from '../activities/entregas';
import { PROGRAMA_ENTREGA_S } from '../dominio/webhook';
import { ATRIBUTOS } from './atributos';
import { reintentarAhora } from './pasos';

export interface EntradaEntregaWorkflow extends EntradaEntrega {
  /** Seconds after the first attempt at which each attempt starts; the specification's by default. */
  programaS?: number[];
}

/**
 * The first way to "retry now", before the update of every workflow (workflows/pasos.ts). Its handler stays only
 * for deliveries whose history holds this signal: replayed without a handler it would no longer cut their wait.
 */
export const reintentarAhoraSenal = defineSignal('reintentarAhora');

// An attempt is one HTTP exchange bounded at 10 s by the sender; the activity is retried only when it could
// not log its outcome (the database), never because the receiver failed: that is the schedule's business.
const opciones = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
} as const;
// The first attempt runs in the worker without a round trip through the server: most deliveries end there.
const primero = proxyLocalActivities<Actividades>({ ...opciones, summary: 'Primer intento de entrega' });
const siguientes = proxyActivities<Actividades>({ ...opciones, summary: 'Intento de entrega' });

/**
 * One per (event, webhook) — workflow id `entrega:<evento>:<webhook>`, plus `:<n>` for the n-th resend —
 * so a delivery can never be started twice. Attempts start at the schedule's offsets after the first, each
 * wait a durable timer; after the last failure the workflow fails, so failed deliveries show as Failed.
 */
export async function entregarEvento(e: EntradaEntregaWorkflow): Promise<'entregada' | 'cancelada'> {
  const programa = e.programaS ?? [...PROGRAMA_ENTREGA_S];
  // Ops' "retry now": the next attempt starts at once instead of at its scheduled time. Only a request that
  // arrives while waiting cuts the wait short; the update answers whether there was one.
  let esperando = false;
  let adelantar = false;
  const cortarEspera = () => {
    if (esperando) adelantar = true;
    return esperando;
  };
  setHandler(reintentarAhora, cortarEspera);
  setHandler(reintentarAhoraSenal, () => void cortarEspera());
  const inicio = Date.now();
  for (let i = 0; i < programa.length; i++) {
    const espera = inicio + programa[i]! * 1000 - Date.now();
    if (espera > 0) {
      adelantar = false;
      esperando = true;
      await condition(() => adelantar, espera);
      esperando = false;
    }
    const proximo = programa[i + 1];
    const r: ResultadoIntento = await (i === 0 ? primero : siguientes).intentarEntrega({
      entregaId: e.entregaId,
      cuentaId: e.cuentaId,
      modo: e.modo,
      numero: i + 1,
      ultimo: proximo === undefined,
      proximoEn: proximo === undefined ? null : inicio + proximo * 1000,
    });
    if (r === 'entregada' || r === 'cancelada') return r;
    if (r === 'fallida') break;
    // The attempt it waits for: from the first failure on, `IntentosEntrega > 1` finds it. A first attempt that
    // succeeds (most) never writes it: it starts at 1 (see atributosEntrega).
    upsertSearchAttributes([{ key: ATRIBUTOS.IntentosEntrega, value: i + 2 }]);
  }
  throw ApplicationFailure.create({
    type: 'EntregaFallida',
    nonRetryable: true,
    message: `La entrega ${e.entregaId} falló en sus ${programa.length} intentos; el registro de intentos dice por qué.`,
  });
}
