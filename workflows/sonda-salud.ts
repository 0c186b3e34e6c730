import { patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Actividades } from '../activities';
import { colaPdf } from './pdf';

const opciones = { startToCloseTimeout: '20 seconds', retry: { maximumAttempts: 2 } } as const;
const { registrarSonda, registrarSondaWorker } = proxyActivities<Actividades>(opciones);

// Since this patch Chromium lives in the PDF worker (its own queue): the probe proves each worker on its queue.
const PARCHE_SONDA_PDF = 'sonda-pdf';

/**
 * Round trip used by GET /salud: the worker is polling and can reach MySQL (row `<id>`), and the PDF worker is
 * polling its queue, reaches MySQL and has Chromium (row `<id>:pdf`).
 */
export async function sondaSalud(id: string): Promise<void> {
  if (!patched(PARCHE_SONDA_PDF)) return registrarSonda(id);
  const pdf = proxyActivities<Actividades>({ ...opciones, taskQueue: colaPdf(workflowInfo().taskQueue) });
  await Promise.all([registrarSondaWorker(id), pdf.registrarSonda(`${id}:pdf`)]);
}
