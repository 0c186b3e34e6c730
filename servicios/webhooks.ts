import type { Esquema } from '../contrato';
import type { EntregaPorIniciar, FilaEntrega, RepositorioEntregas } from '../db/repositorios/entregas';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { FilaWebhook, RepositorioWebhooks, SecretosWebhook } from '../db/repositorios/webhooks';
import type { Transaccion, Transacciones } from '../db/transacciones';
import { nuevoId } from '../db/ids';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio, noEncontrado } from '../dominio/errores';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import { MAXIMO_WEBHOOKS, SOLAPE_ROTACION_MS, type EstadoEntrega } from '../dominio/webhook';
import { dtoEntrega, dtoWebhook } from '../presentacion/webhook';
import type { Boveda } from '../seguridad/boveda';
import { nuevoSecretoWebhook } from '../webhooks/firma';
import { resolverSeguro, validarUrlWebhook, type Resolver } from '../webhooks/red';

// A registration does not hang on a DNS server that does not answer.
const PLAZO_DNS_MS = 5000;

/** Starts the workflow of each delivery, and stops those of a webhook that no longer wants them. */
export interface IniciadorEntregas {
  iniciar(entregas: EntregaPorIniciar[]): Promise<void>;
  /** Best effort: a delivery whose workflow is not stopped finds itself `cancelada` before its next attempt. */
  detener(entregas: EntregaPorIniciar[]): Promise<void>;
  /**
   * Ops' "retry now" on the delivery's own workflow: `adelantada` when it was waiting for its next attempt (which
   * starts at once), `en_curso` when an attempt is running, `sin_flujo` when no run of it is going (never started,
   * or ended). Throws `temporal_no_disponible` when Temporal does not answer.
   */
  adelantar(entrega: EntregaPorIniciar): Promise<'adelantada' | 'en_curso' | 'sin_flujo'>;
}

export interface DepsWebhooks {
  webhooks: RepositorioWebhooks;
  entregas: RepositorioEntregas;
  eventos: RepositorioEventos;
  transacciones: Transacciones;
  boveda: Boveda;
  iniciador: IniciadorEntregas;
  /** Test mode may point at loopback and private addresses (local development). */
  localesEnTest: boolean;
  resolver?: Resolver;
  /** How long a retry-now waits for its attempt's outcome before answering it pending (default 3 s). */
  esperaReintentoMs?: number;
  ahora?: () => Date;
}

/** The request body, as the contract declares it. */
export type WebhookNuevo = Esquema<'WebhookNuevo'>;

export interface CambiosWebhook {
  url?: string;
  eventos_suscritos?: string[];
  activo?: boolean;
}

const noExiste = (id: string, parametro = 'id') =>
  noEncontrado('webhook_no_encontrado', `El webhook ${id} no existe.`, parametro);

const ESPERA_REINTENTO_MS = 3000;
const SONDEO_MS = 200;

const porIniciar = (a: Alcance, f: FilaEntrega): EntregaPorIniciar => ({
  id: f.id,
  cuenta_id: a.cuentaId,
  modo: a.modo,
  evento_id: f.evento_id,
  webhook_id: f.webhook_id,
  numero: f.numero,
});

/** What asking a pending delivery to attempt now came to. */
type Adelanto = 'adelantada' | 'en_curso' | 'iniciada' | 'terminada' | 'detenida';

