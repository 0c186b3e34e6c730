import type { Client } from '@temporalio/client';
import type { ColaPdf } from '../activities/pdf';
import type { EntradaTimbrado } from '../activities/timbrado';
import type { Alcance } from '../dominio/alcance';
import { ATRIBUTOS } from '../workflows/atributos';
import { colaPdf, obtenerPdf, type EntradaPdf, type generarPdfFactura } from '../workflows/pdf';
import { asegurarIniciado, iniciarOUnirse, type InicioProceso } from './espera';

export { colaPdf };

export const idPdf = (facturaId: string) => `pdf:${facturaId}`;

/** The PDF workflow of a stamped CFDI, as the stamping and a read of its PDF both start it. */
export function inicioPdf(taskQueue: string, e: EntradaPdf): InicioProceso<typeof generarPdfFactura> {
  return {
    tipo: 'generarPdfFactura',
    workflowId: idPdf(e.facturaId),
    taskQueue: colaPdf(taskQueue),
    entrada: e,
    resumen: `PDF de la factura ${e.facturaId}`,
    atributos: [
      { key: ATRIBUTOS.FacturaId, value: e.facturaId },
      { key: ATRIBUTOS.CuentaId, value: e.cuentaId },
      { key: ATRIBUTOS.Modo, value: e.modo },
    ],
  };
}

/** The worker's side: the stamping hands its PDF over and ends (idempotent: one workflow per invoice). */
export function crearColaPdfTemporal(d: { cliente: Client; taskQueue: string }): ColaPdf {
  return {
    async encolar(e: EntradaTimbrado) {
      await asegurarIniciado(d.cliente, inicioPdf(d.taskQueue, e));
    },
  };
}

/**
 * The API's side: a read before the PDF is stored joins (or starts) the invoice's PDF workflow, asks for the
 * render now and waits for it at most `esperaMs`; the caller then reads the PDF from MySQL.
 */
export async function pedirPdf(
  d: { cliente: Client; taskQueue: string; esperaMs: number },
  a: Pick<Alcance, 'cuentaId' | 'modo'>,
  facturaId: string,
): Promise<void> {
  const entrada: EntradaPdf = { facturaId, cuentaId: a.cuentaId, modo: a.modo, urgente: true };
  await iniciarOUnirse(d.cliente, {
    ...inicioPdf(d.taskQueue, entrada),
    espera: obtenerPdf,
    esperaMs: d.esperaMs,
  });
}
