import { randomUUID } from 'node:crypto';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { raizProyecto } from '../../config/rutas';
import { borrarBase, crearKnex, partesUrl, recrearBase } from '../../db/conexion';
import { migrar } from '../../db/migraciones';
import { procesosDelServicio, type Proceso, type Replicas } from '../../scripts/replicas';
import { matar } from './fallas';
import { puertosLibres } from './puertos';

/**
 * A database of a test file's own (`<run's database>_<sufijo>`), migrated, with the SAT catalogs copied from the
 * run's (server-side, about a second). For stacks whose schedules scan every account (the outbox reconciler, the
 * start reconciler) or whose APIs count failed authentications by address: on the run's shared database they would
 * take over other files' waiting operations and count their 127.0.0.1 failures.
 */
export async function baseAparte(
  origen: string,
  sufijo = 'escala',
): Promise<{ url: string; borrar(): Promise<void> }> {
  const { base } = partesUrl(origen);
  const url = new URL(origen);
  url.pathname = `/${base}_${sufijo}`;
  await recrearBase(url.toString());
  const db = crearKnex(url.toString(), { min: 1, max: 1 });
  try {
    await migrar(db);
    const [tablas] = (await db.raw(
      `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ? AND table_name LIKE 'cat\\_%'`,
      [base],
    )) as [{ t: string }[]];
    // One connection: the session's FOREIGN_KEY_CHECKS holds for every copy.
    await db.raw('SET FOREIGN_KEY_CHECKS = 0');
    for (const { t } of tablas) {
      await db.raw('DELETE FROM ??', [t]);
      await db.raw('INSERT INTO ?? SELECT * FROM ??.??', [t, base, t]);
    }
  } finally {
    await db.destroy();
  }
  return { url: url.toString(), borrar: () => borrarBase(url.toString()) };
}

export interface ServicioReplicado {
  /** The public address (HAProxy). */
  url: string;
  /** Each API replica's own address, by name (`api1`, `api2`). */
  apis: Record<string, string>;
  pacUrl: string;
  taskQueue: string;
  /** Milliseconds from the launch until each process was ready, by name. */
  arranquesMs: Record<string, number>;
  /** SIGKILL of one process by name (`api1`, `worker2`, `pdf1`…), resolved once it is gone. */
  matar(nombre: string): Promise<void>;
  /** The last lines a process wrote (for a failure's message). */
  cola(nombre: string, caracteres?: number): string;
  detener(): Promise<void>;
}

