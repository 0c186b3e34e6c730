import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Alcance } from '../dominio/alcance';
import type { Cancelador } from '../servicios/facturas';
import { esperarCancelacion, type cancelarFactura } from '../workflows/cancelacion';
import { atributosFactura } from '../workflows/atributos';
import { reintentarAhora } from '../workflows/pasos';
import { iniciarOUnirse, type InicioProceso } from './espera';
import { temporalNoDisponible } from './historias';

export const idCancelacion = (facturaId: string) => `cancelacion:${facturaId}`;

/** The SAT status polling of a cancellation: workflows never read settings, so it travels in the input. */
export interface SondeoCancelacion {
  intervaloSondeoMs: number;
  plazoMs: number;
}

/** The cancellation workflow of an invoice, as the API and the start reconciler both start it. */
export function inicioCancelacion(
  taskQueue: string,
  a: Pick<Alcance, 'cuentaId' | 'modo' | 'origen'>,
  factura: { id: string; organizacionId: string },
  s: SondeoCancelacion,
): InicioProceso<typeof cancelarFactura> {
  return {
    tipo: 'cancelarFactura',
    workflowId: idCancelacion(factura.id),
    taskQueue,
    entrada: {
      facturaId: factura.id,
      cuentaId: a.cuentaId,
      modo: a.modo,
      origen: a.origen,
      intervaloMs: s.intervaloSondeoMs,
      plazoMs: s.plazoMs,
    },
    resumen: `Cancelación de la factura ${factura.id}`,
    atributos: atributosFactura(a, factura, 'cancelando'),
  };
}

/** Cancellation through Temporal: one workflow per invoice, joined by repeated requests, bounded wait. */
export function crearCanceladorTemporal(
  d: { cliente: Client; taskQueue: string; esperaMs: number } & SondeoCancelacion,
): Cancelador {
  const cancelar: Cancelador['cancelar'] = async (a, factura) => {
    await iniciarOUnirse(d.cliente, {
      ...inicioCancelacion(d.taskQueue, a, factura, d),
      espera: esperarCancelacion,
      esperaMs: d.esperaMs,
    });
  };
  return {
    cancelar,
    async reintentar(a, factura) {
      try {
        await d.cliente.withDeadline(Date.now() + ESPERA_ADELANTO_MS, () =>
          d.cliente.workflow.getHandle(idCancelacion(factura.id)).executeUpdate(reintentarAhora),
        );
      } catch (err) {
        // Gone (terminated, never started): started again below. A run from before the update has no handler
        // for it: it is joined as it is. Anything else is Temporal not answering.
        if (!(err instanceof WorkflowNotFoundError) && !(err instanceof WorkflowUpdateFailedError))
          throw temporalNoDisponible();
      }
      await cancelar(a, factura);
    },
  };
}

/** How long a retry-now may wait on Temporal before answering that it did not respond. */
const ESPERA_ADELANTO_MS = 5000;
