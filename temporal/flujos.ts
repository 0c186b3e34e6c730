import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { FilaPendiente } from '../db/repositorios/pendientes';
import type { EstadoFlujo, LectorFlujos } from '../servicios/pendientes';
import { idCancelacion } from './cancelador';
import { idCorreo, idEntrega } from './despachador';
import { idReexpedicion } from './reexpedidor';
import { idPago } from './registrador-pagos';
import { idTimbrado } from './timbrador';

/** Temporal's status names as the API says them. */
const ESTADOS: Record<string, EstadoFlujo['estado']> = {
  RUNNING: 'en_curso',
  COMPLETED: 'completado',
  FAILED: 'fallido',
  CANCELLED: 'cancelado',
  TERMINATED: 'terminado',
  TIMED_OUT: 'agotado',
  CONTINUED_AS_NEW: 'continuado',
};

// A page asks at most this many at once: the Temporal frontend serves every other request meanwhile.
const A_LA_VEZ = 8;

type Marca = { seconds?: { toString(): string } | number | null; nanos?: number | null } | null | undefined;
const fecha = (m: Marca) =>
  m?.seconds == null ? null : new Date(Number(m.seconds.toString()) * 1000 + (m.nanos ?? 0) / 1e6);

/**
 * The pending view's reading of Temporal: each operation's workflow (its business-key id), its status and its
 * pending activity's attempt and last failure. One DescribeWorkflowExecution per item, a few at a time, all
 * within one deadline: an item Temporal did not describe in time says so, and nothing here ever throws.
 */
export function crearLectorFlujosTemporal(cliente: Client): LectorFlujos {
  return {
    idFlujo(f: FilaPendiente): string {
      switch (f.tipo) {
        // A payment CFDI is stamped by its payment's workflow.
        case 'timbrado':
          return f.pago_id ? idPago(f.pago_id) : idTimbrado(f.id);
        case 'cancelacion':
          return idCancelacion(f.id);
        case 'pago':
          return idPago(f.id);
        case 'correo':
          return idCorreo({ id: f.id });
        case 'entrega':
          return idEntrega({ evento_id: f.evento_id!, webhook_id: f.webhook_id!, numero: f.numero ?? 0 });
        case 'reexpedicion':
          return idReexpedicion(f.id);
      }
    },

    async describir(ids, plazoMs) {
      const limite = Date.now() + plazoMs;
      const leidos = new Map<string, EstadoFlujo | { error: string }>();
      const cola = [...new Set(ids)];
      const uno = async (id: string) => {
        try {
          const d = await cliente.withDeadline(limite, () => cliente.workflow.getHandle(id).describe());
          const p = d.raw.pendingActivities?.[0];
          leidos.set(id, {
            estado: ESTADOS[d.status.name] ?? 'desconocido',
            actividad: p
              ? {
                  nombre: p.activityType?.name ?? '',
                  intento: p.attempt ?? 1,
                  ultimaFalla: p.lastFailure?.message ?? null,
                  siguienteIntento: fecha(p.nextAttemptScheduleTime),
                }
              : null,
          });
        } catch (err) {
          if (err instanceof WorkflowNotFoundError)
            leidos.set(id, { estado: 'inexistente', actividad: null });
          else
            leidos.set(id, {
              error:
                Date.now() >= limite
                  ? 'Temporal no respondió a tiempo: se muestra lo que registra MySQL.'
                  : `Temporal no respondió (${(err as Error).message.slice(0, 200)}): se muestra lo que registra MySQL.`,
            });
        }
      };
      const trabajadores = Array.from({ length: Math.min(A_LA_VEZ, cola.length) }, async () => {
        for (let id = cola.shift(); id !== undefined; id = cola.shift()) {
          // Past the deadline, the rest are not asked at all.
          if (Date.now() >= limite)
            leidos.set(id, { error: 'Temporal no respondió a tiempo: se muestra lo que registra MySQL.' });
          else await uno(id);
        }
      });
      await Promise.all(trabajadores);
      return leidos;
    },
  };
}
