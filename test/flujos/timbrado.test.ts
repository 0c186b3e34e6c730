import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { EntradaTimbrado, Paso } from '../../activities/timbrado';
import type { ErrorTimbrado } from '../../dominio/factura';
import { ErrorPacConfiguracion, ErrorPacTransitorio } from '../../pac/puerto';
import { inicioTimbrado } from '../../temporal/timbrador';
import { ATRIBUTOS } from '../../workflows/atributos';
import { abandonarTimbrado, reintentarAhora } from '../../workflows/pasos';
import { esperarTimbrado } from '../../workflows/timbrado';
import { Context } from '@temporalio/activity';
import { colaPdf } from '../../workflows/pdf';
import {
  atributo,
  aviso,
  causa,
  eventos,
  hasta,
  iniciarConEspera,
  opcionesInicio,
  prepararFlujos,
} from './soporte';

const flujos = prepararFlujos();

const REFERENCIAS = ['AAA010101AAA', 'XAXX010101000', 'A-1'];
const UUID = '5FB2822E-396D-4725-8521-CDC4BDD20CCF';
const listo: Paso = { estado: 'listo', referencias: REFERENCIAS };
const timbrada: Paso = { estado: 'timbrada', referencias: [...REFERENCIAS, UUID] };

const inicio = (cola: string, tipo = 'timbrarFacturaV2') => ({
  ...inicioTimbrado(
    cola,
    { cuentaId: 'cta_1', modo: 'test' },
    { id: `fac_${randomUUID()}`, organizacionId: 'org_1' },
  ),
  tipo,
});

interface Llamada {
  paso: 'prepararTimbrado' | 'enviarAlPac';
  local: boolean;
  intento: number;
  /** What ops saw while a regular activity ran (a local one runs inside the workflow task: not recorded). */
  error?: string[];
  referencias?: string[];
}

/** The steps' calls in order. */
function registro() {
  const llamadas: Llamada[] = [];
  return {
    llamadas,
    de: (paso: Llamada['paso']) => llamadas.filter((l) => l.paso === paso),
    async anotar(paso: Llamada['paso']): Promise<Llamada> {
      const { local, intento, atributos } = await flujos.enCurso();
      const l: Llamada = { paso, local, intento };
      if (!local) {
        l.error = atributos.get(ATRIBUTOS.ErrorTimbrado);
        l.referencias = atributos.get(ATRIBUTOS.Referencias);
      }
      llamadas.push(l);
      return l;
    },
  };
}

const caida = () =>
  ApplicationFailure.retryable('Deadlock found when trying to get lock', 'ER_LOCK_DEADLOCK');

