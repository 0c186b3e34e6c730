import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { EntradaIntento, ResultadoIntento } from '../../activities/entregas';
import { PROGRAMA_ENTREGA_S } from '../../dominio/webhook';
import { ATRIBUTOS } from '../../workflows/atributos';
import { reintentarAhora } from '../../workflows/pasos';
import { atributo, aviso, eventos, hasta, iniciarEntrega, prepararFlujos } from './soporte';

const flujos = prepararFlujos();
const iniciar = (taskQueue: string, programaS?: number[]) =>
  iniciarEntrega(flujos.client, taskQueue, programaS);

interface Intento extends EntradaIntento {
  local: boolean;
  /** `IntentosEntrega` while this attempt ran. */
  intentosEntrega: number | undefined;
}

/** A receiver that answers each attempt from `respuestas` (the last one repeats) and records what it saw. */
function receptor(respuestas: ResultadoIntento[]) {
  const intentos: Intento[] = [];
  return {
    intentos,
    actividades: {
      async intentarEntrega(i: EntradaIntento): Promise<ResultadoIntento> {
        const { local, atributos } = await flujos.enCurso();
        intentos.push({ ...i, local, intentosEntrega: atributos.get(ATRIBUTOS.IntentosEntrega) });
        return respuestas[Math.min(intentos.length, respuestas.length) - 1]!;
      },
    },
  };
}

describe('entregarEvento', () => {
  it.concurrent(
    'attempts at the schedule offsets: the first local, the later regular, each told when the next starts',
    async () => {
      const r = receptor(['reintentar', 'reintentar', 'entregada']);
      await flujos.conWorker(r.actividades, async (cola) => {
        const handle = await iniciar(cola, [0, 0.2, 0.4]);
        expect(await handle.result()).toBe('entregada');
        expect(await eventos(handle, 'markerRecordedEventAttributes')).toHaveLength(1);
        expect(await eventos(handle, 'activityTaskScheduledEventAttributes')).toHaveLength(2);
      });
      expect(r.intentos.map(({ numero, local, ultimo }) => ({ numero, local, ultimo }))).toEqual([
        { numero: 1, local: true, ultimo: false },
        { numero: 2, local: false, ultimo: false },
        { numero: 3, local: false, ultimo: true },
      ]);
      // Offsets from the first attempt, not from the previous one.
      expect(r.intentos[1]!.proximoEn! - r.intentos[0]!.proximoEn!).toBe(200);
      expect(r.intentos[2]!.proximoEn).toBeNull();
    },
  );

  it.concurrent('sets IntentosEntrega to the attempt it waits for after each failure', async () => {
    const r = receptor(['reintentar', 'reintentar', 'entregada']);
    await flujos.conWorker(r.actividades, async (cola) => {
      await (await iniciar(cola, [0, 0.1, 0.2])).result();
    });
    expect(r.intentos.map((i) => i.intentosEntrega)).toEqual([1, 2, 3]);
  });

  it.concurrent.each(['entregada', 'cancelada'] as const)(
    'stops at a %s attempt and returns it',
    async (final) => {
      const r = receptor(['reintentar', final]);
      await flujos.conWorker(r.actividades, async (cola) => {
        expect(await (await iniciar(cola, [0, 0.1, 0.2, 0.3])).result()).toBe(final);
      });
      expect(r.intentos).toHaveLength(2);
    },
  );

  it.concurrent('fails with EntregaFallida at once when an earlier attempt answers fallida', async () => {
    const r = receptor(['reintentar', 'fallida']);
    await flujos.conWorker(r.actividades, async (cola) => {
      const error = await (await iniciar(cola, [0, 0.1, 0.2, 0.3])).result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      expect((error as WorkflowFailedError).cause).toMatchObject({
        type: 'EntregaFallida',
        nonRetryable: true,
      });
    });
    expect(r.intentos).toHaveLength(2);
  });

  it.concurrent(
    'fails with EntregaFallida when the last attempt fails, and shows how many there were',
    async () => {
      // As the real activity answers: `fallida` once told the attempt is the last.
      const r = receptor(['reintentar', 'reintentar', 'fallida']);
      await flujos.conWorker(r.actividades, async (cola) => {
        const handle = await iniciar(cola, [0, 0.1, 0.2]);
        const error = await handle.result().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WorkflowFailedError);
        expect((error as WorkflowFailedError).cause).toBeInstanceOf(ApplicationFailure);
        expect((error as WorkflowFailedError).cause).toMatchObject({
          type: 'EntregaFallida',
          nonRetryable: true,
        });
        expect(await atributo(handle, ATRIBUTOS.IntentosEntrega)).toBe(3);
      });
      expect(r.intentos.map(({ numero, ultimo, proximoEn }) => ({ numero, ultimo, proximoEn }))).toEqual([
        { numero: 1, ultimo: false, proximoEn: expect.any(Number) },
        { numero: 2, ultimo: false, proximoEn: expect.any(Number) },
        { numero: 3, ultimo: true, proximoEn: null },
      ]);
    },
  );

  it.concurrent("runs the waiting attempt at once on ops' reintentarAhora", async () => {
    const r = receptor(['reintentar', 'entregada']);
    await flujos.conWorker(r.actividades, async (cola) => {
      // An hour's wait: only the update can end this test in time.
      const handle = await iniciar(cola, [0, 3600]);
      await hasta(async () => (await eventos(handle, 'timerStartedEventAttributes')).length === 1);
      expect(await handle.executeUpdate(reintentarAhora)).toBe(true);
      expect(await handle.result()).toBe('entregada');
      expect(await eventos(handle, 'timerFiredEventAttributes')).toHaveLength(0);
    });
    expect(r.intentos.map((i) => i.numero)).toEqual([1, 2]);
  });

  it.concurrent(
    'answers reintentarAhora with false while an attempt runs: there is no wait to cut',
    async () => {
      const enCurso = aviso();
      const soltar = aviso();
      const actividades = {
        async intentarEntrega(i: EntradaIntento): Promise<ResultadoIntento> {
          if (i.numero === 1) return 'reintentar';
          enCurso.resolver();
          await soltar.promesa;
          return 'entregada';
        },
      };
      await flujos.conWorker(actividades, async (cola) => {
        const handle = await iniciar(cola, [0, 0.05]);
        await enCurso.promesa;
        expect(await handle.executeUpdate(reintentarAhora)).toBe(false);
        soltar.resolver();
        expect(await handle.result()).toBe('entregada');
      });
    },
  );

  it.concurrent("follows the specification's schedule when the input has none", async () => {
    const r = receptor(['reintentar', 'reintentar', 'reintentar', 'reintentar', 'entregada']);
    await flujos.conWorker(r.actividades, async (cola) => {
      const handle = await iniciar(cola);
      // Each wait (minutes to a day) is cut short once it has started.
      for (let n = 1; n < PROGRAMA_ENTREGA_S.length; n++) {
        await hasta(async () => (await eventos(handle, 'timerStartedEventAttributes')).length === n);
        await handle.executeUpdate(reintentarAhora);
      }
      expect(await handle.result()).toBe('entregada');
    });
    expect(r.intentos).toHaveLength(PROGRAMA_ENTREGA_S.length);
    // Attempt n is told when attempt n+1 is due: the schedule's offsets, counted from the same start.
    const primero = r.intentos[0]!.proximoEn!;
    expect(r.intentos.map((i) => (i.proximoEn === null ? null : (i.proximoEn - primero) / 1000))).toEqual([
      ...PROGRAMA_ENTREGA_S.slice(1).map((s) => s - PROGRAMA_ENTREGA_S[1]),
      null,
    ]);
  });
});
