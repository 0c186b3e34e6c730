import type { ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { rutaTemporalCli } from '../../scripts/temporal/servidor-dev';

/** The Temporal CLI the tests start their servers with, or a failure saying how to get it (never a skip). */
export function exigirTemporalCli(): string {
  const cli = rutaTemporalCli();
  try {
    accessSync(cli, constants.X_OK);
  } catch {
    throw new Error(
      `Infraestructura de pruebas incompleta: no hay Temporal CLI en ${cli}. Ejecute \`make test\`, que la compila.`,
    );
  }
  return cli;
}

/** SIGTERM, then SIGKILL if the server is still there 10 s later. */
export async function detenerServidor(servidor: ChildProcess): Promise<void> {
  if (servidor.exitCode !== null) return;
  const fin = new Promise((r) => servidor.once('exit', r));
  servidor.kill('SIGTERM');
  // Cleared once the server exits: a pending timer kept jest alive 10 s after the run.
  let reloj: NodeJS.Timeout | undefined;
  await Promise.race([fin, new Promise((r) => (reloj = setTimeout(r, 10_000)))]);
  clearTimeout(reloj);
  if (servidor.exitCode === null) servidor.kill('SIGKILL');
}
