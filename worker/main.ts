import { getPriority, setPriority } from 'node:os';
import { Client } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  type LogLevel,
  type Worker,
} from '@temporalio/worker';
import { cargarConfig, cargarConfigSinSecretos, reintentosCorreo } from '../config/config';
import { crearCorreosPorModo } from '../correo/smtp';
import { CatalogosEnMemoria } from '../db/catalogos/memoria';
import { crearKnex } from '../db/conexion';
import { crearPacPara } from '../pac/fabrica';
import { bovedaSinClave, crearBoveda } from '../seguridad/boveda';
import { asegurarProgramaciones } from '../temporal/programaciones';
import { crearLogger } from '../log/logger';
import { Navegador } from '../pdf/navegador';
import { crearDepsActividades } from './composicion';
import { crearWorker, crearWorkerPdf, identidadWorker } from './crear';
import { telemetriaWorker } from './metricas';

/** Niceness 10 for this process (Chromium, launched later, inherits it); not permitted here: left as is. */
function bajarPrioridadPropia(): void {
  try {
    setPriority(Math.max(getPriority(), 10));
  } catch {
    // A container without the capability to lower its own priority still renders.
  }
}

async function main() {
  // A PDF-only worker reads no secret: it is not given the master key (docker-compose.yml's worker-pdf).
  const config = cargarConfigSinSecretos();
  const soloPdf = !config.colasWorker.includes('principal');
  const boveda = soloPdf
    ? bovedaSinClave('WORKER_COLAS=pdf solo genera PDF')
    : crearBoveda(cargarConfig().claveMaestra);
  const logger = crearLogger('worker', config.logLevel);
  try {
    Runtime.install({
      logger: new DefaultLogger('INFO', ({ level, message, meta }) => {
        const nivel = (
          { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as Record<
            LogLevel,
            string
          >
        )[level];
        logger[nivel as 'info']({ ...meta, sdk: 'temporal' }, message);
      }),
      telemetryOptions: telemetriaWorker(config.metricasWorker),
    });
  } catch (e) {
    // The usual cause is the metrics address: taken by another process, or not this machine's.
    throw new Error(
      `No se pudo iniciar el runtime de Temporal con las métricas en WORKER_METRICAS=${config.metricasWorker}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  const db = crearKnex(config.databaseUrl);
  const navegador = new Navegador(config.chromiumPath);
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const catalogos = await CatalogosEnMemoria.cargar(db);
  const cliente = new Client({ connection, namespace: config.temporal.namespace });
  const deps = {
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    actividades: crearDepsActividades({
      db,
      navegador,
      catalogos,
      boveda,
      pacPara: (modo) => crearPacPara(modo, { pac: config.pac }),
      opcionesPac: { pac: config.pac },
      identidadWorker: identidadWorker(),
      temporal: { cliente, taskQueue: config.temporal.taskQueue, correo: reintentosCorreo(config) },
      cancelacion: { intervaloSondeoMs: config.cancelacionSondeoMs, plazoMs: config.cancelacionPlazoMs },
      logger,
      webhooksLocalesEnTest: config.webhooksLocalesEnTest,
      metricas: Runtime.instance().metricMeter,
      correoPara: crearCorreosPorModo(config.correo),
      remitente: config.correo.remitente,
    }),
    // One bundle for both queues' workers: WORKER_BUNDLE's, built beforehand from this same code, or built here
    // (a few seconds of CPU at every start).
    workflowBundle: config.bundleWorkflows
      ? { codePath: config.bundleWorkflows }
      : await bundleWorkflowCode({
          workflowsPath: require.resolve('../workflows'),
          logger: new DefaultLogger('WARN'),
        }),
  };
  const colas = config.colasWorker;
  const workers: Worker[] = [];
  if (!soloPdf) workers.push(await crearWorker(deps));
  if (colas.includes('pdf'))
    workers.push(await crearWorkerPdf({ ...deps, concurrencia: config.pdfConcurrencia }));
  if (!soloPdf) await asegurarProgramaciones(cliente, { taskQueue: config.temporal.taskQueue });
  // Rendering yields the CPU to stamping on a shared machine: the whole PDF worker, not only its Chromium. Only
  // once started: at niceness 10 on a busy machine the start itself (catalogs, bundle) took minutes.
  if (soloPdf) bajarPrioridadPropia();
  logger.info(
    {
      taskQueue: config.temporal.taskQueue,
      colas,
      ...(colas.includes('pdf') ? { pdfConcurrencia: config.pdfConcurrencia } : {}),
      temporal: config.temporal.address,
      metricas: config.metricasWorker,
    },
    'worker listo',
  );
  // Worker.run() handles SIGINT/SIGTERM itself: it drains in-flight tasks, then resolves.
  await Promise.all(workers.map((w) => w.run()));
  await Promise.allSettled([navegador.cerrar(), db.destroy(), connection.close()]);
  logger.info('worker detenido');
}

main().catch((e) => {
  process.stderr.write(`worker: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
