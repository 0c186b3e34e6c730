import { RetryState } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Actividades } from '../activities';
import type { EntradaCorreo } from '../activities/correos';
import type { EstadoCorreo } from '../dominio/correo';
import { colaPdf } from './pdf';

export interface EntradaCorreoWorkflow extends EntradaCorreo {
  /** Longest wait between two attempts while the SMTP server is unreachable, in seconds (default 10 minutes). */
  maximoEntreIntentosS?: number;
  /** How long an email keeps trying before it fails, in seconds (default 3 days). */
  plazoS?: number;
}

const SIN_REINTENTO = ['RegistroInexistente'];

// The first look at the PDF and the first send run in the worker, without a round trip through the server: most
// emails end there, in one workflow task. A failure that retrying may fix goes on as a regular activity.
const primero = proxyLocalActivities<Actividades>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
  summary: 'Primer intento',
});

// The stamping renders the PDF right after the stamp: the email usually finds it stored, or waits a few seconds.
const esperaPdf = proxyActivities<Actividades>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '8 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: SIN_REINTENTO,
  },
  summary: 'Espera el PDF de la factura',
});

const registro = proxyLocalActivities<Actividades>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: SIN_REINTENTO,
  },
  summary: 'Correo fallido',
});

/**
 * A failure a retry may fix (the activity threw a retryable ApplicationFailure), of that type if given. A regular
 * activity's comes wrapped in an ActivityFailure; a local one's, as the activity threw it.
 */
function reintentable(err: unknown, tipo?: string): boolean {
  const causa = err instanceof ActivityFailure ? err.cause : err;
  return (
    causa instanceof ApplicationFailure && !causa.nonRetryable && (tipo === undefined || causa.type === tipo)
  );
}

/**
 * One per email — workflow id `correo:<correo>` — so an email can never be sent by two workflows. It waits for
 * the invoice's PDF (rendering it itself if the stamping's render never came), then hands the message to the
 * SMTP server, retried with backoff while the server is unreachable or answers 4xx. A 5xx refusal ends it
 * `fallido` at once; so does its deadline.
 */
export async function enviarCorreo(e: EntradaCorreoWorkflow): Promise<EstadoCorreo> {
  const entrada: EntradaCorreo = {
    correoId: e.correoId,
    facturaId: e.facturaId,
    cuentaId: e.cuentaId,
    modo: e.modo,
  };
  const plazo = (e.plazoS ?? 3 * 86_400) * 1000;

  let listo: 'listo' | EstadoCorreo;
  try {
    listo = await primero.pdfParaCorreo(entrada);
  } catch (err) {
    if (!reintentable(err, 'PdfPendiente')) throw err;
    try {
      listo = await esperaPdf.pdfParaCorreo(entrada);
    } catch (otra) {
      if (!reintentable(otra, 'PdfPendiente')) throw otra;
      // Nobody rendered it: render it here, on the PDF queue (a render that finds it stored leaves it).
      const renderizar = proxyActivities<Actividades>({
        taskQueue: colaPdf(workflowInfo().taskQueue),
        startToCloseTimeout: '2 minutes',
        heartbeatTimeout: '30 seconds',
        scheduleToCloseTimeout: plazo,
        retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
        summary: 'PDF de la factura para el correo',
      });
      try {
        await renderizar.generarPdf({ facturaId: e.facturaId, cuentaId: e.cuentaId, modo: e.modo });
      } catch (falla) {
        if (!(falla instanceof ActivityFailure)) throw falla;
        return registro.abandonarCorreo(entrada, { codigo: 'pdf_no_disponible', detalle: falla.message });
      }
      listo = 'listo';
    }
  }
  // Already ended: a workflow that lost its history's last steps runs again and changes nothing.
  if (listo !== 'listo') return listo;

  try {
    return await primero.intentarCorreo(entrada);
  } catch (err) {
    if (!reintentable(err)) throw err;
  }
  const maximo = (e.maximoEntreIntentosS ?? 600) * 1000;
  const envio = proxyActivities<Actividades>({
    startToCloseTimeout: '2 minutes',
    scheduleToCloseTimeout: plazo,
    retry: {
      initialInterval: Math.min(2000, maximo),
      backoffCoefficient: 2,
      maximumInterval: maximo,
      nonRetryableErrorTypes: SIN_REINTENTO,
    },
    summary: 'Envío por SMTP',
  });
  try {
    return await envio.intentarCorreo(entrada);
  } catch (err) {
    // Only the deadline abandons it: a failure that must not retry (its record gone) fails the workflow.
    if (!(err instanceof ActivityFailure) || err.retryState !== RetryState.TIMEOUT) throw err;
    return registro.abandonarCorreo(entrada, {
      codigo: 'smtp_no_disponible',
      detalle: err.cause?.message ?? err.message,
    });
  }
}
