import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type LogLevel } from '@temporalio/worker';
import { cargarConfig } from '../config/config';
import { CatalogosEnMemoria } from '../db/catalogos/memoria';
import { crearKnex } from '../db/conexion';
import { crearPacPara } from '../pac/fabrica';
import { crearBoveda } from '../seguridad/boveda';
import { asegurarProgramaciones } from '../temporal/programaciones';
import { crearLogger } from '../log/logger';
import { Navegador } from '../pdf/navegador';
import { crearDepsActividades } from './composicion';
import { crearWorker, identidadWorker } from './crear';
import { telemetriaWorker } from './metricas';

async function main() {
  const config = cargarConfig();
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
  const worker = await crearWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    actividades: crearDepsActividades({
      db,
      navegador,
      catalogos,
      boveda: crearBoveda(config.claveMaestra),
      pacPara: (modo) => crearPacPara(modo, { pac: config.pac }),
      identidadWorker: identidadWorker(),
      temporal: { cliente, taskQueue: config.temporal.taskQueue },
      cancelacion: { intervaloSondeoMs: config.cancelacionSondeoMs, plazoMs: config.cancelacionPlazoMs },
      logger,
      webhooksLocalesEnTest: config.webhooksLocalesEnTest,
      metricas: Runtime.instance().metricMeter,
    }),
  });
  await asegurarProgramaciones(cliente, { taskQueue: config.temporal.taskQueue });
  logger.info(
    {
      taskQueue: config.temporal.taskQueue,
      temporal: config.temporal.address,
      metricas: config.metricasWorker,
    },
    'worker listo',
  );
  // Worker.run() handles SIGINT/SIGTERM itself: it drains in-flight tasks, then resolves.
  await worker.run();
  await Promise.allSettled([navegador.cerrar(), db.destroy(), connection.close()]);
  logger.info('worker detenido');
}

main().catch((e) => {
  process.stderr.write(`worker: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
