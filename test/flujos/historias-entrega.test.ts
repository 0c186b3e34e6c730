import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { temporal } from '@temporalio/proto';
import type { ResultadoIntento } from '../../activities/entregas';
import { rutaTemporalCli } from '../../scripts/temporal/servidor-dev';
import { contar, grabarSiSePide, leerHistoria, programadas, repetirHistoria } from '../support/historias';
import { hasta, iniciarEntrega, prepararFlujos } from './soporte';

// A delivery waits up to a day between attempts: every released version of `entregarEvento` must replay with
// the current code. entrega-v1.json was recorded through the whole stack by the first version; entrega-v1-senal.json
// by the same version with faked activities, its wait cut short by ops' signal `reintentarAhora` (the update of
// every workflow replaced it; the handler stays for histories like this one).

const { EventType } = temporal.api.enums.v1;
const ejecutar = promisify(execFile);
const flujos = prepararFlujos();
const iniciar = (taskQueue: string, programaS?: number[]) =>
  iniciarEntrega(flujos.client, taskQueue, programaS);

/** A receiver that answers each attempt from `respuestas` (the last one repeats). */
function receptor(respuestas: ResultadoIntento[]) {
  let n = 0;
  return { intentarEntrega: async () => respuestas[Math.min(++n, respuestas.length) - 1]! };
}

describe('historias de la entrega de webhooks', () => {
  it('replays the recorded first version', async () => {
    const v1 = leerHistoria('entrega-v1.json');
    // The first attempt runs local (a marker); attempts 2 and 3 are regular activities after their timers.
    expect(v1.conMarcadores).toBe(true);
    expect(v1.programadas).toEqual(['intentarEntrega', 'intentarEntrega']);
    await expect(repetirHistoria(v1.historia, 'entrega:historia-v1')).resolves.toBeUndefined();
  });

  it('replays a delivery of the first version whose wait was cut short by the signal (kept for such histories)', async () => {
    const v = leerHistoria('entrega-v1-senal.json');
    expect(contar(v.historia, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)).toBe(1);
    expect(contar(v.historia, EventType.EVENT_TYPE_TIMER_CANCELED)).toBe(1);
    expect(v.programadas).toEqual(['intentarEntrega']);
    await expect(repetirHistoria(v.historia, 'entrega:historia-v1-senal')).resolves.toBeUndefined();
  });

  it('a delivery of the current code that fails twice and then arrives replays', async () => {
    await flujos.conWorker(receptor(['reintentar', 'reintentar', 'entregada']), async (cola) => {
      const h = await iniciar(cola, [0, 0.2, 0.4]);
      expect(await h.result()).toBe('entregada');
      const historia = await h.fetchHistory();
      expect(programadas(historia)).toEqual(['intentarEntrega', 'intentarEntrega']);
      await expect(repetirHistoria(historia, h.workflowId)).resolves.toBeUndefined();
      grabarSiSePide(historia, 'entrega-v2.json');
    });
  });

  it("the README's CLI update cuts a waiting delivery short (answers true), and its history replays", async () => {
    await flujos.conWorker(receptor(['reintentar', 'entregada']), async (cola) => {
      // An hour's wait: only the update can end this test in time.
      const h = await iniciar(cola, [0, 3600]);
      await hasta(async () => contar(await h.fetchHistory(), EventType.EVENT_TYPE_TIMER_STARTED) === 1);
      const actualizar = () =>
        ejecutar(rutaTemporalCli(), [
          'workflow',
          'update',
          'execute',
          '--address',
          process.env.TEMPORAL_ADDRESS!,
          '--workflow-id',
          h.workflowId,
          '--name',
          'reintentarAhora',
        ]);
      expect((await actualizar()).stdout).toContain('true');
      expect(await h.result()).toBe('entregada');
      const historia = await h.fetchHistory();
      expect(contar(historia, EventType.EVENT_TYPE_TIMER_FIRED)).toBe(0);
      expect(contar(historia, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED)).toBe(1);
      await expect(repetirHistoria(historia, h.workflowId)).resolves.toBeUndefined();
      grabarSiSePide(historia, 'entrega-v2-actualizacion.json');
    });
  });

  it('the signal still cuts the wait of a running delivery (an operator on the old command)', async () => {
    await flujos.conWorker(receptor(['reintentar', 'entregada']), async (cola) => {
      const h = await iniciar(cola, [0, 3600]);
      await hasta(async () => contar(await h.fetchHistory(), EventType.EVENT_TYPE_TIMER_STARTED) === 1);
      await h.signal('reintentarAhora');
      expect(await h.result()).toBe('entregada');
      await expect(repetirHistoria(await h.fetchHistory(), h.workflowId)).resolves.toBeUndefined();
    });
  });
});