export function crearServicioWebhooks(deps: DepsWebhooks) {
  const ahora = deps.ahora ?? (() => new Date());
  const repo = deps.webhooks;

  /** One webhook as its reads show it, with its health (a new one has none yet: created, it shows empty). */
  async function conSalud(a: Alcance, f: FilaWebhook) {
    const momento = ahora();
    return dtoWebhook(f, momento, (await deps.entregas.salud(a, [f.id], momento)).get(f.id));
  }
  const esperaReintento = deps.esperaReintentoMs ?? ESPERA_REINTENTO_MS;

  /**
   * A pending delivery attempts now, in its own workflow. A workflow that is gone is started when the delivery
   * never made an attempt (its start was lost); one stopped from outside after attempting (terminated in Temporal:
   * its id refuses a second run) is `detenida`, and only a resend replaces it.
   */
  async function adelantar(a: Alcance, f: FilaEntrega): Promise<Adelanto> {
    const r = await deps.iniciador.adelantar(porIniciar(a, f));
    if (r !== 'sin_flujo') return r;
    const actual = await deps.entregas.obtener(a, f.id);
    if (!actual || actual.estado !== 'pendiente') return 'terminada';
    if (actual.intentos.length) return 'detenida';
    await deps.iniciador.iniciar([porIniciar(a, f)]);
    return 'iniciada';
  }

  /** Waits a bounded time for the attempt: a new one logged, or the delivery ended. */
  async function desenlace(a: Alcance, antes: FilaEntrega): Promise<FilaEntrega> {
    const limite = Date.now() + esperaReintento;
    for (;;) {
      const f = (await deps.entregas.obtener(a, antes.id))!;
      const cambio =
        f.estado !== 'pendiente' ||
        f.intentos.length > antes.intentos.length ||
        f.intentos.at(-1)?.iniciado_en.getTime() !== antes.intentos.at(-1)?.iniciado_en.getTime();
      if (cambio || Date.now() >= limite) return f;
      await new Promise((r) => setTimeout(r, Math.min(SONDEO_MS, Math.max(0, limite - Date.now()))));
    }
  }

  /** Registration's check: the URL's form and where its name points today (each attempt checks again). */
  async function exigirUrlSegura(a: Alcance, url: string): Promise<void> {
    const r = validarUrlWebhook(url, a.modo, deps.localesEnTest);
    if (!r.ok) throw new ErrorNegocio('regla_de_negocio', r.codigo, r.mensaje, 'url');
    const d = await resolverSeguro(r.url.hostname, a.modo, deps.localesEnTest, deps.resolver, PLAZO_DNS_MS);
    if (!d.ok) throw new ErrorNegocio('regla_de_negocio', d.codigo, d.mensaje, 'url');
  }

  async function fila(a: Alcance, id: string, parametro = 'id'): Promise<FilaWebhook> {
    const f = await repo.obtener(a, id);
    if (!f) throw noExiste(id, parametro);
    return f;
  }

  const contexto = (a: Alcance, id: string) => ({ cuentaId: a.cuentaId, modo: a.modo, registroId: id });

  /** Locks the webhook, runs `cambio`, and stops the deliveries it cancelled once that committed. */
  async function conBloqueo(
    a: Alcance,
    id: string,
    cambio: (w: FilaWebhook & SecretosWebhook, tx: Transaccion) => Promise<EntregaPorIniciar[] | void>,
  ): Promise<void> {
    const canceladas = await deps.transacciones.ejecutar(async (tx) => {
      const w = await repo.bloquear(tx, a, id);
      if (!w) throw noExiste(id);
      return cambio(w, tx);
    });
    if (canceladas && canceladas.length) await deps.iniciador.detener(canceladas);
  }

  /** Runs `f` under the webhook's lock and answers what it returns. */
  function conBloqueoValor<T>(
    a: Alcance,
    id: string,
    f: (w: FilaWebhook & SecretosWebhook, tx: Transaccion) => Promise<T>,
  ): Promise<T> {
    return deps.transacciones.ejecutar(async (tx) => {
      const w = await repo.bloquear(tx, a, id);
      if (!w) throw noExiste(id);
      return f(w, tx);
    });
  }

  return {
    async crear(a: Alcance, e: WebhookNuevo) {
      await exigirUrlSegura(a, e.url);
      const id = nuevoId('wh');
      const secreto = nuevoSecretoWebhook();
      const sellado = deps.boveda.sellar(contexto(a, id), { secreto: Buffer.from(secreto, 'utf8') });
      // Count and insert under the account's lock: concurrent registrations cannot both see room for one.
      await deps.transacciones.ejecutar(async (tx) => {
        await repo.bloquearAlcance(tx, a);
        if ((await repo.contar(a, tx)) >= MAXIMO_WEBHOOKS) {
          throw new ErrorNegocio(
            'regla_de_negocio',
            'limite_de_webhooks',
            `Se admiten hasta ${MAXIMO_WEBHOOKS} webhooks por cuenta y modo: elimine uno que ya no use.`,
            'url',
          );
        }
        await repo.crear(
          a,
          {
            id,
            url: e.url,
            eventos_suscritos: e.eventos_suscritos,
            secreto_cifrado: sellado.campos.secreto!,
            secreto_anterior_cifrado: null,
            dek_cifrada: sellado.dekCifrada,
            version_clave: sellado.version,
          },
          ahora(),
          tx,
        );
      });
      return { ...dtoWebhook(await fila(a, id), ahora()), secreto_firma: secreto };
    },

    /** A page of webhooks, each with its health: three statements for the whole page (entregas.salud). */
    async listar(a: Alcance, pagina: Pagina) {
      const t = await repo.listar(a, pagina);
      const momento = ahora();
      const salud = await deps.entregas.salud(
        a,
        t.datos.map((f) => f.id),
        momento,
      );
      return mapearTramo(t, (f) => dtoWebhook(f, momento, salud.get(f.id)));
    },

    obtener: async (a: Alcance, id: string) => conSalud(a, await fila(a, id)),

    /** A disabled webhook gets nothing new and its pending retries stop; enabling it again sends only new events. */
    async actualizar(a: Alcance, id: string, c: CambiosWebhook) {
      if (c.url !== undefined) await exigirUrlSegura(a, c.url);
      await conBloqueo(a, id, async (w, tx) => {
        await repo.actualizar(tx, a, id, c, ahora());
        if (c.activo === false && w.activo) return deps.entregas.cancelarPendientes(tx, a, id, ahora());
      });
      return conSalud(a, await fila(a, id));
    },

    async eliminar(a: Alcance, id: string) {
      await conBloqueo(a, id, async (_w, tx) => {
        await repo.eliminar(tx, a, id, ahora());
        return deps.entregas.cancelarPendientes(tx, a, id, ahora());
      });
      return { id, objeto: 'webhook' as const, eliminado: true as const };
    },

    /**
     * A new secret, shown once; the previous one keeps signing beside it for 24 hours so receivers can switch
     * without losing a delivery. Rotating again within the overlap drops the oldest.
     */
    async rotarSecreto(a: Alcance, id: string) {
      const secreto = nuevoSecretoWebhook();
      await conBloqueo(a, id, async (w, tx) => {
        const anterior = deps.boveda.abrir(
          contexto(a, id),
          w.dek_cifrada,
          { secreto: w.secreto_cifrado },
          w.version_clave,
        ).secreto!;
        const sellado = deps.boveda.sellar(contexto(a, id), {
          secreto: Buffer.from(secreto, 'utf8'),
          secreto_anterior: anterior,
        });
        await repo.actualizar(
          tx,
          a,
          id,
          {
            secreto_cifrado: sellado.campos.secreto!,
            secreto_anterior_cifrado: sellado.campos.secreto_anterior!,
            dek_cifrada: sellado.dekCifrada,
            version_clave: sellado.version,
            secreto_anterior_hasta: new Date(ahora().getTime() + SOLAPE_ROTACION_MS),
          },
          ahora(),
        );
      });
      return { ...(await conSalud(a, await fila(a, id))), secreto_firma: secreto };
    },

    async entregasDeWebhook(a: Alcance, id: string, filtros: { estado?: EstadoEntrega }, pagina: Pagina) {
      await fila(a, id);
      return mapearTramo(await deps.entregas.listar(a, { ...filtros, webhookId: id }, pagina), dtoEntrega);
    },

    async entregasDeEvento(a: Alcance, id: string, filtros: { estado?: EstadoEntrega }, pagina: Pagina) {
      if (!(await deps.eventos.obtener(a, id))) {
        throw noEncontrado('evento_no_encontrado', `El evento ${id} no existe.`);
      }
      return mapearTramo(await deps.entregas.listar(a, { ...filtros, eventoId: id }, pagina), dtoEntrega);
    },

    async obtenerEntrega(a: Alcance, id: string) {
      const f = await deps.entregas.obtener(a, id);
      if (!f) throw noEncontrado('entrega_no_encontrada', `La entrega ${id} no existe.`);
      return dtoEntrega(f);
    },

    /** Every delivery of the scope, across webhooks (deleted ones too), newest first. */
    async listarEntregas(
      a: Alcance,
      filtros: { estado?: EstadoEntrega; webhook?: string; evento?: string },
      pagina: Pagina,
    ) {
      if (filtros.webhook) await fila(a, filtros.webhook, 'webhook');
      if (filtros.evento && !(await deps.eventos.obtener(a, filtros.evento))) {
        throw noEncontrado('evento_no_encontrado', `El evento ${filtros.evento} no existe.`, 'evento');
      }
      const t = await deps.entregas.listar(
        a,
        { estado: filtros.estado, webhookId: filtros.webhook, eventoId: filtros.evento },
        pagina,
      );
      return mapearTramo(t, dtoEntrega);
    },

    /**
     * `POST /v1/entregas/{id}/reintentar`: the pending delivery's next attempt now, in its own workflow (the
     * `reintentarAhora` update, as a stamping's): no second delivery. Answers the delivery once the attempt is
     * logged or a bounded wait passes; `pendiente` says which.
     */
    async reintentarEntrega(a: Alcance, id: string) {
      const f = await deps.entregas.obtener(a, id);
      if (!f) throw noEncontrado('entrega_no_encontrada', `La entrega ${id} no existe.`);
      const reenvio = `POST /v1/webhooks/${f.webhook_id}/entregas con {"evento": "${f.evento_id}"}`;
      if (f.estado !== 'pendiente') {
        throw new ErrorNegocio(
          'conflicto',
          'entrega_no_pendiente',
          `La entrega ${id} está ${f.estado}: no tiene un intento que adelantar. Para enviar el evento otra vez use ${reenvio}.`,
          'id',
        );
      }
      if ((await adelantar(a, f)) === 'detenida') {
        throw new ErrorNegocio(
          'conflicto',
          'entrega_detenida',
          `El workflow de la entrega ${id} se detuvo fuera del servicio (terminado en Temporal) y ya no hará intentos: reenvíe el evento con ${reenvio}, que la da por cancelada y crea otra.`,
          'id',
        );
      }
      const fin = await desenlace(a, f);
      return { entrega: dtoEntrega(fin), pendiente: fin.estado === 'pendiente' };
    },

    /**
     * A resend of the event (same `id`, so receivers can deduplicate). One delivery per event and webhook at a
     * time, as Stripe keeps one delivery per event and endpoint whose manual resends are more attempts: with one
     * still pending (retrying), a resend makes that one attempt now and answers it, instead of a second delivery
     * retrying beside it (the receiver would get the event twice). Otherwise, a new delivery with its own attempts.
     */
    async reenviar(a: Alcance, webhookId: string, eventoId: string) {
      if (!(await deps.eventos.obtener(a, eventoId))) {
        throw noEncontrado('evento_no_encontrado', `El evento ${eventoId} no existe.`, 'evento');
      }
      /** Under the webhook's lock: the pending delivery to retry, or a new one (`reemplaza`: a stopped one). */
      const decidir = (reemplaza?: string) =>
        conBloqueoValor(a, webhookId, async (w, tx) => {
          if (!w.activo) {
            throw new ErrorNegocio(
              'conflicto',
              'webhook_inactivo',
              `El webhook ${webhookId} está inactivo: actívelo con PATCH (activo: true) antes de reenviarle eventos.`,
              'id',
            );
          }
          if (reemplaza) await deps.entregas.cancelar(a, reemplaza, ahora(), tx);
          const pendiente = reemplaza
            ? undefined
            : await deps.entregas.pendienteDe(tx, a, eventoId, webhookId);
          if (pendiente) return { existente: pendiente };
          return { nueva: await deps.entregas.crearReenvio(tx, a, eventoId, webhookId) };
        });
      let d = await decidir();
      if (d.existente) {
        const f = (await deps.entregas.obtener(a, d.existente.id))!;
        // Temporal down: the pending one keeps its schedule; still no second delivery.
        const r = await adelantar(a, f).catch((err: unknown) => {
          if (err instanceof ErrorNegocio && err.codigo === 'temporal_no_disponible')
            return 'en_curso' as const;
          throw err;
        });
        if (r !== 'detenida' && r !== 'terminada') return dtoEntrega((await deps.entregas.obtener(a, f.id))!);
        d = await decidir(r === 'detenida' ? f.id : undefined);
        if (d.existente) return dtoEntrega((await deps.entregas.obtener(a, d.existente.id))!);
      }
      await deps.iniciador.iniciar([d.nueva!]);
      return dtoEntrega((await deps.entregas.obtener(a, d.nueva!.id))!);
    },
  };
}

export type ServicioWebhooks = ReturnType<typeof crearServicioWebhooks>;
