import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { EstadoCorreo } from '../../dominio/correo';
import { colaPdf } from '../../workflows/pdf';
import { contar, grabarSiSePide, leerHistoria, programadas, repetirHistoria } from '../support/historias';
import { acortarReintentos, aviso, iniciarCorreo, prepararFlujos } from './soporte';

// An email may wait up to three days for the SMTP server: every released version of `enviarCorreo` must replay
// with the current code. The correo-v1*.json were recorded by the first version with faked activities, by the
// tests below (GRABAR_HISTORIAS=1): sent at once, sent after rendering its PDF itself, and given up at its deadline.

const { EventType } = temporal.api.enums.v1;
const flujos = prepararFlujos();

/** The task queue of each scheduled activity, in order. */
const colas = (h: temporal.api.history.v1.IHistory) =>
  (h.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes?.taskQueue?.name)
    .filter((n): n is string => typeof n === 'string');

const enviado = async (): Promise<EstadoCorreo> => 'enviado';

describe('historias de enviarCorreo', () => {
  it('replays the recorded first version: sent, sent after its own render, given up', async () => {
    const v1 = leerHistoria('correo-v1.json');
    // Both steps local: markers, nothing scheduled on the server.
    expect([v1.tipo, v1.programadas, v1.conMarcadores, v1.parches]).toEqual(['enviarCorreo', [], true, []]);
    expect(contar(v1.historia, EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(2);
    await expect(repetirHistoria(v1.historia, 'correo:historia-v1')).resolves.toBeUndefined();

    const pdf = leerHistoria('correo-v1-pdf.json');
    expect(pdf.programadas).toEqual(['pdfParaCorreo', 'generarPdf']);
    expect(colas(pdf.historia)[1]).toMatch(/-pdf$/);
    await expect(repetirHistoria(pdf.historia, 'correo:historia-v1-pdf')).resolves.toBeUndefined();

    // The local look and first send, and abandonarCorreo: markers; the retried send, a scheduled activity.
    const plazo = leerHistoria('correo-v1-plazo.json');
    expect([plazo.programadas, contar(plazo.historia, EventType.EVENT_TYPE_MARKER_RECORDED)]).toEqual([
      ['intentarCorreo'],
      3,
    ]);
    await expect(repetirHistoria(plazo.historia, 'correo:historia-v1-plazo')).resolves.toBeUndefined();
  });

  it('an email of the current code sent at once: two local activities, nothing scheduled; replays', async () => {
    await flujos.conWorker({ pdfParaCorreo: async () => 'listo', intentarCorreo: enviado }, async (cola) => {
      const h = await iniciarCorreo(flujos.client, cola);
      expect(await h.result()).toBe('enviado');
      const historia = await h.fetchHistory();
      expect(programadas(historia)).toEqual([]);
      expect(contar(historia, EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(2);
      await expect(repetirHistoria(historia, h.workflowId)).resolves.toBeUndefined();
      grabarSiSePide(historia, 'correo-v1.json');
    });
  });

  it('an email of the current code whose PDF never came: rendered on the PDF queue, then sent; replays', async () => {
    const primerIntento = aviso();
    const acortado = aviso();
    const actividades = {
      async pdfParaCorreo(): Promise<'listo'> {
        const { attempt, isLocal } = Context.current().info;
        if (attempt === 1 && !isLocal) {
          primerIntento.resolver();
          await acortado.promesa;
        }
        throw ApplicationFailure.retryable('El PDF aún no está guardado.', 'PdfPendiente');
      },
      intentarCorreo: enviado,
    };
    await flujos.conWorker(
      actividades,
      async (cola) => {
        const h = await iniciarCorreo(flujos.client, cola);
        await primerIntento.promesa;
        await acortarReintentos(flujos.client, h, 'pdfParaCorreo');
        acortado.resolver();
        expect(await h.result()).toBe('enviado');
        const historia = await h.fetchHistory();
        expect(programadas(historia)).toEqual(['pdfParaCorreo', 'generarPdf']);
        expect(colas(historia)).toEqual([cola, colaPdf(cola)]);
        await expect(repetirHistoria(historia, h.workflowId)).resolves.toBeUndefined();
        grabarSiSePide(historia, 'correo-v1-pdf.json');
      },
      { pdf: { generarPdf: async () => undefined } },
    );
  });

  it('an email of the current code given up at its deadline: abandonarCorreo as a marker; replays', async () => {
    const actividades = {
      pdfParaCorreo: async () => 'listo' as const,
      async intentarCorreo(): Promise<EstadoCorreo> {
        throw ApplicationFailure.retryable('421 Service not available', 'smtp_no_disponible');
      },
      abandonarCorreo: async (): Promise<EstadoCorreo> => 'fallido',
    };
    await flujos.conWorker(actividades, async (cola) => {
      // A retry 1 s later would pass the 1 s deadline: the server gives up after the first attempt.
      const h = await iniciarCorreo(flujos.client, cola, { maximoEntreIntentosS: 1, plazoS: 1 });
      expect(await h.result()).toBe('fallido');
      const historia = await h.fetchHistory();
      expect(programadas(historia)).toEqual(['intentarCorreo']);
      expect(contar(historia, EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(3);
      await expect(repetirHistoria(historia, h.workflowId)).resolves.toBeUndefined();
      grabarSiSePide(historia, 'correo-v1-plazo.json');
    });
  });
});