async function esperarHttp(url: string, ms: number, hijo: ChildProcess, nombre: string): Promise<void> {
  const limite = Date.now() + ms;
  for (;;) {
    if (hijo.exitCode !== null) throw new Error(`${nombre} terminó (${hijo.exitCode}) antes de responder`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2000) })).ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > limite) throw new Error(`${nombre} no respondió en ${url}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function esperarLinea(archivo: string, texto: string, ms: number, hijo: ChildProcess, nombre: string) {
  const limite = Date.now() + ms;
  while (!readFileSync(archivo, 'utf8').includes(texto)) {
    if (hijo.exitCode !== null) throw new Error(`${nombre} terminó (${hijo.exitCode}) antes de «${texto}»`);
    if (Date.now() > limite) throw new Error(`${nombre} no escribió «${texto}»`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The service as `make up` runs it with replicas (scripts/replicas.ts: the same process list and HAProxy
 * configuration), from dist/, on free ports, a task queue of its own and the given Temporal server, against the
 * test run's database. Each process writes its log to a file of a temporary folder.
 */
export async function iniciarServicioReplicado(o: {
  temporalAddress: string;
  databaseUrl: string;
  replicas: Replicas;
  /** Settings for every process (limits, waits, the PAC's latency…). */
  entorno?: Record<string, string>;
}): Promise<ServicioReplicado> {
  const dir = mkdtempSync(join(tmpdir(), 'cfdi-escala-'));
  const [publico, pac, ...puertosApi] = await puertosLibres(2 + o.replicas.api);
  const taskQueue = `escala-${randomUUID()}`;
  const rutaBalanceador = join(dir, 'haproxy.cfg');
  const { procesos, balanceador } = procesosDelServicio({
    replicas: o.replicas,
    node: process.execPath,
    host: '127.0.0.1',
    puertoPublico: publico!,
    puertosApi,
    // Any free port for each worker's metrics: a running `make up` holds the defaults.
    metricasWorker: '127.0.0.1:0',
    rutaBalanceador,
  });
  if (balanceador) writeFileSync(rutaBalanceador, balanceador);
  const haproxy = procesos.find((p) => p.tipo === 'haproxy');
  if (haproxy && spawnSync(haproxy.comando, ['-v']).error)
    throw new Error(
      'Infraestructura de pruebas incompleta: no hay HAProxy. Ejecute `make test`, que lo instala (apt-get install haproxy).',
    );
  const pacUrl = `http://127.0.0.1:${pac}`;
  const comun: Record<string, string> = {
    TEMPORAL_ADDRESS: o.temporalAddress,
    DATABASE_URL: o.databaseUrl,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PAC_SANDBOX_URL: pacUrl,
    PAC_SANDBOX_PORT: String(pac),
    HOST: '127.0.0.1',
    // The bundle the suite built once (global setup): four workers would each spend seconds building it.
    WORKER_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE!,
    ...o.entorno,
  };
  const hijos = new Map<string, { proceso: Proceso; hijo: ChildProcess; log: string }>();
  const alSalir = () => {
    for (const { hijo } of hijos.values()) hijo.kill('SIGKILL');
  };
  process.once('exit', alSalir);

  const lanzar = (p: Proceso) => {
    const log = join(dir, `${p.nombre}.log`);
    const salida = openSync(log, 'a');
    const hijo = spawn(p.comando, p.argumentos, {
      cwd: raizProyecto(),
      // Workers say `worker listo` at info; the API and the PAC log every request: warnings only.
      env: {
        ...process.env,
        LOG_LEVEL: ['worker', 'pdf'].includes(p.tipo) ? 'info' : 'warn',
        ...comun,
        ...p.entorno,
      },
      stdio: ['ignore', salida, salida],
    });
    // A spawn that fails is reported by `listo` (the process has exited), not as an uncaught error.
    hijo.on('error', () => undefined);
    hijos.set(p.nombre, { proceso: p, hijo, log });
    return { hijo, log };
  };
  const arranquesMs: Record<string, number> = {};
  const inicio = Date.now();
  const listo = async (p: Proceso) => {
    const { hijo, log } = hijos.get(p.nombre)!;
    if (p.tipo === 'worker' || p.tipo === 'pdf')
      await esperarLinea(log, 'worker listo', 90_000, hijo, p.nombre);
    else {
      const ruta = p.tipo === 'pac' ? '/salud' : '/salud/vivo';
      await esperarHttp(`http://127.0.0.1:${p.puerto ?? pac}${ruta}`, 90_000, hijo, p.nombre);
    }
    arranquesMs[p.nombre] = Date.now() - inicio;
  };

  const cola = (nombre: string, caracteres = 3000) => {
    const h = hijos.get(nombre);
    return h ? `── ${nombre} ──\n${readFileSync(h.log, 'utf8').slice(-caracteres)}` : '';
  };
  const detener = async () => {
    // Every process at once: nothing here needs a graceful stop.
    await Promise.all([...hijos.values()].map(({ hijo }) => matar(hijo)));
    process.removeListener('exit', alSalir);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    // All at once: the workers' bundling and the APIs' catalogs overlap (the balancer checks its servers itself).
    for (const p of procesos) lanzar(p);
    await Promise.all(procesos.map(listo));
  } catch (e) {
    const colas = procesos.map((p) => cola(p.nombre, 1500)).join('\n');
    await detener();
    throw new Error(`${(e as Error).message}\n${colas}`);
  }
  const url = `http://127.0.0.1:${publico}`;
  return {
    url,
    apis: Object.fromEntries(
      procesos.filter((p) => p.tipo === 'api').map((p) => [p.nombre, `http://127.0.0.1:${p.puerto}`]),
    ),
    pacUrl,
    taskQueue,
    arranquesMs,
    matar: async (nombre) => matar(hijos.get(nombre)!.hijo),
    cola,
    detener,
  };
}
