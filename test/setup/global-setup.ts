import { spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { directorioSat } from '../../config/rutas';
import { cargarCatalogos } from '../../db/catalogos/cargar';
import { crearKnex, recrearBase } from '../../db/conexion';
import { migrar } from '../../db/migraciones';
import { localizarChromium } from '../../pdf/navegador';
import { argumentosServidorDev, esperarTemporal } from '../../scripts/temporal/servidor-dev';
import { puertosLibres } from '../support/puertos';
import { exigirTemporalCli } from '../support/servidor-temporal';

/**
 * Real infrastructure for the integration tests: a Temporal dev server on free ports (in memory), a
 * database of its own, Chromium, and the workflow bundle built once. Missing pieces fail loudly:
 * integration tests never skip.
 */
export default async function globalSetup() {
  const t0 = Date.now();
  const falta = (que: string, como: string) => {
    throw new Error(`Infraestructura de pruebas incompleta: ${que}. ${como}`);
  };

  // The SAT's reference files are not copied into the repository: tests read them beside it.
  const sat = directorioSat();
  if (!existsSync(join(sat, 'csd', 'MANIFEST.csv')) || !existsSync(join(sat, 'examples'))) {
    falta(
      `los archivos de referencia del SAT no están en ${sat}`,
      'El repositorio debe estar junto a la carpeta shared/ del proyecto (shared/sat con csd/, examples/, xml/ y docs/).',
    );
  }

  const cli = exigirTemporalCli();
  try {
    process.env.CHROMIUM_PATH = localizarChromium(process.env.CHROMIUM_PATH || undefined);
  } catch (e) {
    falta((e as Error).message, 'Ejecute `make test`, que la instala.');
  }

  // A database per run: two test runs on one machine (CI and a developer) must not drop each other's data.
  const databaseUrl = process.env.TEST_DATABASE_URL ?? `mysql://root@127.0.0.1:3306/cfdi_test_${process.pid}`;
  try {
    await recrearBase(databaseUrl);
  } catch (e) {
    falta(
      `MySQL no responde en ${new URL(databaseUrl).host} (${(e as Error).message})`,
      'Revise TEST_DATABASE_URL.',
    );
  }
  const db = crearKnex(databaseUrl);
  try {
    await migrar(db);
    await cargarCatalogos(db);
  } finally {
    await db.destroy();
  }

  const [puerto, puertoHttp, puertoMetricas] = await puertosLibres(3);
  // The server's own log goes to a file: its shutdown warnings would drown jest's summary.
  const rutaLog = join(tmpdir(), `cfdi-temporal-pruebas-${process.pid}.log`);
  const servidor = spawn(
    cli,
    argumentosServidorDev({
      ip: '127.0.0.1',
      puerto: puerto!,
      namespace: 'default',
      puertoUi: null,
      puertoHttp,
      puertoMetricas,
      retrasoTemporizadoresMs: 10,
    }),
    { stdio: ['ignore', openSync(rutaLog, 'w'), openSync(rutaLog, 'a')], detached: true },
  );
  const address = `127.0.0.1:${puerto}`;
  try {
    await esperarTemporal(address, 60_000);
  } catch (e) {
    servidor.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${readFileSync(rutaLog, 'utf8').slice(-4000)}`);
  }

  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  });
  const rutaBundle = join(tmpdir(), `cfdi-workflows-${process.pid}.js`);
  writeFileSync(rutaBundle, bundle.code);

  Object.assign(process.env, {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: 'default',
    TEST_WORKFLOW_BUNDLE: rutaBundle,
    TEST_BASE_TEMPORAL: process.env.TEST_DATABASE_URL ? '' : databaseUrl,
    TEST_TEMPORAL_LOG: rutaLog,
  });
  (globalThis as { __servidorTemporal?: typeof servidor }).__servidorTemporal = servidor;
  process.stderr.write(
    `\ninfraestructura de pruebas lista en ${((Date.now() - t0) / 1000).toFixed(1)} s (Temporal ${address})\n`,
  );
}
