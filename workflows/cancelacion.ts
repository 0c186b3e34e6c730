import {
  allHandlersFinished,
  condition,
  defineUpdate,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Actividades } from '../activities';
import type { EstadoCancelacion } from '../activities/cancelacion';
import type { EntradaTimbrado } from '../activities/timbrado';
import { ATRIBUTOS } from './atributos';

export interface EntradaCancelacion extends EntradaTimbrado {
  /** Between SAT status checks while the receiver decides (an input: workflows never read settings). */
  intervaloMs: number;
}

/** The API's bounded wait: the first answer of the PAC (cancelled at once, or in process). */
export const esperarCancelacion = defineUpdate<EstadoCancelacion>('esperarCancelacion');

const pac = proxyActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: ['ErrorPacConfiguracion', 'ErrorPacNoConfigurado'],
  },
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
  while (estado === 'en_proceso') {
    await sleep(e.intervaloMs);
    estado = await pac.consultarCancelacion(e);
  }
  upsertSearchAttributes([
    { key: ATRIBUTOS.EstadoFactura, value: estado === 'cancelada' ? 'cancelada' : 'timbrada' },
  ]);
  await condition(allHandlersFinished);
  return estado;
}
