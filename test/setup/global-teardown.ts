import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

export default async function globalTeardown() {
  const servidor = (globalThis as { __servidorTemporal?: ChildProcess }).__servidorTemporal;
  if (servidor && servidor.exitCode === null) {
    const fin = new Promise((r) => servidor.once('exit', r));
    servidor.kill('SIGTERM');
    await Promise.race([fin, new Promise((r) => setTimeout(r, 10_000))]);
    if (servidor.exitCode === null) servidor.kill('SIGKILL');
  }
  for (const f of [process.env.TEST_WORKFLOW_BUNDLE, process.env.TEST_TEMPORAL_LOG])
    if (f) rmSync(f, { force: true });
}
