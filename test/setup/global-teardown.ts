import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { borrarBase } from '../../db/conexion';

export default async function globalTeardown() {
  const servidor = (globalThis as { __servidorTemporal?: ChildProcess }).__servidorTemporal;
  if (servidor && servidor.exitCode === null) {
    const fin = new Promise((r) => servidor.once('exit', r));
    servidor.kill('SIGTERM');
    // The fallback timer is cleared once the server exits: a pending one kept jest alive 10 s after the run.
    let reloj: NodeJS.Timeout | undefined;
    await Promise.race([fin, new Promise((r) => (reloj = setTimeout(r, 10_000)))]);
    clearTimeout(reloj);
    if (servidor.exitCode === null) servidor.kill('SIGKILL');
  }
  for (const f of [process.env.TEST_WORKFLOW_BUNDLE, process.env.TEST_TEMPORAL_LOG])
    if (f) rmSync(f, { force: true });
  // The per-run database goes with the run (an explicit TEST_DATABASE_URL is kept).
  if (process.env.TEST_BASE_TEMPORAL) await borrarBase(process.env.TEST_BASE_TEMPORAL);
}
