import type { Client } from '@temporalio/client';
import type { Cancelador } from '../servicios/facturas';
import { esperarCancelacion, type cancelarFactura } from '../workflows/cancelacion';
import { atributosFactura } from '../workflows/atributos';
import { iniciarOUnirse } from './espera';

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
      await iniciarOUnirse<typeof cancelarFactura>(d.cliente, {
        tipo: 'cancelarFactura',
        workflowId: idCancelacion(factura.id),
        taskQueue: d.taskQueue,
        entrada: {
          facturaId: factura.id,
          cuentaId: a.cuentaId,
          modo: a.modo,
          intervaloMs: d.intervaloSondeoMs,
          plazoMs: d.plazoMs,
        },
        resumen: `Cancelación de la factura ${factura.id}`,
        atributos: atributosFactura(a, factura, 'cancelando'),
        espera: esperarCancelacion,
        esperaMs: d.esperaMs,
      });
    },
  };
}
