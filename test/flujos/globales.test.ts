import { WorkflowFailedError } from '@temporalio/client';
import type { EntradaReexpedicion, Reexpedicion } from '../../activities/globales';
import { facturaGlobalProgramada, reexpedirGlobal } from '../../workflows/globales';
import { grabarSiSePide, leerHistoria, programadas, repetirHistoria } from '../support/historias';
import { prepararFlujos } from './soporte';

// A claim may wait hours on a PAC outage: every released version of reexpedirGlobal and facturaGlobalProgramada
// must replay with the current code. The *-v1.json were recorded by the first version with faked activities, by
// the tests below (GRABAR_HISTORIAS=1).

const flujos = prepararFlujos();
const ENTRADA: EntradaReexpedicion = {
  reciboId: 'rec_prueba',
  facturaId: 'fac_comprador',
  cuentaId: 'cta_prueba',
  modo: 'test',
};
const HECHO: Reexpedicion = { anterior: 'fac_global', nueva: 'fac_reexpedida' };

/** The order the steps ran in, and with which invoice. */
function registro() {
  const pasos: string[] = [];
  const anotar = (p: string) => pasos.push(p);
  return { pasos, anotar };
}

describe('reexpedirGlobal', () => {
  it('en orden: factura del comprador, reexpedición timbrada, cancelación 04 de la anterior; repite su historia', async () => {
    const { pasos, anotar } = registro();
    await flujos.conWorker(
      {
        esperarTimbradoFinal: async (e) => (anotar(`timbrado ${e.facturaId}`), 'timbrada'),
        excluirDeGlobal: async () => (anotar('excluir'), HECHO),
        cancelarGlobalReemplazada: async (_e, id) => void anotar(`cancelar ${id}`),
        esperarCancelacionFinal: async (e) => (anotar(`cancelada ${e.facturaId}`), 'cancelada'),
      },
      async (cola) => {
        const h = await flujos.client.workflow.start(reexpedirGlobal, {
          taskQueue: cola,
          workflowId: `reexpedicion:${ENTRADA.reciboId}-${cola}`,
          args: [ENTRADA],
        });
        expect(await h.result()).toBe('cancelada');
        const historia = await h.fetchHistory();
        await expect(repetirHistoria(historia, h.workflowId)).resolves.toBeUndefined();
        grabarSiSePide(historia, 'reexpedicion-v1.json');
      },
    );
    expect(pasos).toEqual([
      'timbrado fac_comprador',
      'excluir',
      'timbrado fac_reexpedida',
      'cancelar fac_global',
      'cancelada fac_global',
    ]);
  });

  it('si el comprador no se timbra, no toca la global', async () => {
    const { pasos, anotar } = registro();
    await flujos.conWorker(
      {
        esperarTimbradoFinal: async () => 'fallido',
        excluirDeGlobal: async () => (anotar('excluir'), HECHO),
      },
      async (cola) => {
        const h = await flujos.client.workflow.start(reexpedirGlobal, {
          taskQueue: cola,
          workflowId: `reexpedicion:fallida-${cola}`,
          args: [ENTRADA],
        });
        expect(await h.result()).toBe('sin_cambios');
      },
    );
    expect(pasos).toEqual([]);
  });

  it('una reexpedición rechazada se deshace y el workflow falla sin reintentos, sin cancelar la anterior', async () => {
    const { pasos, anotar } = registro();
    await flujos.conWorker(
      {
        esperarTimbradoFinal: async (e) => (e.facturaId === HECHO.nueva ? 'fallido' : 'timbrada'),
        excluirDeGlobal: async () => HECHO,
        deshacerReexpedicion: async (_e, x) => void anotar(`deshacer ${x.nueva}`),
        cancelarGlobalReemplazada: async () => void anotar('cancelar'),
      },
      async (cola) => {
        const h = await flujos.client.workflow.start(reexpedirGlobal, {
          taskQueue: cola,
          workflowId: `reexpedicion:rechazada-${cola}`,
          args: [ENTRADA],
        });
        const err = await h.result().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(WorkflowFailedError);
        expect((err as WorkflowFailedError).cause).toMatchObject({ type: 'reexpedicion_rechazada' });
      },
    );
    expect(pasos).toEqual(['deshacer fac_reexpedida']);
  });

  it('replays the recorded first version', async () => {
    const v1 = leerHistoria('reexpedicion-v1.json');
    expect([v1.tipo, v1.programadas, v1.parches]).toEqual([
      'reexpedirGlobal',
      [
        'esperarTimbradoFinal',
        'excluirDeGlobal',
        'esperarTimbradoFinal',
        'cancelarGlobalReemplazada',
        'esperarCancelacionFinal',
      ],
      [],
    ]);
    await expect(repetirHistoria(v1.historia, 'reexpedicion:historia-v1')).resolves.toBeUndefined();
  });
});

describe('facturaGlobalProgramada', () => {
  it('emite las globales del periodo cerrado con un paso; repite su historia', async () => {
    await flujos.conWorker({ emitirGlobalProgramada: async () => ['fac_global'] }, async (cola) => {
      const h = await flujos.client.workflow.start(facturaGlobalProgramada, {
        taskQueue: cola,
        workflowId: `cfdi-factura-global-org_prueba-${cola}`,
        args: [{ cuentaId: 'cta_prueba', modo: 'test', organizacionId: 'org_prueba' }],
      });
      expect(await h.result()).toEqual(['fac_global']);
      const historia = await h.fetchHistory();
      expect(programadas(historia)).toEqual(['emitirGlobalProgramada']);
      await expect(repetirHistoria(historia, h.workflowId)).resolves.toBeUndefined();
      grabarSiSePide(historia, 'factura-global-programada-v1.json');
    });
    const v1 = leerHistoria('factura-global-programada-v1.json');
    expect(v1.tipo).toBe('facturaGlobalProgramada');
    await expect(repetirHistoria(v1.historia, 'programada:historia-v1')).resolves.toBeUndefined();
  });
});