describe('timbrarFacturaV2', () => {
  it.concurrent(
    'stamps in one workflow task with local steps, answers esperarTimbrado and leaves Referencias',
    async () => {
      const r = registro();
      const actividades = {
        prepararTimbrado: async () => (await r.anotar('prepararTimbrado'), listo),
        enviarAlPac: async () => (await r.anotar('enviarAlPac'), timbrada),
      };
      await flujos.conWorker(actividades, async (cola) => {
        const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarTimbrado);
        expect(await espera.result()).toBe('timbrada');
        expect(await handle.result()).toBe('timbrada');
        expect(await eventos(handle, 'workflowTaskCompletedEventAttributes')).toHaveLength(1);
        expect(await eventos(handle, 'markerRecordedEventAttributes')).toHaveLength(2);
        expect(await eventos(handle, 'activityTaskScheduledEventAttributes')).toHaveLength(0);
        expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('timbrada');
        expect(await atributo(handle, ATRIBUTOS.Referencias)).toEqual([...REFERENCIAS, UUID]);
        expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toBeUndefined();
      });
      expect(r.llamadas.map((l) => [l.paso, l.local])).toEqual([
        ['prepararTimbrado', true],
        ['enviarAlPac', true],
      ]);
    },
  );

  it.concurrent(
    'shows a failing local step in ErrorTimbrado, retries it as a regular activity and clears it once stamped',
    async () => {
      const r = registro();
      const actividades = {
        async prepararTimbrado() {
          if ((await r.anotar('prepararTimbrado')).local) throw caida();
          return listo;
        },
        enviarAlPac: async () => (await r.anotar('enviarAlPac'), timbrada),
      };
      await flujos.conWorker(actividades, async (cola) => {
        const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarTimbrado);
        expect(await espera.result()).toBe('timbrada');
        expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toBeUndefined();
        expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('timbrada');
      });
      // A few local tries, then one regular activity, run while ops could see why.
      expect(
        r.de('prepararTimbrado').map(({ local, intento, error }) => ({ local, intento, error })),
      ).toEqual([
        { local: true, intento: 1, error: undefined },
        { local: true, intento: 2, error: undefined },
        { local: true, intento: 3, error: undefined },
        { local: false, intento: 1, error: ['preparacion', 'base_de_datos_no_disponible'] },
      ]);
    },
  );

  it.concurrent(
    'while the PAC is down shows pac_no_disponible and Referencias, and retries the PAC with backoff',
    async () => {
      const r = registro();
      const actividades = {
        prepararTimbrado: async () => listo,
        async enviarAlPac() {
          const l = await r.anotar('enviarAlPac');
          if (l.local || l.intento === 1) throw new ErrorPacTransitorio('el PAC no responde');
          return timbrada;
        },
      };
      await flujos.conWorker(actividades, async (cola) => {
        const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarTimbrado);
        expect(await espera.result()).toBe('timbrada');
        // The server retries it: one scheduled activity for both attempts, the history does not grow per attempt.
        expect(await eventos(handle, 'activityTaskScheduledEventAttributes')).toHaveLength(1);
      });
      expect(
        r.llamadas.map(({ local, intento, error, referencias }) => ({ local, intento, error, referencias })),
      ).toEqual([
        { local: true, intento: 1, error: undefined, referencias: undefined },
        { local: false, intento: 1, error: ['pac', 'pac_no_disponible'], referencias: REFERENCIAS },
        { local: false, intento: 2, error: ['pac', 'pac_no_disponible'], referencias: REFERENCIAS },
      ]);
    },
  );

  it.concurrent(
    'cuts a PAC backoff short on reintentarAhora (answers true): a new activity at attempt 1',
    async () => {
      const r = registro();
      const actividades = {
        prepararTimbrado: async () => listo,
        async enviarAlPac() {
          const l = await r.anotar('enviarAlPac');
          // Only a fresh activity after the first regular one succeeds: without the update this never ends.
          if (l.local || r.de('enviarAlPac').length <= 2 || l.intento > 1)
            throw new ErrorPacTransitorio('caído');
          return timbrada;
        },
      };
      await flujos.conWorker(actividades, async (cola) => {
        const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarTimbrado);
        await hasta(async () => ((await handle.describe()).raw.pendingActivities?.[0]?.attempt ?? 0) >= 2);
        expect(await handle.executeUpdate(reintentarAhora)).toBe(true);
        expect(await espera.result()).toBe('timbrada');
        expect((await eventos(handle, 'activityTaskCancelRequestedEventAttributes')).length).toBeGreaterThan(
          0,
        );
      });
      const regulares = r.de('enviarAlPac').filter((l) => !l.local);
      expect(regulares[0]!.intento).toBe(1);
      expect(regulares.at(-1)!.intento).toBe(1);
    },
  );

  it.concurrent('answers reintentarAhora with false when no step waits', async () => {
    const actividades = { prepararTimbrado: async () => listo, enviarAlPac: async () => timbrada };
    await flujos.conWorker(actividades, async (cola) => {
      const i = inicio(cola);
      // In the first workflow task: the local steps run outside any retrying wait.
      const op = new WithStartWorkflowOperation(i.tipo, opcionesInicio(i));
      expect(
        await flujos.client.workflow.executeUpdateWithStart(reintentarAhora, { startWorkflowOperation: op }),
      ).toBe(false);
      expect(await (await op.workflowHandle()).result()).toBe('timbrada');
    });
  });

  it.concurrent("records a PAC's rejection with registrarRechazo and ends fallido", async () => {
    const rechazo: ErrorTimbrado = {
      paso: 'pac',
      codigo: 'CFDI40102',
      mensaje: 'El RFC del receptor no existe',
    };
    const rechazos: [EntradaTimbrado, ErrorTimbrado][] = [];
    const actividades = {
      prepararTimbrado: async () => listo,
      enviarAlPac: async (): Promise<Paso> => ({ estado: 'rechazado', error: rechazo }),
      registrarRechazo: async (e: EntradaTimbrado, error: ErrorTimbrado) => void rechazos.push([e, error]),
    };
    await flujos.conWorker(actividades, async (cola) => {
      const i = inicio(cola);
      const { espera, handle } = await iniciarConEspera(flujos.client, i, esperarTimbrado);
      expect(await espera.result()).toBe('fallido');
      expect(await handle.result()).toBe('fallido');
      expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('fallido');
      expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toEqual(['pac', 'CFDI40102']);
      expect(await atributo(handle, ATRIBUTOS.Referencias)).toEqual(REFERENCIAS);
      expect(rechazos).toEqual([[i.entrada, rechazo]]);
    });
  });

  it.concurrent('never calls the PAC when sealing rejects the invoice', async () => {
    const rechazo: ErrorTimbrado = { paso: 'sellado', codigo: 'csd_invalido', mensaje: 'El CSD no abre' };
    const llamadas = { pac: 0, rechazos: 0 };
    const actividades = {
      prepararTimbrado: async (): Promise<Paso> => ({ estado: 'rechazado', error: rechazo }),
      enviarAlPac: async () => (llamadas.pac++, timbrada),
      registrarRechazo: async () => void llamadas.rechazos++,
    };
    await flujos.conWorker(actividades, async (cola) => {
      const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarTimbrado);
      expect(await espera.result()).toBe('fallido');
      expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toEqual(['sellado', 'csd_invalido']);
    });
    expect(llamadas).toEqual({ pac: 0, rechazos: 1 });
  });

  it.concurrent(
    'fails at once on a non-retryable failure (a missing record): no retry, no regular activity',
    async () => {
      const r = registro();
      const actividades = {
        async prepararTimbrado(): Promise<Paso> {
          await r.anotar('prepararTimbrado');
          throw ApplicationFailure.nonRetryable('La factura no existe', 'RegistroInexistente');
        },
      };
      await flujos.conWorker(actividades, async (cola) => {
        const handle = await flujos.client.workflow.start('timbrarFacturaV2', opcionesInicio(inicio(cola)));
        const error = await handle.result().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WorkflowFailedError);
        expect(causa(error)).toMatchObject({ type: 'RegistroInexistente' });
        expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toBeUndefined();
      });
      expect(r.llamadas.map((l) => l.local)).toEqual([true]);
    },
  );

  it.concurrent(
    'fails after one regular attempt when the PAC settings are wrong (ErrorPacConfiguracion)',
    async () => {
      const r = registro();
      const actividades = {
        prepararTimbrado: async () => listo,
        async enviarAlPac(): Promise<Paso> {
          await r.anotar('enviarAlPac');
          throw new ErrorPacConfiguracion('credenciales rechazadas');
        },
      };
      await flujos.conWorker(actividades, async (cola) => {
        const handle = await flujos.client.workflow.start('timbrarFacturaV2', opcionesInicio(inicio(cola)));
        const error = await handle.result().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WorkflowFailedError);
        expect(causa(error)).toMatchObject({ type: 'ErrorPacConfiguracion' });
      });
      expect(r.llamadas.map(({ local, intento }) => ({ local, intento }))).toEqual([
        { local: true, intento: 1 },
        { local: false, intento: 1 },
      ]);
    },
  );
});

