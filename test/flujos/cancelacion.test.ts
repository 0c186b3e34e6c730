import { randomUUID } from 'node:crypto';
import type { EstadoCancelacion } from '../../activities/cancelacion';
import { inicioCancelacion } from '../../temporal/cancelador';
import { ATRIBUTOS } from '../../workflows/atributos';
import { esperarCancelacion } from '../../workflows/cancelacion';
import { ErrorPacTransitorio } from '../../pac/puerto';
import { reintentarAhora } from '../../workflows/pasos';
import { repetirHistoria } from '../support/historias';
import { atributo, eventos, hasta, iniciarConEspera, prepararFlujos } from './soporte';

const flujos = prepararFlujos();

/** The PAC's first answer, then the SAT's answer to each status check (the last one repeats). */
function pac(primera: EstadoCancelacion, consultas: EstadoCancelacion[] = []) {
  const llamadas = { solicitar: 0, consultar: 0, vencer: 0 };
  return {
    llamadas,
    actividades: {
      async solicitarCancelacion(): Promise<EstadoCancelacion> {
        llamadas.solicitar++;
        return primera;
      },
      async consultarCancelacion(): Promise<EstadoCancelacion> {
        llamadas.consultar++;
        return consultas[Math.min(llamadas.consultar, consultas.length) - 1]!;
      },
      async vencerCancelacion(): Promise<EstadoCancelacion> {
        llamadas.vencer++;
        return 'vencida';
      },
    },
  };
}

/** As the API starts it (temporal/cancelador.ts), waiting for the PAC's first answer. */
async function cancelar(taskQueue: string, sondeo: { intervaloSondeoMs: number; plazoMs: number }) {
  const i = inicioCancelacion(
    taskQueue,
    { cuentaId: 'cta_1', modo: 'test' },
    { id: `fac_${randomUUID()}`, organizacionId: 'org_1' },
    sondeo,
  );
  const { espera, handle } = await iniciarConEspera(flujos.client, i, esperarCancelacion);
  return { primera: await espera.result(), handle };
}

describe('cancelarFactura', () => {
  it.concurrent(
    "answers the API with the PAC's first answer, then polls the SAT every intervaloMs until final",
    async () => {
      const p = pac('en_proceso', ['en_proceso', 'en_proceso', 'cancelada']);
      await flujos.conWorker(p.actividades, async (cola) => {
        const { primera, handle } = await cancelar(cola, { intervaloSondeoMs: 50, plazoMs: 600_000 });
        expect(primera).toBe('en_proceso');
        expect(await handle.result()).toBe('cancelada');
        const esperas = await eventos(handle, 'timerStartedEventAttributes');
        expect(esperas.map((t) => Number(t.startToFireTimeout!.nanos) / 1e6)).toEqual([50, 50, 50]);
        expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('cancelada');
      });
      expect(p.llamadas).toEqual({ solicitar: 1, consultar: 3, vencer: 0 });
    },
  );

  it.concurrent('answers cancelada without polling when the PAC cancels at once', async () => {
    const p = pac('cancelada');
    await flujos.conWorker(p.actividades, async (cola) => {
      const { primera, handle } = await cancelar(cola, { intervaloSondeoMs: 50, plazoMs: 600_000 });
      expect(primera).toBe('cancelada');
      expect(await handle.result()).toBe('cancelada');
      expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('cancelada');
    });
    expect(p.llamadas).toEqual({ solicitar: 1, consultar: 0, vencer: 0 });
  });

  it.concurrent('leaves the invoice timbrada when the receiver refuses', async () => {
    const p = pac('en_proceso', ['rechazada']);
    await flujos.conWorker(p.actividades, async (cola) => {
      const { handle } = await cancelar(cola, { intervaloSondeoMs: 50, plazoMs: 600_000 });
      expect(await handle.result()).toBe('rechazada');
      expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('timbrada');
    });
  });

  it.concurrent(
    'ends the tracking with vencerCancelacion at the first status check past plazoMs',
    async () => {
      const p = pac('en_proceso', ['en_proceso']);
      await flujos.conWorker(p.actividades, async (cola) => {
        // A window shorter than one interval: the first check is already past it.
        const { handle } = await cancelar(cola, { intervaloSondeoMs: 50, plazoMs: 10 });
        expect(await handle.result()).toBe('vencida');
        expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('timbrada');
      });
      expect(p.llamadas).toEqual({ solicitar: 1, consultar: 1, vencer: 1 });
    },
  );
});

describe('cancelarFactura: reintentarAhora', () => {
  it.concurrent(
    "cuts the PAC call's backoff short and, later, the wait before the next poll; answers false while an attempt runs",
    async () => {
      let pacArriba = false;
      let consultas = 0;
      const actividades = {
        async solicitarCancelacion(): Promise<EstadoCancelacion> {
          if (!pacArriba)
            throw new ErrorPacTransitorio('cancel_signature: falla de transporte (ECONNREFUSED)');
          return 'en_proceso';
        },
        consultarCancelacion: async (): Promise<EstadoCancelacion> =>
          ++consultas < 2 ? 'en_proceso' : 'cancelada',
      };
      await flujos.conWorker(actividades, async (cola) => {
        const i = inicioCancelacion(
          cola,
          { cuentaId: 'cta_1', modo: 'test' },
          { id: `fac_${randomUUID()}`, organizacionId: 'org_1' },
          // A poll an hour away: only the cut makes it come now.
          { intervaloSondeoMs: 3_600_000, plazoMs: 7_200_000 },
        );
        const { espera, handle } = await iniciarConEspera(flujos.client, i, esperarCancelacion);
        // The PAC call waits in its backoff (2 s, 4 s…): the cut starts it again at once.
        await hasta(async () => ((await handle.describe()).raw.pendingActivities?.[0]?.attempt ?? 0) >= 2);
        pacArriba = true;
        expect(await handle.executeUpdate(reintentarAhora)).toBe(true);
        expect(await espera.result()).toBe('en_proceso');
        // Polling: its first check came an hour later without a cut; the cut brings it now.
        await hasta(async () => (await eventos(handle, 'timerStartedEventAttributes')).length === 1);
        expect(await handle.executeUpdate(reintentarAhora)).toBe(true);
        await hasta(async () => consultas >= 1);
        await hasta(async () => (await eventos(handle, 'timerStartedEventAttributes')).length === 2);
        expect(await handle.executeUpdate(reintentarAhora)).toBe(true);
        expect(await handle.result()).toBe('cancelada');
        await expect(
          repetirHistoria(await handle.fetchHistory(), handle.workflowId),
        ).resolves.toBeUndefined();
      });
      expect(consultas).toBe(2);
    },
  );
});
