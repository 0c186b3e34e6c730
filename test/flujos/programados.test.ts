import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { asegurarProgramaciones, idsProgramaciones } from '../../temporal/programaciones';
import { colaPdf } from '../../workflows/pdf';
import { aviso, prepararFlujos } from './soporte';

const flujos = prepararFlujos();

/** Where each call ran: `<activity> <queue> <argument>`. */
function bitacora() {
  const llamadas: string[] = [];
  const anotar = (actividad: string, arg = '') =>
    llamadas.push(`${actividad} ${Context.current().info.taskQueue} ${arg}`.trim());
  return { llamadas, anotar };
}

describe('sondaSalud', () => {
  it.concurrent('proves the main worker and the PDF worker, each on its own queue', async () => {
    const b = bitacora();
    const id = `sonda_${randomUUID()}`;
    await flujos.conWorker(
      {
        registrarSondaWorker: async (i: string) => void b.anotar('registrarSondaWorker', i),
        registrarSonda: async (i: string) => void b.anotar('registrarSonda', i),
      },
      async (cola) => {
        await flujos.client.workflow.execute('sondaSalud', { taskQueue: cola, workflowId: id, args: [id] });
        expect(b.llamadas.sort()).toEqual([
          `registrarSonda ${colaPdf(cola)} ${id}:pdf`,
          `registrarSondaWorker ${cola} ${id}`,
        ]);
      },
      { pdf: { registrarSonda: async (i: string) => void b.anotar('registrarSonda', i) } },
    );
  });
});

describe("the schedules' jobs", () => {
  it.concurrent(
    'each schedule starts its job on the worker queue, which returns its activity count',
    async () => {
      const b = bitacora();
      const llamados = { despachar: aviso(), reanudar: aviso(), avisar: aviso() };
      const actividades = {
        despacharPendientes: async () => (b.anotar('despacharPendientes'), llamados.despachar.resolver(), 3),
        reanudarPendientes: async () => (b.anotar('reanudarPendientes'), llamados.reanudar.resolver(), 5),
        avisarVencimientos: async () => (b.anotar('avisarVencimientos'), llamados.avisar.resolver(), 2),
      };
      const prefijo = `flujos-${randomUUID()}`;
      const ids = idsProgramaciones(prefijo);
      await flujos.conWorker(
        actividades,
        async (cola) => {
          try {
            // The certificates' check runs once at creation; the every-minute ones are triggered.
            await asegurarProgramaciones(flujos.client, { taskQueue: cola, prefijo });
            await flujos.client.schedule.getHandle(ids.reconciliar).trigger();
            await flujos.client.schedule.getHandle(ids.reanudar).trigger();
            await Promise.all(Object.values(llamados).map((l) => l.promesa));
            const resultados = await Promise.all(
              [ids.reconciliar, ids.reanudar, ids.certificados].map(async (id) => {
                const { info } = await flujos.client.schedule.getHandle(id).describe();
                const ejecucion = info.recentActions[0]!.action.workflow;
                return flujos.client.workflow
                  .getHandle(ejecucion.workflowId, ejecucion.firstExecutionRunId)
                  .result();
              }),
            );
            expect(resultados).toEqual([3, 5, 2]);
            // A minute's boundary during the test may add a scheduled run of the same job: only where they ran counts.
            expect([...new Set(b.llamadas)].sort()).toEqual([
              `avisarVencimientos ${cola}`,
              `despacharPendientes ${cola}`,
              `reanudarPendientes ${cola}`,
            ]);
          } finally {
            await Promise.all(
              Object.values(ids).map((id) =>
                flujos.client.schedule
                  .getHandle(id)
                  .delete()
                  .catch(() => undefined),
              ),
            );
          }
        },
        // The jobs never ask the PDF worker: its copies would show up in the log.
        {
          pdf: {
            despacharPendientes: async () => (b.anotar('despacharPendientes'), 0),
            reanudarPendientes: async () => (b.anotar('reanudarPendientes'), 0),
            avisarVencimientos: async () => (b.anotar('avisarVencimientos'), 0),
          },
        },
      );
    },
  );
});
