import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import type { Knex } from 'knex';
import type { DespachadorEventos } from '../activities/entregas';
import {
  crearRepositorioCorreos,
  type CorreoPorIniciar,
  type RepositorioCorreos,
} from '../db/repositorios/correos';
import {
  crearRepositorioEntregas,
  type EntregaPorIniciar,
  type RepositorioEntregas,
} from '../db/repositorios/entregas';
import { crearRepositorioEventos, type RepositorioEventos } from '../db/repositorios/eventos';
import { crearTransacciones } from '../db/transacciones';
import type { Logger } from '../log/logger';
import type { IniciadorCorreos } from '../servicios/correos';
import type { IniciadorEntregas } from '../servicios/webhooks';
import { atributosCorreo, atributosEntrega } from '../workflows/atributos';
import { reintentarAhora } from '../workflows/pasos';
import { temporalNoDisponible } from './historias';
import type { enviarCorreo } from '../workflows/correo';
import type { entregarEvento } from '../workflows/entrega';
import type { NombreFlujo } from './espera';

/** A business key: the automatic delivery of an event to a webhook, or its n-th resend. */
export const idEntrega = (e: Pick<EntregaPorIniciar, 'evento_id' | 'webhook_id' | 'numero'>) =>
  `entrega:${e.evento_id}:${e.webhook_id}${e.numero ? `:${e.numero}` : ''}`;

/** How long an operator's retry-now may wait on Temporal before answering that it did not respond. */
const ESPERA_ADELANTO_MS = 5000;

/** A business key: one email, automatic (one per event) or a resend. */
export const idCorreo = (c: Pick<CorreoPorIniciar, 'id'>) => `correo:${c.id}`;

export interface OpcionesDespachador {
  cliente: Client;
  taskQueue: string;
  eventos: Pick<RepositorioEventos, 'paraDespacho' | 'porDespachar' | 'despachado'>;
  entregas: Pick<RepositorioEntregas, 'crearParaEvento' | 'sinIniciar'>;
  correos: Pick<RepositorioCorreos, 'crearParaEvento' | 'sinIniciar'>;
  /** The email workflows' retry limits (tests use short ones); a wait of at most 10 minutes and 3 days by default. */
  correo?: { maximoEntreIntentosS?: number; plazoS?: number };
  logger: Logger;
  /** Attempt offsets in seconds (tests use short ones); the specification's when absent. */
  programaS?: number[];
  /** An outbox row younger than this is left to the fast path that follows its commit. */
  graciaMs?: number;
}

/**
 * The outbox's consumer. After a transaction that wrote events commits, `despachar` (fast path) creates each
 * (event, subscribed webhook) delivery and the event's email to the receiver, if any, and starts their workflows; the reconciler's schedule runs
 * `despacharPendientes` for the events whose fast path never ran. Both are idempotent: delivery rows have a
 * unique key and workflow ids are business keys that refuse a second start, even after the first ended.
 */
