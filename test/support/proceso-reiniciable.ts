import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/** A server of one test file's own, which the test kills as a crash would and starts again. */
export interface ProcesoReiniciable {
  /** Milliseconds each start took until the server answered (the first one included). */
  arranquesMs: number[];
  /** Starts it with the same arguments (same data and ports); resolves once it answers. */
  arrancar(): Promise<number>;
  /** SIGKILL: no graceful shutdown; resolves once the process is gone. */
  matar(): Promise<void>;
  /** Kills it and removes its directory. */
  detener(): Promise<void>;
}

export function procesoReiniciable(o: {
  lanzar: () => ChildProcess;
  /** Resolves once the new process answers; rejects (after killing it) when it does not. */
  listo: (hijo: ChildProcess) => Promise<void>;
  dir: string;
}): ProcesoReiniciable {
  let hijo: ChildProcess | undefined;
  const arranquesMs: number[] = [];
  // A failed or interrupted test run must not leave a server behind.
  const alSalir = () => hijo?.kill('SIGKILL');
  process.once('exit', alSalir);
  const matar = async () => {
    const h = hijo;
    if (!h || h.exitCode !== null || h.signalCode !== null) return;
    await new Promise<void>((r) => {
      h.once('exit', () => r());
      h.kill('SIGKILL');
    });
  };
  return {
    arranquesMs,
    matar,
    async arrancar() {
      const t0 = Date.now();
      hijo = o.lanzar();
      await o.listo(hijo);
      const ms = Date.now() - t0;
      arranquesMs.push(ms);
      return ms;
    },
    async detener() {
      await matar();
      process.removeListener('exit', alSalir);
      rmSync(o.dir, { recursive: true, force: true });
    },
  };
}
