import { Context } from '@temporalio/activity';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import type { EntradaCorreo } from '../../activities/correos';
import type { EstadoCorreo } from '../../dominio/correo';
import { colaPdf } from '../../workflows/pdf';
import { acortarReintentos, aviso, causa, eventos, iniciarCorreo, prepararFlujos } from './soporte';

const flujos = prepararFlujos();

interface Llamada {
  actividad: string;
  intento: number;
  local: boolean;
  cola: string;
  args: unknown[];
}

/** A step's answer, or the failure it throws (made per call: a failure is an error object, not a value). */
type Paso<T> = T | (() => Error);

/** Fake activities that answer each call from a script (the last step repeats) and record where they ran. */
function guion() {
  const llamadas: Llamada[] = [];
  function actividad<T>(nombre: string, pasos: Paso<T>[]) {
    let n = 0;
    return async (...args: unknown[]): Promise<T> => {
      const { attempt, isLocal, taskQueue } = Context.current().info;
      llamadas.push({ actividad: nombre, intento: attempt, local: isLocal, cola: taskQueue, args });
      const paso = pasos[Math.min(n++, pasos.length - 1)]!;
      if (typeof paso === 'function') throw (paso as () => Error)();
      return paso;
    };
  }
  return {
    llamadas,
    actividad,
    /** `<activity> <attempt>` per call, in order. */
    resumen: () => llamadas.map((l) => `${l.actividad} ${l.intento}`),
  };
}

const smtpCaido = () =>
  ApplicationFailure.retryable('421 4.3.2 Service not available, closing channel', 'smtp_no_disponible');
const pdfPendiente = () =>
  ApplicationFailure.retryable('El PDF de fac_1 aún no está guardado.', 'PdfPendiente');
const inexistente = () => ApplicationFailure.nonRetryable('correo cor_x inexistente', 'RegistroInexistente');

/** What the activities get: ids only, never the workflow's limits. */
const entradaDe = (h: WorkflowHandle): EntradaCorreo => ({
  correoId: h.workflowId.slice('correo:'.length),
  facturaId: 'fac_1',
  cuentaId: 'cta_1',
  modo: 'test',
});

/** The retry policy and deadline the workflow gave each scheduled activity, as the history shows them. */
async function politicas(h: WorkflowHandle) {
  return (await eventos(h, 'activityTaskScheduledEventAttributes')).map((a) => ({
    actividad: a.activityType?.name,
    cola: a.taskQueue?.name,
    intentos: a.retryPolicy?.maximumAttempts,
    coeficiente: a.retryPolicy?.backoffCoefficient,
    inicialMs: tsToMs(a.retryPolicy?.initialInterval),
    maximoMs: tsToMs(a.retryPolicy?.maximumInterval),
    plazoMs: tsToMs(a.scheduleToCloseTimeout),
  }));
}

