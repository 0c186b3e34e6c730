import type { RepositorioEntregas } from '../db/repositorios/entregas';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { RepositorioWebhooks } from '../db/repositorios/webhooks';
import { alcanceSistema, type Modo } from '../dominio/alcance';
import { dtoEvento } from '../presentacion/evento';
import type { Boveda } from '../seguridad/boveda';
import type { EnvioWebhook, ResultadoEnvio } from '../webhooks/enviar';
import { encabezadosFirma } from '../webhooks/firma';
import type { MetricasActividades } from './metricas';

/** What a delivery workflow passes around: ids only, never the body or a secret. */
export interface EntradaEntrega {
  entregaId: string;
  cuentaId: string;
  modo: Modo;
}

export interface EntradaIntento extends EntradaEntrega {
  numero: number;
  ultimo: boolean;
  /** When the next attempt starts (epoch ms), shown as `proximo_intento_en` if this one fails. */
  proximoEn: number | null;
}

export type ResultadoIntento = 'entregada' | 'reintentar' | 'fallida' | 'cancelada';

/** Port: the events written but not yet handed to delivery workflows (see temporal/despachador). */
export interface DespachadorEventos {
  despacharPendientes(): Promise<number>;
}

export interface DepsEntregas {
  entregas: RepositorioEntregas;
  webhooks: Pick<RepositorioWebhooks, 'conSecretos'>;
  eventos: Pick<RepositorioEventos, 'obtener'>;
  boveda: Boveda;
  enviarWebhook(e: EnvioWebhook): Promise<ResultadoEnvio>;
  despachador: DespachadorEventos;
  /** Test mode may deliver to loopback and private addresses. */
  webhooksLocalesEnTest: boolean;
  metricas: MetricasActividades;
  ahora?: () => Date;
}

export function crearActividadesEntregas(d: DepsEntregas) {
  const ahora = d.ahora ?? (() => new Date());

  /** The secrets that sign now: the current one, and the previous one during a rotation's overlap. */
  function secretos(
    e: EntradaEntrega,
    w: NonNullable<Awaited<ReturnType<DepsEntregas['webhooks']['conSecretos']>>>,
  ): string[] {
    const campos: Record<string, Buffer> = { secreto: w.secreto_cifrado };
    const solape =
      w.secreto_anterior_cifrado && w.secreto_anterior_hasta && w.secreto_anterior_hasta > ahora();
    if (solape) campos.secreto_anterior = w.secreto_anterior_cifrado!;
    const abiertos = d.boveda.abrir(
      { cuentaId: e.cuentaId, modo: e.modo, registroId: w.id },
      w.dek_cifrada,
      campos,
      w.version_clave,
    );
    return [abiertos.secreto!, ...(solape ? [abiertos.secreto_anterior!] : [])].map((b) =>
      b.toString('utf8'),
    );
  }

  return {
    /**
     * One attempt: POST the event, signed, and log the outcome with what it leaves the delivery in. A delivery
     * already final (a retried activity, a replay) is not sent again; one whose webhook was disabled or deleted
     * ends `cancelada` without a request.
     */
    async intentarEntrega(e: EntradaIntento): Promise<ResultadoIntento> {
      const a = alcanceSistema(e);
      const entrega = await d.entregas.obtener(a, e.entregaId);
      if (!entrega) throw new Error(`entrega ${e.entregaId} inexistente`);
      if (entrega.estado !== 'pendiente') return entrega.estado;
      const w = await d.webhooks.conSecretos(a, entrega.webhook_id);
      if (!w || w.eliminado_en || !w.activo) {
        await d.entregas.cancelar(a, e.entregaId, ahora());
        d.metricas.entrega('cancelada');
        return 'cancelada';
      }
      const evento = await d.eventos.obtener(a, entrega.evento_id);
      if (!evento) throw new Error(`evento ${entrega.evento_id} inexistente`);
      const cuerpo = Buffer.from(JSON.stringify(dtoEvento(evento)), 'utf8');
      const inicio = ahora();
      const r = await d.enviarWebhook({
        url: w.url,
        cuerpo,
        encabezados: {
          ...encabezadosFirma(cuerpo, secretos(e, w), Math.floor(inicio.getTime() / 1000)),
          'X-Facturacion-Evento': evento.id,
          'X-Facturacion-Entrega': entrega.id,
          'X-Facturacion-Intento': String(e.numero),
        },
        modo: e.modo,
        localesEnTest: d.webhooksLocalesEnTest,
      });
      const resultado: ResultadoIntento = r.ok ? 'entregada' : e.ultimo ? 'fallida' : 'reintentar';
      await d.entregas.registrarIntento(
        a,
        entrega.id,
        {
          numero: e.numero,
          iniciado_en: inicio,
          status_http: r.status,
          latencia_ms: r.latenciaMs,
          error: r.error,
          respuesta: r.respuesta,
        },
        {
          estado: resultado === 'reintentar' ? 'pendiente' : resultado,
          proximo_intento_en:
            resultado === 'reintentar' && e.proximoEn !== null ? new Date(e.proximoEn) : null,
        },
      );
      d.metricas.entrega(resultado);
      return resultado;
    },

    /** The reconciler's step: events the fast path did not dispatch. */
    despacharPendientes: () => d.despachador.despacharPendientes(),
  };
}
