import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { raizProyecto } from '../../config/rutas';
import { atributosParaCli } from '../../workflows/atributos';

/** Where the Temporal CLI lives: $TEMPORAL_CLI, else what scripts/temporal-cli.sh says (one rule, in the script). */
export function rutaTemporalCli(): string {
  if (process.env.TEMPORAL_CLI) return process.env.TEMPORAL_CLI;
  return execFileSync('bash', [join(raizProyecto(), 'scripts/temporal-cli.sh'), '--ruta'], {
    encoding: 'utf8',
  }).trim();
}

export interface OpcionesServidorDev {
  ip: string;
  puerto: number;
  namespace: string;
  /** null: no Web UI. */
  puertoUi: number | null;
  /** SQLite file so workflows survive a restart; undefined keeps everything in memory. */
  archivoDb?: string;
  puertoHttp?: number;
  puertoMetricas?: number;
  /**
   * Test servers: how late a timer (or a retry's backoff) may fire. The server's default, 1 s, made every short
   * wait of a test take about a second.
   */
  retrasoTemporizadoresMs?: number;
}

export function argumentosServidorDev(o: OpcionesServidorDev): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    o.ip,
    '--port',
    String(o.puerto),
    '--namespace',
    o.namespace,
    '--log-level',
    'warn',
    ...(o.puertoUi === null ? ['--headless'] : ['--ui-port', String(o.puertoUi)]),
    // WAL without a sync per commit: every state transition of every workflow is a commit, and an fsync
    // each made the file-backed dev server the bottleneck. Still safe against process crashes.
    ...(o.archivoDb
      ? [
          '--db-filename',
          o.archivoDb,
          '--sqlite-pragma',
          'journal_mode=wal',
          '--sqlite-pragma',
          'synchronous=normal',
        ]
      : []),
    ...(o.puertoHttp ? ['--http-port', String(o.puertoHttp)] : []),
    ...(o.puertoMetricas ? ['--metrics-port', String(o.puertoMetricas)] : []),
    ...(o.retrasoTemporizadoresMs === undefined
      ? []
      : ['--dynamic-config-value', `history.timerProcessorMaxTimeShift="${o.retrasoTemporizadoresMs}ms"`]),
    ...atributosParaCli().flatMap((a) => ['--search-attribute', a]),
  ];
}

/** Resolves once the frontend answers, or rejects after `ms`. */
export async function esperarTemporal(address: string, ms: number): Promise<string> {
  const limite = Date.now() + ms;
  let ultimo: unknown;
  while (Date.now() < limite) {
    try {
      const c = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        const info = await c.workflowService.getSystemInfo({});
        return info.serverVersion ?? '';
      } finally {
        await c.close();
      }
    } catch (e) {
      ultimo = e;
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  throw new Error(`Temporal no respondió en ${address} tras ${ms} ms: ${(ultimo as Error)?.message}`);
}
