import { esperarHasta, type OpcionesEspera } from '../esperar';
import { Paginador } from '../paginacion';
import type {
  Eliminado,
  Entrega,
  Evento,
  FiltrosLista,
  Webhook,
  WebhookCambios,
  WebhookCreado,
  WebhookNuevo,
} from '../tipos';
import type { OpcionesSolicitud } from '../transporte';
import { verificarWebhook, type EntradaVerificacion } from '../webhook';
import { Grupo, seg } from './comun';

const ruta = (id: string) => `/v1/webhooks/${seg(id)}`;

export class Webhooks extends Grupo {
  /** Registers an endpoint; the answer's `secreto_firma` is shown only here: store it. */
  crear(datos: WebhookNuevo, opciones?: OpcionesSolicitud): Promise<WebhookCreado> {
    return this.crearJson('/v1/webhooks', datos, opciones);
  }
  obtener(id: string, opciones?: OpcionesSolicitud): Promise<Webhook> {
    return this.obtenerJson(ruta(id), opciones);
  }
  listar(filtros: FiltrosLista<'listarWebhooks'> = {}, opciones?: OpcionesSolicitud): Paginador<Webhook> {
    return new Paginador(this.t, '/v1/webhooks', filtros, opciones);
  }
  actualizar(id: string, cambios: WebhookCambios, opciones?: OpcionesSolicitud): Promise<Webhook> {
    return this.cambiarJson(ruta(id), cambios, opciones);
  }
  eliminar(id: string, opciones?: OpcionesSolicitud): Promise<Eliminado> {
    return this.eliminarJson(ruta(id), opciones);
  }
  /**
   * A new `secreto_firma`, shown only in this answer. For 24 hours deliveries are signed with both: verify with
   * `secretos: [nuevo, anterior]` until `secreto_anterior_vence_en`.
   */
  rotarSecreto(id: string, opciones?: OpcionesSolicitud): Promise<WebhookCreado> {
    return this.t.json({ metodo: 'POST', ruta: `${ruta(id)}/rotar_secreto`, opciones });
  }
  /** The webhook's delivery log, newest first (`estado: 'fallida'` lists what to resend). */
  entregas(
    id: string,
    filtros: FiltrosLista<'listarEntregasWebhook'> = {},
    opciones?: OpcionesSolicitud,
  ): Paginador<Entrega> {
    return new Paginador(this.t, `${ruta(id)}/entregas`, filtros, opciones);
  }
  /**
   * Sends an event again (202): a new delivery, or, while one of the event to this webhook is still pending, that
   * same one attempting now. Follow it with `entregas.esperar`.
   */
  reenviar(id: string, evento: string, opciones?: OpcionesSolicitud): Promise<Entrega> {
    return this.crearJson(`${ruta(id)}/entregas`, { evento }, opciones);
  }
  /** `verificarWebhook`, here too for discoverability. */
  verificar(entrada: EntradaVerificacion): Evento {
    return verificarWebhook(entrada);
  }
}

export class Eventos extends Grupo {
  obtener(id: string, opciones?: OpcionesSolicitud): Promise<Evento> {
    return this.obtenerJson(`/v1/eventos/${seg(id)}`, opciones);
  }
  listar(filtros: FiltrosLista<'listarEventos'> = {}, opciones?: OpcionesSolicitud): Paginador<Evento> {
    return new Paginador(this.t, '/v1/eventos', filtros, opciones);
  }
  /** Every delivery of the event, to every webhook. */
  entregas(
    id: string,
    filtros: FiltrosLista<'listarEntregasEvento'> = {},
    opciones?: OpcionesSolicitud,
  ): Paginador<Entrega> {
    return new Paginador(this.t, `/v1/eventos/${seg(id)}/entregas`, filtros, opciones);
  }
}

export class Entregas extends Grupo {
  obtener(id: string, opciones?: OpcionesSolicitud): Promise<Entrega> {
    return this.obtenerJson(`/v1/entregas/${seg(id)}`, opciones);
  }
  /** Every delivery of the account, across webhooks, newest first (`{ estado: 'fallida' }`: what to resend). */
  listar(filtros: FiltrosLista<'listarEntregas'> = {}, opciones?: OpcionesSolicitud): Paginador<Entrega> {
    return new Paginador(this.t, '/v1/entregas', filtros, opciones);
  }
  /**
   * The pending delivery's next attempt now, in the same delivery (no second one): 200 once it ended, 202 while
   * still pending (follow it with `esperar`).
   */
  reintentar(id: string, opciones?: OpcionesSolicitud): Promise<Entrega> {
    return this.t.json({ metodo: 'POST', ruta: `/v1/entregas/${seg(id)}/reintentar`, opciones });
  }
  /** Waits until the delivery leaves `pendiente` (`entregada`, `fallida` or `cancelada`). */
  esperar(entrega: Entrega | string, opciones?: OpcionesEspera): Promise<Entrega> {
    return esperarHasta(
      this.t,
      entrega,
      (id) => `/v1/entregas/${seg(id)}`,
      (e) => e.estado !== 'pendiente',
      'La entrega',
      opciones,
    );
  }
}
