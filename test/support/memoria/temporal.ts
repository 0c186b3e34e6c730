import type { Client } from '@temporalio/client';

interface Inicio {
  tipo: string;
  workflowId: string;
  taskQueue: string;
  entrada: unknown;
  /** False when an execution with that id was already running (the start joined it). */
  nuevo: boolean;
}

/**
 * Temporal's client as the start reconciler uses it (`workflow.start` with USE_EXISTING): each start is recorded;
 * an id already running joins it. `terminar(id)` closes one, so the next start runs it anew.
 */
export function crearClienteTemporalEnMemoria() {
  const corriendo = new Set<string>();
  const inicios: Inicio[] = [];
  const cliente = {
    workflow: {
      async start(
        tipo: string,
        o: { workflowId: string; taskQueue: string; args: unknown[]; workflowIdConflictPolicy?: string },
      ) {
        if (o.workflowIdConflictPolicy !== 'USE_EXISTING') {
          throw new Error('el reconciliador debe unirse a la ejecución en curso (USE_EXISTING)');
        }
        const nuevo = !corriendo.has(o.workflowId);
        corriendo.add(o.workflowId);
        inicios.push({ tipo, workflowId: o.workflowId, taskQueue: o.taskQueue, entrada: o.args[0], nuevo });
        return { workflowId: o.workflowId };
      },
    },
  } as unknown as Client;
  return { cliente, inicios, terminar: (id: string) => corriendo.delete(id) };
}
