import { ApplicationFailure, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { Actividades } from '../activities';
import type { EntradaReexpedicion } from '../activities/globales';
import type { Modo } from '../dominio/alcance';
import { ATRIBUTOS } from './atributos';

// Database steps and the service's rules: retried with backoff while MySQL or Temporal's client is down.
const pasos = proxyActivities<Actividades>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

// Waits on another workflow's outcome as MySQL records it: each attempt looks for under a minute, then Temporal
// retries it with backoff (a stamping waiting on a PAC outage may take hours; nothing is lost meanwhile).
const esperas = proxyActivities<Actividades>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

export type ResultadoReexpedicion = 'sin_cambios' | 'cancelada' | 'rechazada' | 'vencida';

/**
 * One per claim of a receipt already in a global invoice (`reexpedicion:<recibo>`), the SAT's procedure in
 * order, each step idempotent: the buyer's invoice stamped first (failed: the sale stays in its global and
 * nothing else changes); then the global that holds the sale reissued without it (related with tipo 04) and
 * marked replaced, in one locked transaction; the reissue stamped; the replaced global cancelled with motivo 04.
 * At every point each sale is in one valid CFDI or on its way to exactly one.
 */
export async function reexpedirGlobal(e: EntradaReexpedicion): Promise<ResultadoReexpedicion> {
  const nominativa = await esperas.esperarTimbradoFinal({ ...e, facturaId: e.facturaId });
  if (nominativa === 'fallido') return 'sin_cambios';
  const x = await pasos.excluirDeGlobal(e);
  if (!x) return 'sin_cambios';
  upsertSearchAttributes([
    {
      key: ATRIBUTOS.Referencias,
      value: [e.reciboId, e.facturaId, x.anterior, ...(x.nueva ? [x.nueva] : [])],
    },
  ]);
  if (x.nueva && (await esperas.esperarTimbradoFinal({ ...e, facturaId: x.nueva })) === 'fallido') {
    // The PAC refused a subset of a CFDI it stamped: nothing retrying fixes. The old global keeps its sales
    // and stays valid; ops see this run failed, with the claim's invoice stamped beside it.
    await pasos.deshacerReexpedicion(e, x);
    throw ApplicationFailure.nonRetryable(
      `El PAC rechazó la reexpedición ${x.nueva} de la factura global ${x.anterior}: la global sigue vigente con sus recibos.`,
      'reexpedicion_rechazada',
    );
  }
  await pasos.cancelarGlobalReemplazada(e, x.anterior);
  return esperas.esperarCancelacionFinal({ ...e, facturaId: x.anterior });
}

/**
 * Run by an organization's Temporal Schedule (`cfdi-factura-global-<org>`) after each period closes: its global
 * invoices of the period that closed last. Returns the invoices issued (none when nothing was left open).
 */
export async function facturaGlobalProgramada(e: {
  cuentaId: string;
  modo: Modo;
  organizacionId: string;
}): Promise<string[]> {
  return pasos.emitirGlobalProgramada(e);
}