describe('enviarCorreo', () => {
  it.concurrent(
    'finds the PDF, sends, and returns enviado: two local activities, nothing scheduled on the server',
    async () => {
      const g = guion();
      const actividades = {
        pdfParaCorreo: g.actividad<'listo'>('pdfParaCorreo', ['listo']),
        intentarCorreo: g.actividad<EstadoCorreo>('intentarCorreo', ['enviado']),
        generarPdf: g.actividad<void>('generarPdf', [undefined]),
        abandonarCorreo: g.actividad<EstadoCorreo>('abandonarCorreo', ['fallido']),
      };
      await flujos.conWorker(actividades, async (cola) => {
        const h = await iniciarCorreo(flujos.client, cola);
        expect(await h.result()).toBe('enviado');
        expect(await politicas(h)).toEqual([]);
        expect(g.llamadas.map((l) => l.args)).toEqual([[entradaDe(h)], [entradaDe(h)]]);
      });
      expect(g.resumen()).toEqual(['pdfParaCorreo 1', 'intentarCorreo 1']);
      expect(g.llamadas.every((l) => l.local)).toBe(true);
    },
  );

  it.concurrent.each(['enviado', 'fallido'] as const)(
    'returns %s without sending when the email already ended',
    async (estado) => {
      const g = guion();
      const actividades = {
        pdfParaCorreo: g.actividad<EstadoCorreo>('pdfParaCorreo', [estado]),
        intentarCorreo: g.actividad<EstadoCorreo>('intentarCorreo', ['enviado']),
      };
      await flujos.conWorker(actividades, async (cola) => {
        expect(await (await iniciarCorreo(flujos.client, cola)).result()).toBe(estado);
      });
      expect(g.resumen()).toEqual(['pdfParaCorreo 1']);
    },
  );

  it.concurrent(
    'renders the PDF itself, on the PDF queue, once its waits (a local look, then 5 attempts 1 s to 8 s apart) are spent, then sends',
    async () => {
      const g = guion();
      const primerIntento = aviso();
      const acortado = aviso();
      const esperarPdf = g.actividad<'listo'>('pdfParaCorreo', [pdfPendiente]);
      const generarPdf = g.actividad<void>('generarPdf', [undefined]);
      const actividades = {
        async pdfParaCorreo(e: EntradaCorreo) {
          // The server's first attempt holds until the test shortened the waits that follow it.
          const { attempt, isLocal } = Context.current().info;
          if (attempt === 1 && !isLocal) {
            primerIntento.resolver();
            await acortado.promesa;
          }
          return esperarPdf(e);
        },
        intentarCorreo: g.actividad<EstadoCorreo>('intentarCorreo', ['enviado']),
        // Here too, so a render sent to the wrong queue shows in the calls instead of hanging.
        generarPdf,
        abandonarCorreo: g.actividad<EstadoCorreo>('abandonarCorreo', ['fallido']),
      };
      await flujos.conWorker(
        actividades,
        async (cola) => {
          const h = await iniciarCorreo(flujos.client, cola);
          await primerIntento.promesa;
          // The policy as the workflow wrote it: 1+2+4+8+8 = 23 s of waits in production.
          expect(await politicas(h)).toEqual([
            expect.objectContaining({
              actividad: 'pdfParaCorreo',
              intentos: 5,
              coeficiente: 2,
              inicialMs: 1000,
              maximoMs: 8000,
            }),
          ]);
          await acortarReintentos(flujos.client, h, 'pdfParaCorreo');
          acortado.resolver();
          expect(await h.result()).toBe('enviado');
          expect((await politicas(h)).map(({ actividad, cola }) => `${actividad} ${cola}`)).toEqual([
            `pdfParaCorreo ${cola}`,
            `generarPdf ${colaPdf(cola)}`,
          ]);
          const render = g.llamadas.find((l) => l.actividad === 'generarPdf')!;
          expect(render.cola).toBe(colaPdf(cola));
          expect(render.args).toEqual([{ facturaId: 'fac_1', cuentaId: 'cta_1', modo: 'test' }]);
        },
        { pdf: { generarPdf } },
      );
      // The local look, then the server's five; the send goes local again.
      expect(g.resumen()).toEqual([
        ...[1, 1, 2, 3, 4, 5].map((n) => `pdfParaCorreo ${n}`),
        'generarPdf 1',
        'intentarCorreo 1',
      ]);
      expect(g.llamadas.map((l) => l.local)).toEqual([true, false, false, false, false, false, false, true]);
    },
  );

  it.concurrent(
    'retries the send while the SMTP server is unreachable, at most maximoEntreIntentosS apart, until it takes it',
    async () => {
      const g = guion();
      const actividades = {
        pdfParaCorreo: g.actividad<'listo'>('pdfParaCorreo', ['listo']),
        intentarCorreo: g.actividad<EstadoCorreo>('intentarCorreo', [
          smtpCaido,
          smtpCaido,
          smtpCaido,
          'enviado',
        ]),
        abandonarCorreo: g.actividad<EstadoCorreo>('abandonarCorreo', ['fallido']),
      };
      await flujos.conWorker(actividades, async (cola) => {
        const h = await iniciarCorreo(flujos.client, cola, { maximoEntreIntentosS: 1 });
        expect(await h.result()).toBe('enviado');
        // The local first attempt, then one activity on the server for the other three; its limits are the
        // workflow's, not the activity's.
        expect(await politicas(h)).toHaveLength(1);
        expect((await politicas(h))[0]).toMatchObject({
          actividad: 'intentarCorreo',
          inicialMs: 1000,
          maximoMs: 1000,
          plazoMs: 3 * 86_400_000,
        });
        expect(g.llamadas.filter((l) => l.actividad === 'intentarCorreo').map((l) => l.args)).toEqual(
          Array(4).fill([entradaDe(h)]),
        );
      });
      expect(g.resumen()).toEqual([
        'pdfParaCorreo 1',
        'intentarCorreo 1',
        'intentarCorreo 1',
        'intentarCorreo 2',
        'intentarCorreo 3',
      ]);
    },
  );

  it.concurrent(
    'gives up at its deadline: abandonarCorreo (local) with smtp_no_disponible and the last answer',
    async () => {
      const g = guion();
      const actividades = {
        pdfParaCorreo: g.actividad<'listo'>('pdfParaCorreo', ['listo']),
        intentarCorreo: g.actividad<EstadoCorreo>('intentarCorreo', [smtpCaido]),
        abandonarCorreo: g.actividad<EstadoCorreo>('abandonarCorreo', ['fallido']),
      };
      await flujos.conWorker(actividades, async (cola) => {
        const h = await iniciarCorreo(flujos.client, cola, { maximoEntreIntentosS: 1, plazoS: 3 });
        expect(await h.result()).toBe('fallido');
        expect((await politicas(h))[0]).toMatchObject({ actividad: 'intentarCorreo', plazoMs: 3000 });
        const abandono = g.llamadas.filter((l) => l.actividad === 'abandonarCorreo');
        expect(abandono).toEqual([
          expect.objectContaining({
            local: true,
            args: [entradaDe(h), { codigo: 'smtp_no_disponible', detalle: smtpCaido().message }],
          }),
        ]);
      });
      expect(g.llamadas.filter((l) => l.actividad === 'intentarCorreo').length).toBeGreaterThanOrEqual(2);
      expect(g.llamadas.at(-1)!.actividad).toBe('abandonarCorreo');
    },
  );

  it.concurrent.each(['pdfParaCorreo', 'intentarCorreo'])(
    'fails at once on a RegistroInexistente from %s: no retry, nothing abandoned',
    async (donde) => {
      const g = guion();
      const actividades = {
        pdfParaCorreo: g.actividad<'listo'>(
          'pdfParaCorreo',
          donde === 'pdfParaCorreo' ? [inexistente] : ['listo'],
        ),
        intentarCorreo: g.actividad<EstadoCorreo>('intentarCorreo', [inexistente]),
        generarPdf: g.actividad<void>('generarPdf', [undefined]),
        abandonarCorreo: g.actividad<EstadoCorreo>('abandonarCorreo', ['fallido']),
      };
      await flujos.conWorker(actividades, async (cola) => {
        const error = await (await iniciarCorreo(flujos.client, cola)).result().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WorkflowFailedError);
        expect(causa(error)).toMatchObject({ type: 'RegistroInexistente' });
      });
      expect(g.resumen()).toEqual(
        donde === 'pdfParaCorreo' ? ['pdfParaCorreo 1'] : ['pdfParaCorreo 1', 'intentarCorreo 1'],
      );
    },
  );
});
