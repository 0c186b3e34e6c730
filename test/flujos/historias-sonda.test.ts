import { randomUUID } from 'node:crypto';
import { leerHistoria, parches, programadas, repetirHistoria } from '../support/historias';
import { prepararFlujos } from './soporte';

// `sonda-pdf` is deprecated: a probe lasts seconds (its execution timeout), so none from before the patch runs,
// but a probe of the previous release, with the patch's marker, may still be running while a new worker takes
// over. sonda-pdf.json was recorded by that release (faked activities).

const flujos = prepararFlujos();

describe('historias de la sonda de salud', () => {
  it("replays a probe of the previous release (the patch's marker, not deprecated)", async () => {
    const v = leerHistoria('sonda-pdf.json');
    expect(v.parches).toEqual([{ id: 'sonda-pdf', deprecated: false }]);
    expect(v.programadas).toEqual(['registrarSondaWorker', 'registrarSonda']);
    await expect(repetirHistoria(v.historia, 'sonda-salud:historia')).resolves.toBeUndefined();
  });

  it('a probe of the current code records the deprecated marker (the next release drops the call) and replays', async () => {
    const filas: string[] = [];
    const registrar = async (fila: string) => void filas.push(fila);
    const id = `sonda-salud:${randomUUID()}`;
    await flujos.conWorker(
      { registrarSondaWorker: registrar },
      async (cola) => {
        const h = await flujos.client.workflow.start('sondaSalud', {
          workflowId: id,
          taskQueue: cola,
          args: [id],
          workflowExecutionTimeout: '20 seconds',
        });
        await h.result();
        const historia = await h.fetchHistory();
        expect(parches(historia)).toEqual([{ id: 'sonda-pdf', deprecated: true }]);
        expect(programadas(historia)).toEqual(['registrarSondaWorker', 'registrarSonda']);
        await expect(repetirHistoria(historia, h.workflowId)).resolves.toBeUndefined();
      },
      { pdf: { registrarSonda: registrar } },
    );
    expect(filas.sort()).toEqual([id, `${id}:pdf`]);
  });
});
