import { proxyActivities } from '@temporalio/workflow';
import type { Actividades } from '../activities';

const { registrarSonda } = proxyActivities<Actividades>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 2 },
});

/** Round trip used by GET /salud: the worker is polling, can reach MySQL and has Chromium. */
export async function sondaSalud(id: string): Promise<void> {
  await registrarSonda(id);
}
