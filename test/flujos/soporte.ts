/**
 * The `flujos` tier: every workflow on the real Temporal dev server of test/setup/flujos-setup.ts, with its
 * activities faked per test (plain functions). Each test gets a task queue of its own, so tests never see each
 * other's workflows, and waits are test inputs (schedules, intervals), never sleeps.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, type Client, type WorkflowHandle } from '@temporalio/client';
import type { TypedSearchAttributes, UpdateDefinition } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { Actividades } from '../../activities';
import type { InicioProceso } from '../../temporal/espera';
import { atributosCorreo, atributosEntrega, type ATRIBUTOS } from '../../workflows/atributos';
import type { enviarCorreo, EntradaCorreoWorkflow } from '../../workflows/correo';
import type { entregarEvento } from '../../workflows/entrega';
import { colaPdf } from '../../workflows/pdf';

export type ActividadesFalsas = Partial<Actividades>;

export interface Flujos {
  /** A client of the shared server (inside tests only: it is connected in `beforeAll`). */
  readonly client: Client;
  /**
   * Runs `prueba` while a worker serves a fresh task queue with `actividades` (and, with `pdf`, another worker
   * its PDF queue), then shuts them down. `colaPdfOcupada`: the PDF worker takes no activity from its queue
   * (renders queued there wait), only local ones run.
   */
  conWorker<T>(
    actividades: ActividadesFalsas,
    prueba: (taskQueue: string) => Promise<T>,
    o?: { pdf?: ActividadesFalsas; colaPdfOcupada?: boolean },
  ): Promise<T>;
  /**
   * Inside a fake activity: whether it runs local (in the worker's workflow task) or regular, its attempt, and
   * the workflow's search attributes as the server holds them meanwhile (what ops see while it runs).
   */
  enCurso(): Promise<{ local: boolean; intento: number; atributos: TypedSearchAttributes }>;
}

const variable = (nombre: string): string => {
  const valor = process.env[nombre];
  if (!valor) throw new Error(`${nombre} falta: el global setup del proyecto flujos la define`);
  return valor;
};

// Once per test file (jest gives each file its own modules): the SDK's runtime can be installed only once.
let runtimeInstalado = false;

/** Connects in `beforeAll` and closes in `afterAll` of the calling test file. */
export function prepararFlujos(): Flujos {
  let entorno: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    if (!runtimeInstalado) {
      // Failing activities are what these tests script: the worker's warnings about them are noise.
      Runtime.install({ logger: new DefaultLogger('ERROR') });
      runtimeInstalado = true;
    }
    entorno = await TestWorkflowEnvironment.createFromExistingServer({
      address: variable('TEMPORAL_ADDRESS'),
      namespace: variable('TEMPORAL_NAMESPACE'),
    });
  });
  afterAll(async () => entorno?.teardown());
  const actual = () => {
    if (!entorno) throw new Error('prepararFlujos(): el entorno se conecta en beforeAll');
    return entorno;
  };
  return {
    get client() {
      return actual().client;
    },
    async conWorker(actividades, prueba, o = {}) {
      const e = actual();
      const taskQueue = `flujos-${randomUUID()}`;
      const crear = (cola: string, activities: ActividadesFalsas, enableNonLocalActivities = true) =>
        Worker.create({
          connection: e.nativeConnection,
          namespace: e.namespace,
          taskQueue: cola,
          workflowBundle: { codePath: variable('TEST_WORKFLOW_BUNDLE') },
          activities,
          enableNonLocalActivities,
          // Workflows in this thread (still in their sandbox): a worker per test then starts in a tenth of the
          // time a worker thread takes to load the bundle.
          debugMode: true,
        });
      const worker = await crear(taskQueue, actividades);
      if (!o.pdf) return worker.runUntil(prueba(taskQueue));
      const pdf = await crear(colaPdf(taskQueue), o.pdf, !o.colaPdfOcupada);
      return worker.runUntil(pdf.runUntil(prueba(taskQueue)));
    },
    async enCurso() {
      const { isLocal, attempt, workflowExecution } = Context.current().info;
      if (!workflowExecution) throw new Error('enCurso(): solo en una actividad de un workflow');
      const handle = actual().client.workflow.getHandle(workflowExecution.workflowId);
      return { local: isLocal, intento: attempt, atributos: (await handle.describe()).typedSearchAttributes };
    },
  };
}

/** A delivery as the dispatcher starts it (temporal/despachador.ts): a business-key id and its attributes. */
export function iniciarEntrega(client: Client, taskQueue: string, programaS?: number[]) {
  const entregaId = `ent_${randomUUID()}`;
  return client.workflow.start<typeof entregarEvento>('entregarEvento', {
    workflowId: `entrega:evt_1:${entregaId}`,
    taskQueue,
    args: [{ entregaId, cuentaId: 'cta_1', modo: 'test', programaS }],
    typedSearchAttributes: atributosEntrega(
      { cuentaId: 'cta_1', modo: 'test' },
      { eventoId: 'evt_1', webhookId: 'wh_1', tipo: 'factura.timbrada', datos: { id: 'fac_1' } },
    ),
  });
}

