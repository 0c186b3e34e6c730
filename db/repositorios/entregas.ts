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

/**
 * A webhook's health as its deliveries' attempts show it. `ultimoExito`: the last 2xx attempt (null: never);
 * every attempt after it failed, the first of them is `fallandoDesde`. `ultimoFallo`: the latest failed attempt of
 * the last 24 hours or of that current run of failures.
 */
export interface SaludWebhook {
  intentos24h: number;
  exitosos24h: number;
  ultimoExito: Date | null;
  fallandoDesde: Date | null;
  ultimoFallo: {
    en: Date;
    status_http: number | null;
    error: { codigo: string; mensaje: string } | null;
  } | null;
}

export const DIA_MS = 24 * 3600 * 1000;

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

    /**
     * The health of several webhooks in three statements whatever their number (a list page): the last success
     * of each (`entregas_webhook_salud`: its newest \`entregada\` delivery, whose last write is that attempt's
     * start), then the attempts of each webhook's deliveries touched since the earlier of that success and 24 hours
     * ago, summed, then the details of each one's latest failure. A delivery's \`actualizado_en\` is never before its
     * attempts (each attempt sets it), so the ranges hold every attempt that counts.
     */
    async salud(
      a: Pick<Alcance, 'cuentaId' | 'modo'>,
      webhookIds: string[],
      ahora: Date,
    ): Promise<Map<string, SaludWebhook>> {
      const resultado = new Map<string, SaludWebhook>();
      if (!webhookIds.length) return resultado;
      const hace24h = new Date(ahora.getTime() - DIA_MS);
      const nunca = new Date(0);
      const exitos = (await conAlcance(db, 'entregas', a)
        // The optimizer prefers (account, mode, webhook, id) and reads every delivery; this one reads one entry each.
        .from(db.raw('entregas FORCE INDEX (entregas_webhook_salud)'))
        .whereIn('webhook_id', webhookIds)
        .where('estado', 'entregada')
        .groupBy('webhook_id')
        .select('webhook_id', db.raw('MAX(actualizado_en) AS exito'))) as {
        webhook_id: string;
        exito: Date;
      }[];
      const exito = new Map(exitos.map((e) => [e.webhook_id, new Date(e.exito)]));
      // Per webhook: from the earlier of its last success and 24 hours ago; one that never succeeded, all of it.
      const desde = new Map(
        webhookIds.map((w) => {
          const e = exito.get(w);
          return [w, e === undefined ? nunca : e < hace24h ? e : hace24h] as const;
        }),
      );
      const porWebhook = (valor: (w: string) => Date) =>
        db.raw(
          `CASE entregas.webhook_id ${webhookIds.map(() => 'WHEN ? THEN ?').join(' ')} END`,
          webhookIds.flatMap((w) => [w, valor(w)]),
        );
      /** The deliveries of each webhook touched since `cota` (all states: the index continues into the time). */
      const tocadas = (cota: (w: string) => Date) =>
        conAlcance(db, 'entregas', a)
          .join('entregas_intentos as i', 'i.entrega_id', 'entregas.id')
          .where((w) => {
            for (const id of webhookIds)
              w.orWhere((o) =>
                o
                  .where('entregas.webhook_id', id)
                  .whereIn('entregas.estado', ['pendiente', 'entregada', 'fallida', 'cancelada'])
                  .where('entregas.actualizado_en', '>=', cota(id)),
              );
          });
      const FALLO = '(i.status_http IS NULL OR i.status_http NOT BETWEEN 200 AND 299)';
      const filas = (await tocadas((w) => desde.get(w)!)
        .groupBy('entregas.webhook_id')
        .select(
          'entregas.webhook_id',
          db.raw('SUM(i.iniciado_en >= ?) AS intentos', [hace24h]),
          db.raw('SUM(i.iniciado_en >= ? AND NOT ' + FALLO + ') AS exitosos', [hace24h]),
          // Every attempt after the last success failed: the first of them began the run.
          db.raw('MIN(IF(i.iniciado_en > ?, i.iniciado_en, NULL)) AS fallando_desde', [
            porWebhook((w) => exito.get(w) ?? nunca),
          ]),
          db.raw(`MAX(IF(${FALLO} AND i.iniciado_en >= ?, i.iniciado_en, NULL)) AS ultimo_fallo`, [
            porWebhook((w) => desde.get(w)!),
          ]),
        )) as {
        webhook_id: string;
        intentos: string | number | null;
        exitosos: string | number | null;
        fallando_desde: Date | null;
        ultimo_fallo: Date | null;
      }[];
      const fallos = new Map(
        filas.filter((f) => f.ultimo_fallo !== null).map((f) => [f.webhook_id, new Date(f.ultimo_fallo!)]),
      );
      const detalles = fallos.size
        ? ((await tocadas((w) => fallos.get(w) ?? ahora)
            .whereIn('entregas.webhook_id', [...fallos.keys()])
            .where((w) => {
              for (const [id, en] of fallos)
                w.orWhere((o) => o.where('entregas.webhook_id', id).where('i.iniciado_en', en));
            })
            .select('entregas.webhook_id', 'i.status_http', 'i.error')) as {
            webhook_id: string;
            status_http: number | null;
            error: unknown;
          }[])
        : [];
      for (const w of webhookIds) {
        const f = filas.find((x) => x.webhook_id === w);
        const d = detalles.find((x) => x.webhook_id === w);
        const en = fallos.get(w);
        resultado.set(w, {
          intentos24h: Number(f?.intentos ?? 0),
          exitosos24h: Number(f?.exitosos ?? 0),
          ultimoExito: exito.get(w) ?? null,
          fallandoDesde: f?.fallando_desde ? new Date(f.fallando_desde) : null,
          ultimoFallo:
            en && d
              ? {
                  en,
                  status_http: d.status_http,
                  error: d.error === null ? null : leerJson<{ codigo: string; mensaje: string }>(d.error),
                }
              : null,
        });
      }
      return resultado;
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
