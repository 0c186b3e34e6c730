import type { DespachadorEventos } from '../../../activities/entregas';
import type { CorreoPorIniciar, RepositorioCorreos } from '../../../db/repositorios/correos';
import type { EntregaPorIniciar, RepositorioEntregas } from '../../../db/repositorios/entregas';
import type { RepositorioEventos } from '../../../db/repositorios/eventos';
import type { IniciadorCorreos } from '../../../servicios/correos';
import type { IniciadorEntregas } from '../../../servicios/webhooks';
import { ErrorNegocio } from '../../../dominio/errores';
import { idCorreo, idEntrega } from '../../../temporal/despachador';
import { crearGuion } from './guion';

/**
 * temporal/despachador.ts without Temporal: the same outbox steps over the fakes, and a delivery's workflow is
 * a record. The fast path only notes the ids it is told (a test dispatches them with `despacharPendientes`,
 * when it chooses), and a workflow id starts once, as `REJECT_DUPLICATE` does.
 */
export function crearDespachadorEnMemoria(p: {
  eventos: Pick<RepositorioEventos, 'paraDespacho' | 'porDespachar' | 'despachado'>;
  entregas: Pick<RepositorioEntregas, 'crearParaEvento'>;
  correos: Pick<RepositorioCorreos, 'crearParaEvento'>;
}) {
  const anunciados: string[][] = [];
  const iniciadas: EntregaPorIniciar[] = [];
  const detenidas: EntregaPorIniciar[] = [];
  const correos: CorreoPorIniciar[] = [];
  const workflows = new Set<string>();
  /** Workflows that ended (or were terminated): an update finds none, a start is refused (REJECT_DUPLICATE). */
  const cerrados = new Set<string>();
  /** Deliveries asked to attempt now, and what their workflow answers while it runs (`adelantada` by default). */
  const adelantadas: EntregaPorIniciar[] = [];
  const respuestas = crearGuion<'adelantada' | 'en_curso' | 'temporal_caido'>(() => 'adelantada');

  function iniciarCorreo(c: CorreoPorIniciar) {
    if (workflows.has(idCorreo(c))) return;
    workflows.add(idCorreo(c));
    correos.push(c);
  }

  function iniciarUna(e: EntregaPorIniciar) {
    const id = idEntrega(e);
    if (workflows.has(id)) return;
    workflows.add(id);
    iniciadas.push(e);
  }

  async function despacharUno(id: string) {
    const ev = await p.eventos.paraDespacho(id);
    if (ev) {
      (await p.entregas.crearParaEvento(ev)).forEach(iniciarUna);
      (await p.correos.crearParaEvento(ev)).forEach(iniciarCorreo);
    }
    await p.eventos.despachado(id);
  }

  const despachador: DespachadorEventos &
    IniciadorEntregas &
    IniciadorCorreos & { despachar(eventoIds: string[]): void } = {
    despachar: (ids) => void anunciados.push([...ids]),
    async despacharPendientes() {
      // No grace period: everything committed so far is due.
      const ids = await p.eventos.porDespachar(new Date(Date.now() + 1), 1000);
      for (const id of ids) await despacharUno(id);
      return ids.length;
    },
    async iniciar(entregas) {
      for (const e of entregas) if (await p.eventos.paraDespacho(e.evento_id)) iniciarUna(e);
    },
    async detener(entregas) {
      detenidas.push(...entregas);
    },
    async adelantar(e) {
      const r = respuestas.siguiente();
      if (r === 'temporal_caido') {
        throw new ErrorNegocio('servicio_no_disponible', 'temporal_no_disponible', 'Temporal no respondió.');
      }
      const id = idEntrega(e);
      if (!workflows.has(id) || cerrados.has(id)) return 'sin_flujo';
      adelantadas.push(e);
      return r;
    },
    async iniciarCorreos(lista) {
      lista.forEach(iniciarCorreo);
    },
  };
  return {
    ...despachador,
    anunciados,
    iniciadas,
    detenidas,
    correos,
    adelantadas,
    /** What the next `adelantar` calls of running workflows answer. */
    responderAdelanto: respuestas.poner,
    /** A delivery's workflow ends (or an operator terminates it). */
    cerrar: (e: Pick<EntregaPorIniciar, 'evento_id' | 'webhook_id' | 'numero'>) =>
      void cerrados.add(idEntrega(e)),
  };
}

export type DespachadorEnMemoria = ReturnType<typeof crearDespachadorEnMemoria>;
