import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { RegistradorPagos } from '../servicios/pagos';
import { atributosPago } from '../workflows/atributos';
import { esperarPago, type registrarPago } from '../workflows/pago';
import { esperarAcotado } from './espera';

export const idPago = (pagoId: string) => `pago:${pagoId}`;

/** Payments through Temporal: Update-With-Start on the payment's own workflow id, bounded wait. */
export function crearRegistradorPagosTemporal(d: {
  cliente: Client;
  taskQueue: string;
  esperaMs: number;
}): RegistradorPagos {
  return {
    async registrar(a, pago) {
      const inicio = new WithStartWorkflowOperation<typeof registrarPago>('registrarPago', {
        workflowId: idPago(pago.id),
        taskQueue: d.taskQueue,
        args: [{ pagoId: pago.id, cuentaId: a.cuentaId, modo: a.modo }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `Pago ${pago.id} de ${pago.facturas.length} factura(s)`,
        typedSearchAttributes: atributosPago(a, pago),
      });
      await esperarAcotado(
        d.cliente.workflow.executeUpdateWithStart(esperarPago, { startWorkflowOperation: inicio }),
        d.esperaMs,
      );
    },
  };
}
