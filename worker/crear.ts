import { hostname } from 'node:os';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { crearActividades, type DepsActividades } from '../activities';
import { colaPdf } from '../workflows/pdf';
import { interceptoresActividad } from './interceptores';

export interface DepsWorker {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  actividades: DepsActividades;
  /** A prebuilt bundle (the worker process and tests build it once for all their workers). */
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
}

export function identidadWorker(): string {
  return `${process.pid}@${hostname()}`;
}

function opcionesComunes(d: DepsWorker) {
  return {
    connection: d.connection,
    namespace: d.namespace,
    identity: d.actividades.identidadWorker,
    workflowBundle: d.workflowBundle,
    activities: crearActividades(d.actividades),
    interceptors: { activity: interceptoresActividad },
  };
}

/** The main task queue: stamping, cancellation, payments, webhook deliveries and the scheduled jobs. */
export async function crearWorker(d: DepsWorker): Promise<Worker> {
  return Worker.create({ ...opcionesComunes(d), taskQueue: d.taskQueue });
}

/**
 * The PDF task queue (`<cola>-pdf`): a few renders at a time from the queue, so a burst of stampings queues
 * PDFs instead of starving; a reader's on-demand render runs as a local activity beside them.
 */
export async function crearWorkerPdf(d: DepsWorker & { concurrencia: number }): Promise<Worker> {
  return Worker.create({
    ...opcionesComunes(d),
    taskQueue: colaPdf(d.taskQueue),
    maxConcurrentActivityTaskExecutions: d.concurrencia,
    maxConcurrentLocalActivityExecutions: d.concurrencia,
  });
}
