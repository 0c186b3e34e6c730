import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { Cancelador } from '../servicios/facturas';
import { esperarCancelacion, type cancelarFactura } from '../workflows/cancelacion';
import { atributosFactura } from '../workflows/atributos';
import { esperarAcotado } from './espera';

export const idCancelacion = (facturaId: string) => `cancelacion:${facturaId}`;

/** Cancellation through Temporal: one workflow per invoice, joined by repeated requests, bounded wait. */
export function crearCanceladorTemporal(d: {
  cliente: Client;
  taskQueue: string;
  esperaMs: number;
  intervaloSondeoMs: number;
  plazoMs: number;
}): Cancelador {
  return {
    async cancelar(a, factura) {
      const inicio = new WithStartWorkflowOperation<typeof cancelarFactura>('cancelarFactura', {
        workflowId: idCancelacion(factura.id),
        taskQueue: d.taskQueue,
        args: [
          {
            facturaId: factura.id,
            cuentaId: a.cuentaId,
            modo: a.modo,
            intervaloMs: d.intervaloSondeoMs,
            plazoMs: d.plazoMs,
          },
        ],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `Cancelación de la factura ${factura.id}`,
        typedSearchAttributes: atributosFactura(a, factura, 'cancelando'),
      });
      await esperarAcotado(
        d.cliente.workflow.executeUpdateWithStart(esperarCancelacion, { startWorkflowOperation: inicio }),
        d.esperaMs,
      );
    },
  };
}
