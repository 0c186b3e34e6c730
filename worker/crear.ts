import { hostname } from 'node:os';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Knex } from 'knex';
import { crearActividades } from '../activities';
import type { Navegador } from '../pdf/navegador';

export interface DepsWorker {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  db: Knex;
  navegador: Navegador;
  /** A prebuilt bundle (tests build it once); otherwise the workflows are bundled from source at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

export function identidadWorker(): string {
  return `${process.pid}@${hostname()}`;
}

export async function crearWorker(d: DepsWorker): Promise<Worker> {
  const identity = identidadWorker();
  return Worker.create({
    connection: d.connection,
    namespace: d.namespace,
    taskQueue: d.taskQueue,
    identity,
    ...(d.workflowBundle
      ? { workflowBundle: d.workflowBundle }
      : { workflowsPath: require.resolve('../workflows') }),
    activities: crearActividades({ db: d.db, navegador: d.navegador, identidadWorker: identity }),
  });
}