describe('timbrarFacturaV3', () => {
  const v3 = (cola: string) => inicio(cola, 'timbrarFacturaV3');

  it.concurrent(
    'seals and stamps in one local step, answers esperarTimbrado before the PDF, then renders it on the PDF queue',
    async () => {
      const entradas: EntradaTimbrado[] = [];
      const renders: { local: boolean; cola: string; facturaId: string }[] = [];
      const soltar = aviso();
      const actividades = {
        timbrarDeUnaVez: async (e: EntradaTimbrado) => (entradas.push(e), timbrada),
      };
      const pdf = {
        async generarPdf(e: EntradaTimbrado) {
          await soltar.promesa;
          const { isLocal, taskQueue } = Context.current().info;
          renders.push({ local: isLocal, cola: taskQueue, facturaId: e.facturaId });
        },
      };
      await flujos.conWorker(
        actividades,
        async (cola) => {
          const i = v3(cola);
          const { espera, handle } = await iniciarConEspera(flujos.client, i, esperarTimbrado);
          // The API has its answer, and ops see the invoice stamped, while the PDF still waits.
          expect(await espera.result()).toBe('timbrada');
          expect((await handle.describe()).status.name).toBe('RUNNING');
          expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('timbrada');
          expect(await atributo(handle, ATRIBUTOS.Referencias)).toEqual([...REFERENCIAS, UUID]);
          soltar.resolver();
          expect(await handle.result()).toBe('timbrada');
          expect(renders).toEqual([{ local: false, cola: colaPdf(cola), facturaId: i.entrada.facturaId }]);
          // The step leaves the PDF to this workflow instead of starting `pdf:<factura>`.
          expect(entradas.map((e) => e.pdfEnElFlujo)).toEqual([true]);
          expect(await eventos(handle, 'markerRecordedEventAttributes')).toHaveLength(1);
          expect(await eventos(handle, 'workflowTaskCompletedEventAttributes')).toHaveLength(2);
        },
        { pdf },
      );
    },
  );

  it.concurrent('after a failed first step goes on step by step, as timbrarFacturaV2 does', async () => {
    const r = registro();
    const actividades = {
      async timbrarDeUnaVez(): Promise<Paso> {
        throw caida();
      },
      prepararTimbrado: async () => (await r.anotar('prepararTimbrado'), listo),
      enviarAlPac: async () => (await r.anotar('enviarAlPac'), timbrada),
    };
    await flujos.conWorker(
      actividades,
      async (cola) => {
        const { espera, handle } = await iniciarConEspera(flujos.client, v3(cola), esperarTimbrado);
        expect(await espera.result()).toBe('timbrada');
        expect(await handle.result()).toBe('timbrada');
        expect(await atributo(handle, ATRIBUTOS.Referencias)).toEqual([...REFERENCIAS, UUID]);
      },
      { pdf: { generarPdf: async () => undefined } },
    );
    expect(r.llamadas.map((l) => [l.paso, l.local])).toEqual([
      ['prepararTimbrado', true],
      ['enviarAlPac', true],
    ]);
  });

  it.concurrent(
    'records a rejection of the one step, with its Referencias, and renders nothing',
    async () => {
      const rechazo: ErrorTimbrado = {
        paso: 'pac',
        codigo: 'CFDI40102',
        mensaje: 'El RFC del receptor no existe',
      };
      let renders = 0;
      const rechazos: ErrorTimbrado[] = [];
      const actividades = {
        timbrarDeUnaVez: async (): Promise<Paso> => ({
          estado: 'rechazado',
          error: rechazo,
          referencias: REFERENCIAS,
        }),
        registrarRechazo: async (_e: EntradaTimbrado, error: ErrorTimbrado) => void rechazos.push(error),
      };
      await flujos.conWorker(
        actividades,
        async (cola) => {
          const { espera, handle } = await iniciarConEspera(flujos.client, v3(cola), esperarTimbrado);
          expect(await espera.result()).toBe('fallido');
          expect(await handle.result()).toBe('fallido');
          expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('fallido');
          expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toEqual(['pac', 'CFDI40102']);
          expect(await atributo(handle, ATRIBUTOS.Referencias)).toEqual(REFERENCIAS);
          expect(await eventos(handle, 'activityTaskScheduledEventAttributes')).toHaveLength(0);
        },
        { pdf: { generarPdf: async () => void renders++ } },
      );
      expect(rechazos).toEqual([rechazo]);
      expect(renders).toBe(0);
    },
  );
});

