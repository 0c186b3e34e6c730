import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { SearchAttributePair, UpdateDefinition } from '@temporalio/common';

/**
 * Waits for a workflow update at most `ms`. Whatever wins, the workflow goes on; the caller reads the
 * outcome back from MySQL, the system of record.
 */
export async function esperarAcotado(actualizacion: Promise<unknown>, ms: number): Promise<void> {
  let reloj: NodeJS.Timeout | undefined;
  const limite = new Promise<void>((r) => {
    reloj = setTimeout(r, ms);
  });
  try {
    await Promise.race([actualizacion, limite]);
  } finally {
    clearTimeout(reloj);
    actualizacion.catch(() => undefined);
  }
}

/**
 * Update-With-Start on a workflow whose id is a business key: a repeated or concurrent request joins the one
 * execution (`USE_EXISTING`) instead of starting another, and the caller waits for its update at most `esperaMs`.
 */
// Every workflow of the project takes one input object: `W` types it for the caller.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function iniciarOUnirse<W extends (entrada: any) => Promise<unknown>>(
  cliente: Client,
  o: {
    tipo: string;
    workflowId: string;
    taskQueue: string;
    entrada: Parameters<W>[0];
    resumen: string;
    atributos: SearchAttributePair[];
    espera: UpdateDefinition<unknown, []>;
    esperaMs: number;
  },
): Promise<void> {
  const inicio = new WithStartWorkflowOperation(o.tipo, {
    workflowId: o.workflowId,
    taskQueue: o.taskQueue,
    args: [o.entrada],
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: o.resumen,
    typedSearchAttributes: o.atributos,
  });
  await esperarAcotado(
    cliente.workflow.executeUpdateWithStart(o.espera, { startWorkflowOperation: inicio }),
    o.esperaMs,
  );
}
