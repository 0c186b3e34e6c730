import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { cargarCatalogos } from '../../db/catalogos/cargar';
import { asegurarBase, crearKnex } from '../../db/conexion';
import { migrar } from '../../db/migraciones';
import { procesoReiniciable, type ProcesoReiniciable } from './proceso-reiniciable';
import { puertosLibres } from './puertos';

const MARIADBD = process.env.TEST_MARIADBD ?? '/usr/sbin/mariadbd';
const INSTALAR = process.env.TEST_MARIADB_INSTALL_DB ?? '/usr/bin/mariadb-install-db';

/**
 * A MariaDB server of one test file's own (its data directory in /tmp, a free port, root without password
 * on 127.0.0.1), so a test can kill and restart it without touching the machine's shared server.
 */
export interface MariadbPrivada extends ProcesoReiniciable {
  /** mysql://root@127.0.0.1:<port>/<base>, migrated and with the SAT catalogs loaded (InnoDB recovers on restart). */
  url: string;
  puerto: number;
}

function exigirBinario(ruta: string) {
  try {
    accessSync(ruta, constants.X_OK);
  } catch {
    throw new Error(
      `Infraestructura de pruebas incompleta: no hay ${ruta}. Instale el servidor MariaDB (apt-get install mariadb-server).`,
    );
  }
}

async function esperarConexion(puerto: number, ms: number, hijo: ChildProcess, log: string) {
  const limite = Date.now() + ms;
  let ultimo: unknown;
  while (Date.now() < limite) {
    if (hijo.exitCode !== null || hijo.signalCode !== null) {
      throw new Error(`mariadbd terminó al arrancar:\n${readFileSync(log, 'utf8').slice(-3000)}`);
    }
    try {
      const c = await createConnection({
        host: '127.0.0.1',
        port: puerto,
        user: 'root',
        connectTimeout: 1000,
      });
      await c.end();
      return;
    } catch (e) {
      ultimo = e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(
    `mariadbd no aceptó conexiones en ${ms} ms (${(ultimo as Error)?.message}):\n${readFileSync(log, 'utf8').slice(-3000)}`,
  );
}

export async function iniciarMariadbPrivada(base = 'cfdi_reinicios'): Promise<MariadbPrivada> {
  exigirBinario(MARIADBD);
  exigirBinario(INSTALAR);
  // mariadbd refuses to run as root unless told to.
  const comoRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'cfdi-mariadb-'));
  const datos = join(dir, 'datos');
  const log = join(dir, 'mariadbd.log');
  const instalacion = spawnSync(
    INSTALAR,
    [
      '--no-defaults',
      `--datadir=${datos}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      ...(comoRoot ? ['--user=root'] : []),
    ],
    { encoding: 'utf8' },
  );
  if (instalacion.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `mariadb-install-db falló (${instalacion.status}):\n${instalacion.stderr || instalacion.stdout}`,
    );
  }
  const [puerto] = await puertosLibres(1);
  const argumentos = [
    '--no-defaults',
    `--datadir=${datos}`,
    `--port=${puerto}`,
    '--bind-address=127.0.0.1',
    `--socket=${join(dir, 'sock')}`,
    `--pid-file=${join(dir, 'pid')}`,
    `--log-error=${log}`,
    '--skip-log-bin',
    '--innodb-buffer-pool-size=64M',
    '--max-connections=200',
    ...(comoRoot ? ['--user=root'] : []),
  ];

  const proceso = procesoReiniciable({
    lanzar: () => spawn(MARIADBD, argumentos, { stdio: 'ignore' }),
    listo: (hijo) => esperarConexion(puerto!, 60_000, hijo, log),
    dir,
  });

  await proceso.arrancar();
  const url = `mysql://root@127.0.0.1:${puerto}/${base}`;
  await asegurarBase(url);
  const db = crearKnex(url);
  try {
    await migrar(db);
    await cargarCatalogos(db);
  } finally {
    await db.destroy();
  }
  return { url, puerto: puerto!, ...proceso };
}
