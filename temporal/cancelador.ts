import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { Cancelador } from '../servicios/facturas';
import { esperarCancelacion, type cancelarFactura } from '../workflows/cancelacion';
import { ATRIBUTOS } from './atributos';
import { esperarAcotado } from './espera';

export const idCancelacion = (facturaId: string) => `cancelacion:${facturaId}`;

/** Cancellation through Temporal: one workflow per invoice, joined by repeated requests, bounded wait. */
export function crearCanceladorTemporal(d: {
  cliente: Client;
  taskQueue: string;
  esperaMs: number;
  intervaloSondeoMs: number;
}): Cancelador {
  return {
    async cancelar(a, factura) {
      const inicio = new WithStartWorkflowOperation<typeof cancelarFactura>('cancelarFactura', {
        workflowId: idCancelacion(factura.id),
        taskQueue: d.taskQueue,
        args: [
          { facturaId: factura.id, cuentaId: a.cuentaId, modo: a.modo, intervaloMs: d.intervaloSondeoMs },
        ],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `Cancelación de la factura ${factura.id}`,
        typedSearchAttributes: [
          { key: ATRIBUTOS.FacturaId, value: factura.id },
          { key: ATRIBUTOS.CuentaId, value: a.cuentaId },
          { key: ATRIBUTOS.Modo, value: a.modo },
          { key: ATRIBUTOS.OrganizacionId, value: factura.organizacionId },
          { key: ATRIBUTOS.EstadoFactura, value: 'cancelando' },
        ],
      });
      await esperarAcotado(
        d.cliente.workflow.executeUpdateWithStart(esperarCancelacion, { startWorkflowOperation: inicio }),
        d.esperaMs,
      );
    },
  };
}
