import {
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import type { SearchAttributePair, UpdateDefinition, Workflow } from '@temporalio/common';
import type * as flujos from '../workflows';

// gRPC FAILED_PRECONDITION: the server dropped the update because the workflow task carrying it failed or timed out
// (a worker killed mid-task, its sticky queue abandoned); the workflow itself goes on.
const PRECONDICION_FALLIDA = 9;

/** The update got no answer, but the operation is not refused: as if the wait had run out. */
export const sinRespuesta = (err: unknown): boolean =>
  err instanceof WorkflowUpdateRPCTimeoutOrCancelledError ||
  err instanceof WorkflowUpdateFailedError ||
  (err as { code?: unknown } | undefined)?.code === PRECONDICION_FALLIDA;

/**
 * Waits for a workflow update at most `ms`. Whatever wins, the workflow goes on; the caller reads the
 * outcome back from MySQL, the system of record. An update the server could not deliver counts as no answer.
 */
export async function esperarAcotado(actualizacion: Promise<unknown>, ms: number): Promise<void> {
  let reloj: NodeJS.Timeout | undefined;
  const limite = new Promise<void>((r) => {
    reloj = setTimeout(r, ms);
  });
  try {
    await Promise.race([
      actualizacion.catch((err: unknown) => {
        if (!sinRespuesta(err)) throw err;
      }),
      limite,
    ]);
  } finally {
    clearTimeout(reloj);
    actualizacion.catch(() => undefined);
  }
}

type Flujos = typeof flujos;

/** The names the worker registers `W` under (its exports in workflows/index.ts): a name that is not one fails. */
export type NombreFlujo<W extends Workflow> = {
  [N in keyof Flujos]: Flujos[N] extends W ? N : never;
}[keyof Flujos];

/**
 * How one workflow of the project starts: its name, a business-key id, its one input object, what ops see.
 * Typed by the workflow function (`InicioProceso<typeof timbrarFacturaV2>`, imported as a type): an input or a
 * name that does not fit it fails the typecheck.
 */
export interface InicioProceso<W extends Workflow = Workflow> {
  /** Without `W` (any workflow: its input is `any`), any name: a start already built, as this file forwards it. */
  tipo: 0 extends 1 & Parameters<W>[0] ? string : NombreFlujo<W>;
  workflowId: string;
  taskQueue: string;
  entrada: Parameters<W>[0];
  resumen: string;
  atributos: SearchAttributePair[];
}

// The start itself goes by name: the input was typed where the start was built.
const opcionesInicio = (o: InicioProceso) => ({
  workflowId: o.workflowId,
  taskQueue: o.taskQueue,
  args: [o.entrada],
  // A running execution with this id is the same operation: join it, never start a second one.
  workflowIdConflictPolicy: 'USE_EXISTING' as const,
  staticSummary: o.resumen,
  typedSearchAttributes: o.atributos,
});

/**
 * Update-With-Start on a workflow whose id is a business key: a repeated or concurrent request joins the one
 * execution instead of starting another, and the caller waits for its update at most `esperaMs`.
 */
export async function iniciarOUnirse<A extends unknown[] = []>(
  cliente: Client,
  o: InicioProceso & { espera: UpdateDefinition<unknown, A>; esperaMs: number; argumentos?: A },
): Promise<void> {
  const inicio = new WithStartWorkflowOperation(o.tipo, opcionesInicio(o));
  const corte = new AbortController();
  await esperarAcotado(
    cliente.withAbortSignal(corte.signal, () =>
      cliente.workflow.executeUpdateWithStart(o.espera as UpdateDefinition<unknown, unknown[]>, {
        args: o.argumentos ?? [],
        startWorkflowOperation: inicio,
      }),
    ),
    o.esperaMs,
  );
  // The answer is read back from MySQL: once the workflow surely exists (or surely failed to start), stop
  // following its update, so a stamping waiting hours on the PAC keeps no long poll open per request.
  const cortar = () => corte.abort();
  inicio.workflowHandle().then(cortar, cortar);
}

/**
 * The start reconciler's call: starts the workflow of an operation MySQL says is waiting, or joins the one
 * already running. A closed run does not block it: every workflow step is idempotent, so a new run ends the
 * operation where the last one left it.
 */
export async function asegurarIniciado(cliente: Client, o: InicioProceso): Promise<void> {
  await cliente.workflow.start(o.tipo, opcionesInicio(o));
}
