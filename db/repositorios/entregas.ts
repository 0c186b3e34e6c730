import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import type { Pagina, Tramo } from '../../dominio/paginacion';
import type { EstadoEntrega, IntentoEntrega } from '../../dominio/webhook';
import { nuevoId } from '../ids';
import { paginar } from '../paginacion';
import { conexion, type Transaccion } from '../transacciones';
import { columnasAlcance, conAlcance, leerJson } from './con-alcance';

export interface FilaEntrega {
  id: string;
  modo: Modo;
  evento_id: string;
  tipo_evento: string;
  webhook_id: string;
  numero: number;
  estado: EstadoEntrega;
  proximo_intento_en: Date | null;
  creado_en: Date;
  actualizado_en: Date;
  intentos: IntentoEntrega[];
}

/** A delivery with the address it was sent to (the audit package's log). */
export type FilaEntregaConUrl = FilaEntrega & { webhook_url: string };

/** A delivery that needs its workflow, with what its search attributes say. */
export interface EntregaPorIniciar {
  id: string;
  cuenta_id: string;
  modo: Modo;
  evento_id: string;
  webhook_id: string;
  numero: number;
}

const COLUMNAS = [
  'entregas.id',
  'entregas.modo',
  'entregas.evento_id',
  'e.tipo as tipo_evento',
  'entregas.webhook_id',
  'entregas.numero',
  'entregas.estado',
  'entregas.proximo_intento_en',
  'entregas.creado_en',
  'entregas.actualizado_en',
];

// The columns of an `EntregaPorIniciar`.
const POR_INICIAR = ['id', 'cuenta_id', 'modo', 'evento_id', 'webhook_id', 'numero'];

type FilaBd = Omit<FilaEntrega, 'intentos'>;

