import { proxyActivities } from '@temporalio/workflow';
import type { Actividades } from '../activities';

const actividades = proxyActivities<Actividades>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

/**
 * Run by a Temporal Schedule every minute: starts the deliveries of events whose commit was not followed by a
 * dispatch (Temporal or the process was down). Returns how many events it dispatched.
 */
export async function reconciliarEventos(): Promise<number> {
  return actividades.despacharPendientes();
}

/**
 * Run by a Temporal Schedule every minute: starts (or joins) the workflow of every stamping, cancellation and
 * payment MySQL holds as waiting, for those whose start never reached Temporal. Returns how many it looked at.
 */
export async function reanudarProcesos(): Promise<number> {
  return actividades.reanudarPendientes();
}

/** Run by a Temporal Schedule daily: `certificado.por_vencer` and `certificado.vencido`, once per certificate. */
export async function revisarCertificados(): Promise<number> {
  return actividades.avisarVencimientos();
}
