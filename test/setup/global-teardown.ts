import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { borrarBase } from '../../db/conexion';
import { detenerServidor } from '../support/servidor-temporal';

export default async function globalTeardown() {
  const servidor = (globalThis as { __servidorTemporal?: ChildProcess }).__servidorTemporal;
  if (servidor) await detenerServidor(servidor);
  for (const f of [process.env.TEST_WORKFLOW_BUNDLE, process.env.TEST_TEMPORAL_LOG])
    if (f) rmSync(f, { force: true });
  // The per-run database goes with the run (an explicit TEST_DATABASE_URL is kept).
  if (process.env.TEST_BASE_TEMPORAL) await borrarBase(process.env.TEST_BASE_TEMPORAL);
}