/** An email as the dispatcher starts it (temporal/despachador.ts): `correo:<correo>` and its attributes. */
export function iniciarCorreo(
  client: Client,
  taskQueue: string,
  limites: Pick<EntradaCorreoWorkflow, 'maximoEntreIntentosS' | 'plazoS'> = {},
) {
  const correoId = `cor_${randomUUID()}`;
  return client.workflow.start<typeof enviarCorreo>('enviarCorreo', {
    workflowId: `correo:${correoId}`,
    taskQueue,
    args: [{ correoId, facturaId: 'fac_1', cuentaId: 'cta_1', modo: 'test', ...limites }],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    staticSummary: `Correo ${correoId} de la factura fac_1`,
    typedSearchAttributes: atributosCorreo(
      { cuentaId: 'cta_1', modo: 'test' },
      { facturaId: 'fac_1', organizacionId: 'org_1' },
    ),
  });
}

/** The start options of `i` (built by the project's own temporal/ starters), as the API's starts use them. */
export const opcionesInicio = (i: InicioProceso) => ({
  workflowId: i.workflowId,
  taskQueue: i.taskQueue,
  args: [i.entrada],
  workflowIdConflictPolicy: 'USE_EXISTING' as const,
  typedSearchAttributes: i.atributos,
});

/**
 * As the API starts an operation (temporal/espera.ts): Update-With-Start with its wait. Returns once the update
 * is accepted: `espera.result()` is the API's answer.
 */
export async function iniciarConEspera<R>(client: Client, i: InicioProceso, update: UpdateDefinition<R, []>) {
  const inicio = new WithStartWorkflowOperation(i.tipo, opcionesInicio(i));
  const espera = await client.workflow.startUpdateWithStart(update, {
    waitForStage: 'ACCEPTED',
    startWorkflowOperation: inicio,
  });
  return { espera, handle: await inicio.workflowHandle() };
}

/** A project's search attribute as the server holds it now (the run's state, not visibility: no lag). */
export async function atributo<K extends (typeof ATRIBUTOS)[keyof typeof ATRIBUTOS]>(
  handle: WorkflowHandle,
  clave: K,
) {
  return (await handle.describe()).typedSearchAttributes.get(clave);
}

type Evento = temporal.api.history.v1.IHistoryEvent;

/**
 * Shortens the waits between retries of a running workflow's activities of one type to 10 ms, their attempts
 * kept (the server's UpdateActivityOptions): for a retry policy built into a workflow whose waits are longer than
 * this tier allows. It applies from the next failure: the test holds the first attempt until this returned.
 */
export async function acortarReintentos(client: Client, handle: WorkflowHandle, tipo: string) {
  await client.workflowService.updateActivityOptions({
    namespace: client.options.namespace,
    execution: { workflowId: handle.workflowId },
    type: tipo,
    activityOptions: { retryPolicy: { initialInterval: msToTs(10), maximumInterval: msToTs(10) } },
    updateMask: { paths: ['retry_policy.initial_interval', 'retry_policy.maximum_interval'] },
  });
}

/** The attributes of the run's history events of one type (`'timerStartedEventAttributes'`…). */
export async function eventos<K extends keyof Evento & `${string}EventAttributes`>(
  handle: WorkflowHandle,
  tipo: K,
): Promise<NonNullable<Evento[K]>[]> {
  const todos = (await handle.fetchHistory()).events ?? [];
  return todos.map((e) => e[tipo]).filter((a): a is NonNullable<Evento[K]> => a != null);
}

/** The innermost cause of a workflow's failure: the activity's own error, local or regular. */
export function causa(error: unknown): unknown {
  let c = error;
  while (c instanceof Error && c.cause instanceof Error) c = c.cause;
  return c;
}

/** An activity that never ends on its own: it ends when Temporal or the worker's shutdown cancels it. */
export const colgada = (): Promise<never> => Context.current().cancelled;

/** A promise with its resolver outside: a test step that waits until an activity has got somewhere. */
export function aviso<T = void>() {
  let resolver!: (v: T) => void;
  const promesa = new Promise<T>((r) => (resolver = r));
  return { promesa, resolver };
}

/** Polls `condicion` until it holds: for a state only the server knows (a timer started, a backoff). */
export async function hasta(condicion: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const limite = Date.now() + ms;
  while (!(await condicion())) {
    if (Date.now() > limite) throw new Error(`hasta(): la condición no se cumplió en ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
