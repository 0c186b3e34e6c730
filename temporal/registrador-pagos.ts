import type { Client } from '@temporalio/client';
import type { Alcance } from '../dominio/alcance';
import type { RegistradorPagos } from '../servicios/pagos';
import { atributosPago } from '../workflows/atributos';
import { esperarPago, type registrarPagoV2 } from '../workflows/pago';
import { iniciarOUnirse, type InicioProceso } from './espera';

export const idPago = (pagoId: string) => `pago:${pagoId}`;

/** The workflow of a payment, as the API and the start reconciler both start it (registrarPago before V2). */
export function inicioPago(
  taskQueue: string,
  a: Pick<Alcance, 'cuentaId' | 'modo' | 'origen'>,
  pago: { id: string; organizacionId: string; facturas: string[] },
): InicioProceso<typeof registrarPagoV2> {
  return {
    tipo: 'registrarPagoV2',
    workflowId: idPago(pago.id),
    taskQueue,
    entrada: { pagoId: pago.id, cuentaId: a.cuentaId, modo: a.modo, origen: a.origen },
    resumen: `Pago ${pago.id} de ${pago.facturas.length} factura(s)`,
    atributos: atributosPago(a, pago),
  };
}

/** Payments through Temporal: one workflow per payment, joined by repeated requests, bounded wait. */
export function crearRegistradorPagosTemporal(d: {
  cliente: Client;
  taskQueue: string;
  esperaMs: number;
}): RegistradorPagos {
  return {
    async registrar(a, pago) {
      await iniciarOUnirse(d.cliente, {
        ...inicioPago(d.taskQueue, a, pago),
        espera: esperarPago,
        esperaMs: d.esperaMs,
      });
    },
  };
}
