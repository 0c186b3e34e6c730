import { hostname } from 'node:os';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { crearActividades, type DepsActividades } from '../activities';
import { interceptoresActividad } from './interceptores';

export interface DepsWorker {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  actividades: DepsActividades;
  /** A prebuilt bundle (tests build it once); otherwise the workflows are bundled from source at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

export function identidadWorker(): string {
  return `${process.pid}@${hostname()}`;
}

export async function crearWorker(d: DepsWorker): Promise<Worker> {
  return Worker.create({
    connection: d.connection,
    namespace: d.namespace,
    taskQueue: d.taskQueue,
    identity: d.actividades.identidadWorker,
    ...(d.workflowBundle
      ? { workflowBundle: d.workflowBundle }
      : { workflowsPath: require.resolve('../workflows') }),
    activities: crearActividades(d.actividades),
    interceptors: { activity: interceptoresActividad },
  });
}