export function crearRepositorioEntregas(db: Knex) {
  const consulta = (a: Pick<Alcance, 'cuentaId' | 'modo'>, tx?: Transaccion) =>
    conAlcance(conexion(db, tx), 'entregas', a)
      .join('eventos as e', 'e.id', 'entregas.evento_id')
      .select(COLUMNAS);

  /** The attempts of several deliveries in one query. */
  async function conIntentos(filas: FilaBd[], tx?: Transaccion): Promise<FilaEntrega[]> {
    if (!filas.length) return [];
    const intentos = (await conexion(
      db,
      tx,
    )('entregas_intentos')
      .whereIn(
        'entrega_id',
        filas.map((f) => f.id),
      )
      .orderBy(['entrega_id', 'numero'])) as (IntentoEntrega & { entrega_id: string })[];
    return filas.map((f) => ({
      ...f,
      intentos: intentos
        .filter((i) => i.entrega_id === f.id)
        .map(({ entrega_id: _e, ...i }) => ({ ...i, error: leerJson(i.error) })),
    }));
  }

  return {
    /**
     * The deliveries an event causes: one per active webhook of its account and mode subscribed to its type and
     * registered before it. Repeating the call creates nothing new and returns the same deliveries.
     */
    async crearParaEvento(ev: {
      id: string;
      cuenta_id: string;
      modo: Modo;
      tipo: string;
      creado_en: Date;
    }): Promise<EntregaPorIniciar[]> {
      const a = { cuentaId: ev.cuenta_id, modo: ev.modo };
      const suscritos = (await conAlcance(db, 'webhooks', a)
        .select('id')
        .where({ activo: true })
        .whereNull('eliminado_en')
        .where('creado_en', '<=', ev.creado_en)
        .whereRaw('JSON_CONTAINS(eventos_suscritos, JSON_QUOTE(?))', [ev.tipo])) as { id: string }[];
      if (suscritos.length) {
        await db('entregas')
          .insert(
            suscritos.map((w) => ({
              id: nuevoId('ent'),
              ...columnasAlcance(a),
              evento_id: ev.id,
              webhook_id: w.id,
              numero: 0,
              estado: 'pendiente',
            })),
          )
          .onConflict()
          .ignore();
      }
      return db('entregas').select(POR_INICIAR).where({ evento_id: ev.id, numero: 0, estado: 'pendiente' });
    },

    /**
     * Resends still pending with no attempt, created before `antesDe`: their workflow may never have started. (An
     * event's own deliveries need no sweep: its outbox row stays until every one of them has started.)
     */
    async sinIniciar(antesDe: Date, limite: number): Promise<EntregaPorIniciar[]> {
      return db('entregas')
        .select(POR_INICIAR)
        .where({ estado: 'pendiente', intentos: 0 })
        .where('numero', '>', 0)
        .where('creado_en', '<', antesDe)
        .orderBy('creado_en')
        .limit(limite);
    },

    /** A resend: the next number for this event and webhook (the caller holds the webhook's lock). */
    async crearReenvio(
      tx: Transaccion,
      a: Alcance,
      eventoId: string,
      webhookId: string,
    ): Promise<EntregaPorIniciar> {
      const c = conexion(db, tx);
      const [ultima] = (await c('entregas')
        .max({ n: 'numero' })
        .where({ evento_id: eventoId, webhook_id: webhookId })) as { n: number | null }[];
      const fila = {
        id: nuevoId('ent'),
        ...columnasAlcance(a),
        evento_id: eventoId,
        webhook_id: webhookId,
        // Resends count from 1 even when the event caused no delivery to this webhook (0 stays the event's).
        numero: (ultima?.n ?? 0) + 1,
      };
      await c('entregas').insert({ ...fila, estado: 'pendiente' });
      return fila;
    },

    /**
     * The pending delivery of an event to a webhook, if any (the newest: before resends retried the pending one,
     * a resend could leave two). Inside the caller's transaction, which holds the webhook's lock.
     */
    async pendienteDe(
      tx: Transaccion,
      a: Alcance,
      eventoId: string,
      webhookId: string,
    ): Promise<EntregaPorIniciar | undefined> {
      return conAlcance(conexion(db, tx), 'entregas', a)
        .select(POR_INICIAR)
        .where({ evento_id: eventoId, webhook_id: webhookId, estado: 'pendiente' })
        .orderBy('id', 'desc')
        .first();
    },

    async obtener(a: Pick<Alcance, 'cuentaId' | 'modo'>, id: string, tx?: Transaccion) {
      const f = (await consulta(a, tx).where('entregas.id', id).first()) as FilaBd | undefined;
      return f && (await conIntentos([f], tx))[0];
    },

    async listar(
      a: Alcance,
      filtros: { webhookId?: string; eventoId?: string; estado?: EstadoEntrega },
      pagina: Pagina,
    ): Promise<Tramo<FilaEntrega>> {
      const c = consulta(a);
      if (filtros.webhookId) c.where('entregas.webhook_id', filtros.webhookId);
      if (filtros.eventoId) c.where('entregas.evento_id', filtros.eventoId);
      if (filtros.estado) c.where('entregas.estado', filtros.estado);
      const t = await paginar<FilaBd>(c, pagina, 'entregas.id');
      return { datos: await conIntentos(t.datos), hayMas: t.hayMas };
    },

    /**
     * Every delivery of these events (resends included) with its webhook's URL, also of a webhook deleted since,
     * oldest first. An invoice's events are a handful: no pagination.
     */
    async deEventos(a: Alcance, eventoIds: string[]): Promise<FilaEntregaConUrl[]> {
      if (!eventoIds.length) return [];
      const filas = (await consulta(a)
        .join('webhooks as w', 'w.id', 'entregas.webhook_id')
        .select('w.url as webhook_url')
        .whereIn('entregas.evento_id', eventoIds)
        .orderBy('entregas.id')) as (FilaBd & { webhook_url: string })[];
      const conLog = await conIntentos(filas);
      return conLog.map((f, i) => ({ ...f, webhook_url: filas[i]!.webhook_url }));
    },

    /**
     * Logs one attempt and what it leaves the delivery in, together. A retried activity rewrites its own
     * attempt; a delivery already final is left as it is.
     */
    async registrarIntento(
      a: Pick<Alcance, 'cuentaId' | 'modo'>,
      entregaId: string,
      intento: IntentoEntrega,
      despues: { estado: EstadoEntrega; proximo_intento_en: Date | null },
    ): Promise<void> {
      await db.transaction(async (trx) => {
        const fila = {
          ...intento,
          entrega_id: entregaId,
          error: intento.error ? JSON.stringify(intento.error) : null,
        };
        await trx('entregas_intentos').insert(fila).onConflict(['entrega_id', 'numero']).merge();
        await conAlcance(trx, 'entregas', a)
          .where({ id: entregaId, estado: 'pendiente' })
          .update({ ...despues, intentos: intento.numero, actualizado_en: intento.iniciado_en });
      });
    },

    /** Ends the pending deliveries of a webhook that was disabled or deleted; returns them. */
    async cancelarPendientes(
      tx: Transaccion,
      a: Alcance,
      webhookId: string,
      ahora: Date,
    ): Promise<EntregaPorIniciar[]> {
      const c = conexion(db, tx);
      const filas = (await conAlcance(c, 'entregas', a)
        .select(POR_INICIAR)
        .where({ webhook_id: webhookId, estado: 'pendiente' })
        .forUpdate()) as EntregaPorIniciar[];
      if (filas.length) {
        await conAlcance(c, 'entregas', a)
          .whereIn(
            'id',
            filas.map((f) => f.id),
          )
          .update({ estado: 'cancelada', proximo_intento_en: null, actualizado_en: ahora });
      }
      return filas;
    },

    /** A pending delivery ends `cancelada` (its webhook is gone, or its workflow was stopped and a resend replaces it). */
    async cancelar(
      a: Pick<Alcance, 'cuentaId' | 'modo'>,
      id: string,
      ahora: Date,
      tx?: Transaccion,
    ): Promise<void> {
      await conAlcance(conexion(db, tx), 'entregas', a)
        .where({ id, estado: 'pendiente' })
        .update({ estado: 'cancelada', proximo_intento_en: null, actualizado_en: ahora });
    },
  };
}

export type RepositorioEntregas = ReturnType<typeof crearRepositorioEntregas>;
