import type { Client } from '@temporalio/client';
import type { Alcance } from '../dominio/alcance';
import type { IniciadorReexpedicion } from '../servicios/recibos';
import { ATRIBUTOS } from '../workflows/atributos';
import type { reexpedirGlobal } from '../workflows/globales';
import { asegurarIniciado, type InicioProceso } from './espera';

export const idReexpedicion = (reciboId: string) => `reexpedicion:${reciboId}`;

/**
 * The workflow that takes a claimed sale out of its global invoice, as the API and the start reconciler both
 * start it. Found among the global's workflows by `FacturaId` and by the receipt or the buyer's invoice in
 * `Referencias`.
 */
export function inicioReexpedicion(
  taskQueue: string,
  a: Pick<Alcance, 'cuentaId' | 'modo'>,
  r: { id: string; facturaId: string; globalId: string; organizacionId: string },
): InicioProceso<typeof reexpedirGlobal> {
  return {
    tipo: 'reexpedirGlobal',
    workflowId: idReexpedicion(r.id),
    taskQueue,
    entrada: { reciboId: r.id, facturaId: r.facturaId, cuentaId: a.cuentaId, modo: a.modo },
    resumen: `Factura del recibo ${r.id} fuera de la global ${r.globalId} (motivo 04)`,
    atributos: [
      { key: ATRIBUTOS.FacturaId, value: r.globalId },
      { key: ATRIBUTOS.CuentaId, value: a.cuentaId },
      { key: ATRIBUTOS.Modo, value: a.modo },
      { key: ATRIBUTOS.OrganizacionId, value: r.organizacionId },
      { key: ATRIBUTOS.Referencias, value: [r.id, r.facturaId] },
    ],
  };
}

export function crearIniciadorReexpedicion(d: { cliente: Client; taskQueue: string }): IniciadorReexpedicion {
  return {
    async iniciar(a, r) {
      await asegurarIniciado(d.cliente, inicioReexpedicion(d.taskQueue, a, r));
    },
  };
}
