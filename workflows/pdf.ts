import {
  ActivityCancellationType,
  allHandlersFinished,
  CancellationScope,
  condition,
  defineUpdate,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Actividades } from '../activities';
import type { EntradaTimbrado } from '../activities/timbrado';

/** The PDF task queue beside a stamping task queue: its own worker renders, a few at a time. */
export const colaPdf = (taskQueue: string) => `${taskQueue}-pdf`;

/** The input of `pdf:<factura>`: started by the stamping for later, or by a read of the PDF for now. */
export interface EntradaPdf extends EntradaTimbrado {
  urgente?: boolean;
}

/** `GET …/pdf` before the PDF is stored: render now (not after the queue) and answer once it is stored. */
export const obtenerPdf = defineUpdate<void>('obtenerPdf');

// The background render waits its turn on the PDF queue, whose worker renders a few at a time.
const enCola = proxyActivities<Actividades>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  summary: 'PDF de la factura (en cola)',
});

// A reader is waiting: the render runs inside the workflow task, beside the queue, not behind it.
const ahora = proxyLocalActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
  summary: 'PDF de la factura (pedido por una lectura)',
});

/**
 * One per invoice (workflow id `pdf:<factura>`, on the PDF task queue): renders and stores the printed
 * representation of a stamped CFDI once. The stamping starts it and does not wait; a read that arrives first
 * joins it with `obtenerPdf`, which moves it ahead of the queue.
 */
export async function generarPdfFactura(e: EntradaPdf): Promise<void> {
  let urgente = e.urgente === true;
  let guardado = false;
  setHandler(obtenerPdf, async () => {
    urgente = true;
    await condition(() => guardado);
  });

  if (!urgente) {
    const fondo = new CancellationScope();
    const terminado = fondo
      .run(() => enCola.generarPdf(e))
      .then(
        () => true,
        (err: unknown) => {
          if (isCancellation(err)) return false;
          throw err;
        },
      );
    await Promise.race([terminado, condition(() => urgente)]);
    // Stored by the queue, or a reader came first: then the queued render is withdrawn (if it already runs,
    // it finds the PDF stored and leaves it).
    if (urgente) fondo.cancel();
    guardado = await terminado;
  }
  if (!guardado) await ahora.generarPdf(e);
  guardado = true;
  await condition(allHandlersFinished);
}
