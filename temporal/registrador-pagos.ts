import type { Client } from '@temporalio/client';
import type { RegistradorPagos } from '../servicios/pagos';
import { atributosPago } from '../workflows/atributos';
import { esperarPago, type registrarPago } from '../workflows/pago';
import { iniciarOUnirse } from './espera';

export const idPago = (pagoId: string) => `pago:${pagoId}`;

/** Payments through Temporal: one workflow per payment, joined by repeated requests, bounded wait. */
export function crearRegistradorPagosTemporal(d: {
  cliente: Client;
  taskQueue: string;
  esperaMs: number;
}): RegistradorPagos {
  return {
    async registrar(a, pago) {
      await iniciarOUnirse<typeof registrarPago>(d.cliente, {
        tipo: 'registrarPago',
        workflowId: idPago(pago.id),
        taskQueue: d.taskQueue,
        entrada: { pagoId: pago.id, cuentaId: a.cuentaId, modo: a.modo },
        resumen: `Pago ${pago.id} de ${pago.facturas.length} factura(s)`,
        atributos: atributosPago(a, pago),
        espera: esperarPago,
        esperaMs: d.esperaMs,
      });
    },
  };
}