describe('timbrarFacturaV3: abandonarTimbrado', () => {
  const v3 = (cola: string) => inicio(cola, 'timbrarFacturaV3');
  const solicitud = { origen: { solicitudId: 'req_abandono', llaveId: 'llave_ops' } };
  const abandonado: Paso = {
    estado: 'rechazado',
    referencias: REFERENCIAS,
    error: { codigo: 'timbrado_abandonado', mensaje: 'abandonado', paso: 'pac' },
  };

  it.concurrent(
    'cuts the PAC attempt in progress, waits for it to end, then records the abandon once: fallido',
    async () => {
      const orden: string[] = [];
      const enCurso = aviso();
      const abandonos: [unknown, number][] = [];
      const actividades = {
        async timbrarDeUnaVez(): Promise<Paso> {
          throw caida();
        },
        prepararTimbrado: async () => listo,
        async enviarAlPac(): Promise<Paso> {
          if (Context.current().info.isLocal) throw caida();
          // The regular attempt hangs (a PAC that does not answer), heartbeating as the real one does, until it
          // is cancelled; and ends late, as a PAC call ends at its own timeout.
          const ctx = Context.current();
          const latido = setInterval(() => ctx.heartbeat(), 100);
          enCurso.resolver();
          await ctx.cancelled.catch(() => undefined);
          clearInterval(latido);
          await new Promise((r) => setTimeout(r, 300));
          orden.push('intento terminado');
          throw caida();
        },
        async registrarAbandono(_e: EntradaTimbrado, s: unknown, quietud: number): Promise<Paso> {
          orden.push('abandono');
          abandonos.push([s, quietud]);
          return abandonado;
        },
      };
      await flujos.conWorker(
        actividades,
        async (cola) => {
          const { espera, handle } = await iniciarConEspera(flujos.client, v3(cola), esperarTimbrado);
          await enCurso.promesa;
          expect(await handle.executeUpdate(abandonarTimbrado, { args: [solicitud] })).toBe('fallido');
          expect(await espera.result()).toBe('fallido');
          expect(await handle.result()).toBe('fallido');
          expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('fallido');
          expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toEqual(['pac', 'timbrado_abandonado']);
          // A second abandon (or one after the end) answers the outcome and records nothing.
          await expect(handle.executeUpdate(abandonarTimbrado, { args: [solicitud] })).rejects.toThrow();
        },
        { pdf: { generarPdf: async () => undefined } },
      );
      // The attempt in flight ended before the PAC was asked: nothing was left running beside the abandon.
      expect(orden).toEqual(['intento terminado', 'abandono']);
      expect(abandonos).toEqual([[solicitud, 0]]);
    },
  );

  it.concurrent(
    'an attempt that stamps despite the cut is the outcome: timbrada, no abandon recorded',
    async () => {
      let abandonos = 0;
      const enCurso = aviso();
      const actividades = {
        async timbrarDeUnaVez(): Promise<Paso> {
          throw caida();
        },
        prepararTimbrado: async () => listo,
        async enviarAlPac(): Promise<Paso> {
          if (Context.current().info.isLocal) throw caida();
          const ctx = Context.current();
          const latido = setInterval(() => ctx.heartbeat(), 100);
          enCurso.resolver();
          // The PAC answers after the cancel was asked: the activity completes all the same.
          await ctx.cancelled.catch(() => undefined);
          clearInterval(latido);
          return timbrada;
        },
        registrarAbandono: async () => (abandonos++, abandonado),
      };
      await flujos.conWorker(
        actividades,
        async (cola) => {
          const { handle } = await iniciarConEspera(flujos.client, v3(cola), esperarTimbrado);
          await enCurso.promesa;
          expect(await handle.executeUpdate(abandonarTimbrado, { args: [solicitud] })).toBe('timbrada');
          expect(await handle.result()).toBe('timbrada');
        },
        { pdf: { generarPdf: async () => undefined } },
      );
      expect(abandonos).toBe(0);
    },
  );

  it.concurrent(
    'with no run going (terminated), a run started to abandon makes no attempt and waits for quiet first',
    async () => {
      const llamadas: string[] = [];
      const abandonos: [unknown, number][] = [];
      const actividades = {
        timbrarDeUnaVez: async () => (llamadas.push('timbrarDeUnaVez'), timbrada),
        async registrarAbandono(_e: EntradaTimbrado, s: unknown, quietud: number): Promise<Paso> {
          abandonos.push([s, quietud]);
          return abandonado;
        },
      };
      await flujos.conWorker(actividades, async (cola) => {
        const i = v3(cola);
        const inicioAbandono = new WithStartWorkflowOperation(i.tipo, {
          ...opcionesInicio(i),
          args: [{ ...i.entrada, abandono: solicitud }],
        });
        const r = await flujos.client.workflow.executeUpdateWithStart(abandonarTimbrado, {
          args: [solicitud],
          startWorkflowOperation: inicioAbandono,
        });
        expect(r).toBe('fallido');
        expect(await (await inicioAbandono.workflowHandle()).result()).toBe('fallido');
      });
      expect(llamadas).toEqual([]);
      expect(abandonos).toEqual([[solicitud, 60_000]]);
    },
  );
});

describe('timbrarFactura (kept for the histories of earlier runs)', () => {
  it.concurrent('stamps a new run through the same local steps and answers esperarTimbrado', async () => {
    const actividades = { prepararTimbrado: async () => listo, enviarAlPac: async () => timbrada };
    await flujos.conWorker(actividades, async (cola) => {
      const { espera, handle } = await iniciarConEspera(
        flujos.client,
        inicio(cola, 'timbrarFactura'),
        esperarTimbrado,
      );
      expect(await espera.result()).toBe('timbrada');
      expect(await eventos(handle, 'activityTaskScheduledEventAttributes')).toHaveLength(0);
      expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('timbrada');
      expect(await atributo(handle, ATRIBUTOS.Referencias)).toEqual([...REFERENCIAS, UUID]);
    });
  });
});
