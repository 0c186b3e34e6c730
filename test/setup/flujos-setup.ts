import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { registrarAtributos } from '../../temporal/registrar-atributos';
import { argumentosServidorDev, esperarTemporal } from '../../scripts/temporal/servidor-dev';
import { puertosLibres } from '../support/puertos';
import { exigirTemporalCli } from '../support/servidor-temporal';

export interface RecursosFlujos {
  servidor: ChildProcess;
  archivos: string[];
}

/**
 * The `flujos` tier's infrastructure: one Temporal dev server (in memory, headless, free ports, the project's
 * search attributes) and the workflow bundle built once. No database, no Chromium: activities are faked.
 * Exported to the tests as TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and TEST_WORKFLOW_BUNDLE.
 */
export default async function flujosSetup() {
  const t0 = Date.now();
  const cli = exigirTemporalCli();

  const namespace = 'default';
  const [puerto, puertoHttp, puertoMetricas] = await puertosLibres(3);
  // Its own log file: the server's shutdown warnings would drown jest's summary.
  const rutaLog = join(tmpdir(), `cfdi-temporal-flujos-${process.pid}.log`);
  const servidor = spawn(
    cli,
    argumentosServidorDev({
      ip: '127.0.0.1',
      puerto: puerto!,
      namespace,
      puertoUi: null,
      puertoHttp,
      puertoMetricas,
      retrasoTemporizadoresMs: 10,
    }),
    { stdio: ['ignore', openSync(rutaLog, 'w'), openSync(rutaLog, 'a')], detached: true },
  );
  const rutaBundle = join(tmpdir(), `cfdi-workflows-flujos-${process.pid}.js`);
  // Kept for the teardown apart from the environment: in a run of every project, the integration tier's setup
  // sets the same variables after this one.
  (globalThis as { __flujos?: RecursosFlujos }).__flujos = { servidor, archivos: [rutaLog, rutaBundle] };
  const address = `127.0.0.1:${puerto}`;

  try {
    // The bundle builds while the server starts.
    const [bundle] = await Promise.all([
      bundleWorkflowCode({
        workflowsPath: require.resolve('../../workflows'),
        logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
      }),
      esperarTemporal(address, 60_000),
    ]);
    writeFileSync(rutaBundle, bundle.code);
    // The flags register them; this only guards against a CLI that ignored one.
    await registrarAtributos(address, namespace);
  } catch (e) {
    servidor.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${readFileSync(rutaLog, 'utf8').slice(-4000)}`);
  }

  Object.assign(process.env, {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: namespace,
    TEST_WORKFLOW_BUNDLE: rutaBundle,
  });
  process.stderr.write(
    `\nTemporal ${address} y bundle listos en ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
  );
}