export function crearDespachadorTemporal(
  o: OpcionesDespachador,
): DespachadorEventos & IniciadorEntregas & IniciadorCorreos & { despachar(eventoIds: string[]): void } {
  const evento = (id: string) => o.eventos.paraDespacho(id);
  // A burst of events must not become a thousand concurrent starts: the server then answers none of them
  // quickly and the first deliveries wait for the whole burst.
  const turno = limitador(32);

  /** Starts a workflow by its business key; one already started (or ended) refuses the start, as it should. */
  async function iniciarUnaVez<W extends Workflow>(
    tipo: NombreFlujo<W>,
    opciones: Omit<WorkflowStartOptions<W>, 'taskQueue' | 'workflowIdReusePolicy'>,
  ) {
    await turno.entrar();
    try {
      await o.cliente.workflow.start<W>(tipo, {
        ...opciones,
        taskQueue: o.taskQueue,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      } as WorkflowStartOptions<W>);
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    } finally {
      turno.salir();
    }
  }

  const iniciarUna = (e: EntregaPorIniciar, ev: { tipo: string; datos: Record<string, unknown> }) =>
    iniciarUnaVez<typeof entregarEvento>('entregarEvento', {
      workflowId: idEntrega(e),
      args: [{ entregaId: e.id, cuentaId: e.cuenta_id, modo: e.modo, programaS: o.programaS }],
      staticSummary: `Entrega de ${ev.tipo} ${e.evento_id} al webhook ${e.webhook_id}`,
      typedSearchAttributes: atributosEntrega(
        { cuentaId: e.cuenta_id, modo: e.modo },
        { eventoId: e.evento_id, webhookId: e.webhook_id, tipo: ev.tipo, datos: ev.datos },
      ),
    });

  const iniciarCorreo = (c: CorreoPorIniciar) =>
    iniciarUnaVez<typeof enviarCorreo>('enviarCorreo', {
      workflowId: idCorreo(c),
      args: [
        {
          correoId: c.id,
          facturaId: c.factura_id,
          cuentaId: c.cuenta_id,
          modo: c.modo,
          maximoEntreIntentosS: o.correo?.maximoEntreIntentosS,
          plazoS: o.correo?.plazoS,
        },
      ],
      staticSummary: `Correo ${c.id} de la factura ${c.factura_id}`,
      typedSearchAttributes: atributosCorreo(
        { cuentaId: c.cuenta_id, modo: c.modo },
        { facturaId: c.factura_id, organizacionId: c.organizacion_id },
      ),
    });

  async function iniciarTodas(entregas: EntregaPorIniciar[]) {
    for (const e of entregas) {
      const ev = await evento(e.evento_id);
      if (ev) await iniciarUna(e, ev);
    }
  }

  async function despacharUno(id: string): Promise<void> {
    const ev = await evento(id);
    if (ev) {
      const [entregas, correos] = await Promise.all([
        o.entregas.crearParaEvento(ev),
        o.correos.crearParaEvento(ev),
      ]);
      await Promise.all([...entregas.map((e) => iniciarUna(e, ev)), ...correos.map(iniciarCorreo)]);
    }
    await o.eventos.despachado(id);
  }

  return {
    despachar(eventoIds) {
      for (const id of eventoIds) {
        despacharUno(id).catch((err: unknown) =>
          o.logger.warn(
            { evento: id, err: { message: (err as Error).message } },
            'despacho inmediato fallido: lo hará el reconciliador',
          ),
        );
      }
    },

    async despacharPendientes() {
      const ids = await o.eventos.porDespachar(new Date(Date.now() - (o.graciaMs ?? 10_000)), 1000);
      // Sequential: a backlog after an outage must not flood Temporal all at once. One event that cannot be
      // dispatched does not hold back the others; the run still fails (and is retried) naming it.
      const fallidos: string[] = [];
      for (const id of ids) {
        await despacharUno(id).catch((err: unknown) => {
          fallidos.push(`${id}: ${(err as Error).message}`);
        });
      }
      // A resend whose start failed after its row was written (Temporal down): start it now. One already running
      // or finished refuses the start, so this changes nothing for them.
      for (const e of await o.entregas.sinIniciar(new Date(Date.now() - (o.graciaMs ?? 10_000)), 1000)) {
        await iniciarTodas([e]).catch((err: unknown) => {
          fallidos.push(`${e.id}: ${(err as Error).message}`);
        });
      }
      // Likewise an email resend.
      for (const c of await o.correos.sinIniciar(new Date(Date.now() - (o.graciaMs ?? 10_000)), 1000)) {
        await iniciarCorreo(c).catch((err: unknown) => {
          fallidos.push(`${c.id}: ${(err as Error).message}`);
        });
      }
      if (fallidos.length) {
        throw new Error(
          `${fallidos.length} eventos, entregas o correos sin despachar: ${fallidos.slice(0, 3).join('; ')}`,
        );
      }
      return ids.length;
    },

    /** For the API's resends: the row is committed, so a failed start is left to the reconciler, not lost. */
    async iniciar(entregas) {
      await iniciarTodas(entregas).catch((err: unknown) =>
        o.logger.warn(
          { entregas: entregas.map((e) => e.id), err: { message: (err as Error).message } },
          'entrega sin iniciar: la iniciará el reconciliador',
        ),
      );
    },

    /** For the API's email resends: the row is committed, so a failed start is left to the reconciler. */
    async iniciarCorreos(correos) {
      for (const c of correos) {
        await iniciarCorreo(c).catch((err: unknown) =>
          o.logger.warn(
            { correo: c.id, err: { message: (err as Error).message } },
            'correo sin iniciar: lo iniciará el reconciliador',
          ),
        );
      }
    },

    async adelantar(e) {
      try {
        const cortada = await o.cliente.withDeadline(Date.now() + ESPERA_ADELANTO_MS, () =>
          o.cliente.workflow.getHandle(idEntrega(e)).executeUpdate(reintentarAhora),
        );
        return cortada ? 'adelantada' : 'en_curso';
      } catch (err) {
        // Never started, or closed (delivered, failed, cancelled, terminated): the caller reads the row.
        if (err instanceof WorkflowNotFoundError) return 'sin_flujo';
        throw temporalNoDisponible();
      }
    },

    async detener(entregas) {
      const cancelar = (e: EntregaPorIniciar) =>
        o.cliente.workflow
          .getHandle(idEntrega(e))
          .cancel()
          .catch((err: unknown) =>
            o.logger.warn(
              { entrega: e.id, err: { message: (err as Error).message } },
              'no se pudo detener la entrega',
            ),
          );
      for (let i = 0; i < entregas.length; i += 20)
        await Promise.all(entregas.slice(i, i + 20).map(cancelar));
    },
  };
}

/** How a process reaches Temporal to start deliveries (the composition roots take it as it is). */
export type TemporalEntregas = Pick<
  OpcionesDespachador,
  'cliente' | 'taskQueue' | 'programaS' | 'graciaMs' | 'correo'
>;

/**
 * The outbox as both composition roots (API and worker) wire it: every event written through these
 * transactions is dispatched after its commit. One place, so no process writes events that only the reconciler
 * would ever send.
 */
export function crearSalidaDeEventos(db: Knex, o: TemporalEntregas & { logger: Logger }) {
  const eventos = crearRepositorioEventos(db);
  const entregas = crearRepositorioEntregas(db);
  const correos = crearRepositorioCorreos(db);
  const despachador = crearDespachadorTemporal({ ...o, eventos, entregas, correos });
  const transacciones = crearTransacciones(db, { alConfirmarEventos: despachador.despachar });
  return { eventos, entregas, correos, despachador, transacciones };
}

/** At most `n` holders at once; the others wait in arrival order. */
function limitador(n: number) {
  let libres = n;
  const cola: (() => void)[] = [];
  return {
    entrar: () => (libres > 0 ? Promise.resolve(void libres--) : new Promise<void>((r) => cola.push(r))),
    salir() {
      const siguiente = cola.shift();
      if (siguiente) siguiente();
      else libres++;
    },
  };
}
