import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Pila } from './pila';

/**
 * The real worker process (dist/worker/main.js) on the stack's task queue, PAC and database, for tests that
 * kill it with SIGKILL. Resolves once it logs `worker listo`; the caller kills what it started.
 */
export async function lanzarWorkerProceso(pila: Pila): Promise<ChildProcess> {
  const hijo = spawn(process.execPath, ['dist/worker/main.js'], {
    env: {
      ...process.env,
      TEMPORAL_TASK_QUEUE: pila.taskQueue,
      PAC_SANDBOX_URL: pila.pacUrl,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('el worker no arrancó')), 60_000);
    createInterface({ input: hijo.stdout! }).on('line', (l) => {
      if (l.includes('worker listo')) {
        clearTimeout(t);
        resolve();
      }
    });
    hijo.once('exit', (code) => reject(new Error(`el worker terminó (${code})`)));
  });
  return hijo;
}

/** The sandbox PAC's outage switch (`POST /sandbox/fallas`). */
export async function fallasPac(pila: Pila, modo: 'normal' | 'caido'): Promise<void> {
  const r = await fetch(`${pila.pacUrl}/sandbox/fallas`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ modo }),
  });
  if (!r.ok) throw new Error(`POST /sandbox/fallas ${modo}: ${r.status}`);
}
