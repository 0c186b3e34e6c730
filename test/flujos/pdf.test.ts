import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { EntradaTimbrado } from '../../activities/timbrado';
import { colaPdf, inicioPdf } from '../../temporal/pdf';
import { obtenerPdf } from '../../workflows/pdf';
import { eventos, hasta, iniciarConEspera, opcionesInicio, prepararFlujos } from './soporte';

const flujos = prepararFlujos();

/** The renders asked of the PDF worker: where each ran, and for which invoice. */
function renderizador() {
  const renders: { local: boolean; cola: string; facturaId: string }[] = [];
  return {
    renders,
    actividades: {
      async generarPdf(e: EntradaTimbrado): Promise<void> {
        const { isLocal, taskQueue } = Context.current().info;
        renders.push({ local: isLocal, cola: taskQueue, facturaId: e.facturaId });
      },
    },
  };
}

const entrada = () => ({ facturaId: `fac_${randomUUID()}`, cuentaId: 'cta_1', modo: 'test' as const });

describe('generarPdfFactura', () => {
  it.concurrent(
    'renders on the PDF queue, as a regular activity, when the stamping hands it over',
    async () => {
      const r = renderizador();
      const e = entrada();
      await flujos.conWorker(
        {},
        async (cola) => {
          // As the stamping's step starts it (temporal/pdf.ts, crearColaPdfTemporal).
          const handle = await flujos.client.workflow.start(
            'generarPdfFactura',
            opcionesInicio(inicioPdf(cola, e)),
          );
          await handle.result();
          expect(r.renders).toEqual([{ local: false, cola: colaPdf(cola), facturaId: e.facturaId }]);
        },
        { pdf: r.actividades },
      );
    },
  );

  it.concurrent(
    "renders now as a local activity on a read's obtenerPdf, and withdraws the queued render",
    async () => {
      const r = renderizador();
      const e = entrada();
      await flujos.conWorker(
        {},
        async (cola) => {
          const handle = await flujos.client.workflow.start(
            'generarPdfFactura',
            opcionesInicio(inicioPdf(cola, e)),
          );
          await hasta(async () => ((await handle.describe()).raw.pendingActivities?.length ?? 0) === 1);
          // As a read of the PDF joins it (temporal/pdf.ts, pedirPdf): Update-With-Start on the same id.
          const lectura = await iniciarConEspera(
            flujos.client,
            inicioPdf(cola, { ...e, urgente: true }),
            obtenerPdf,
          );
          expect(lectura.handle.workflowId).toBe(handle.workflowId);
          await lectura.espera.result();
          await handle.result();
          // Withdrawn before it ever started.
          expect(await eventos(handle, 'activityTaskCancelRequestedEventAttributes')).toHaveLength(1);
          expect(await eventos(handle, 'activityTaskStartedEventAttributes')).toHaveLength(0);
          expect(r.renders).toEqual([{ local: true, cola: colaPdf(cola), facturaId: e.facturaId }]);
        },
        { pdf: r.actividades, colaPdfOcupada: true },
      );
    },
  );

  it.concurrent(
    'renders at once as a local activity, with nothing queued, when started by a read (urgente)',
    async () => {
      const r = renderizador();
      await flujos.conWorker(
        {},
        async (cola) => {
          const { espera, handle } = await iniciarConEspera(
            flujos.client,
            inicioPdf(cola, { ...entrada(), urgente: true }),
            obtenerPdf,
          );
          await espera.result();
          await handle.result();
          expect(await eventos(handle, 'activityTaskScheduledEventAttributes')).toHaveLength(0);
        },
        { pdf: r.actividades },
      );
      expect(r.renders.map((x) => x.local)).toEqual([true]);
    },
  );
});
