import { deprecatePatch, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Actividades } from '../activities';
import { colaPdf } from './pdf';

const opciones = { startToCloseTimeout: '20 seconds', retry: { maximumAttempts: 2 } } as const;
const { registrarSondaWorker } = proxyActivities<Actividades>(opciones);

// Since this patch Chromium lives in the PDF worker (its own queue): the probe proves each worker on its queue.
// Deprecated, its old branch gone: a probe ends within its execution timeout (GET /salud's, seconds), so none
// from before the patch runs; runs of the previous release, with the marker, may for those seconds. The next
// release removes the call.
const PARCHE_SONDA_PDF = 'sonda-pdf';

/**
 * Round trip used by GET /salud: the worker is polling and can reach MySQL (row `<id>`), and the PDF worker is
 * polling its queue, reaches MySQL and has Chromium (row `<id>:pdf`).
 */
export async function sondaSalud(id: string): Promise<void> {
  deprecatePatch(PARCHE_SONDA_PDF);
  const pdf = proxyActivities<Actividades>({ ...opciones, taskQueue: colaPdf(workflowInfo().taskQueue) });
  await Promise.all([registrarSondaWorker(id), pdf.registrarSonda(`${id}:pdf`)]);
}
