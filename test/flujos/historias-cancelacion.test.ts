import { randomUUID } from 'node:crypto';
import type { EstadoCancelacion } from '../../activities/cancelacion';
import { ErrorPacTransitorio } from '../../pac/puerto';
import { inicioCancelacion } from '../../temporal/cancelador';
import { esperarCancelacion } from '../../workflows/cancelacion';
import { grabarSiSePide, leerHistoria, parches, programadas, repetirHistoria } from '../support/historias';
import { aviso, hasta, iniciarConEspera, prepararFlujos } from './soporte';

// Cancellations may wait days for the receiver: those running when the tracking window was deployed must still
// replay (they keep polling without a window), and new ones record the patch. cancelacion-sin-plazo.json was
// recorded through the whole stack by the version before the window.

const flujos = prepararFlujos();

const inicio = (cola: string) =>
  inicioCancelacion(
    cola,
    { cuentaId: 'cta_1', modo: 'test' },
    { id: `fac_${randomUUID()}`, organizacionId: 'org_1' },
    { intervaloSondeoMs: 50, plazoMs: 600_000 },
  );

/** The README's check before cancelacion-plazo is deprecated (Ops, "Retiring old workflow code"). */
const sinMarcador = (workflowId: string) =>
  `WorkflowType="cancelarFactura" AND ExecutionStatus="Running" AND TemporalChangeVersion IS NULL AND WorkflowId="${workflowId}"`;
const listados = async (query: string) => {
  const ids: string[] = [];
  for await (const w of flujos.client.workflow.list({ query })) ids.push(w.workflowId);
  return ids;
};

describe('historias de la cancelación', () => {
  it('replays a cancellation recorded before the tracking window (no patch marker)', async () => {
    const h = leerHistoria('cancelacion-sin-plazo.json');
    // Requested, polled while the receiver decided, then accepted.
    expect(h.programadas[0]).toBe('solicitarCancelacion');
    expect(h.programadas.slice(1).every((n) => n === 'consultarCancelacion')).toBe(true);
    expect(h.programadas.length).toBeGreaterThan(1);
    expect(h.conMarcadores).toBe(false);
    await expect(repetirHistoria(h.historia, 'cancelacion:historia-sin-plazo')).resolves.toBeUndefined();
  });

  it('a cancellation of the current code records the patch once the PAC answers, and its history replays', async () => {
    let consultas = 0;
    const actividades = {
      solicitarCancelacion: async (): Promise<EstadoCancelacion> => 'en_proceso',
      consultarCancelacion: async (): Promise<EstadoCancelacion> =>
        ++consultas < 3 ? 'en_proceso' : 'cancelada',
    };
    await flujos.conWorker(actividades, async (cola) => {
      const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarCancelacion);
      expect(await espera.result()).toBe('en_proceso');
      expect(await handle.result()).toBe('cancelada');
      const historia = await handle.fetchHistory();
      expect(parches(historia)).toEqual([{ id: 'cancelacion-plazo', deprecated: false }]);
      expect(programadas(historia)).toEqual([
        'solicitarCancelacion',
        'consultarCancelacion',
        'consultarCancelacion',
        'consultarCancelacion',
      ]);
      await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();
      grabarSiSePide(historia, 'cancelacion-plazo.json');
    });
  });

  it('replays the released runs with the window (cancelacion-plazo): polled until accepted, and one that waited on the PAC', async () => {
    const h = leerHistoria('cancelacion-plazo.json');
    expect(h.parches).toEqual([{ id: 'cancelacion-plazo', deprecated: false }]);
    await expect(repetirHistoria(h.historia, 'cancelacion:historia-plazo')).resolves.toBeUndefined();
    const espera = leerHistoria('cancelacion-pac-espera.json');
    expect(espera.programadas).toEqual(['solicitarCancelacion', 'consultarCancelacion']);
    await expect(
      repetirHistoria(espera.historia, 'cancelacion:historia-pac-espera'),
    ).resolves.toBeUndefined();
  });

  it('a cancellation of the current code that waits on the PAC retries it and replays', async () => {
    let intentos = 0;
    const actividades = {
      async solicitarCancelacion(): Promise<EstadoCancelacion> {
        if (++intentos < 2)
          throw new ErrorPacTransitorio('cancel_signature: falla de transporte (ECONNREFUSED)');
        return 'en_proceso';
      },
      consultarCancelacion: async (): Promise<EstadoCancelacion> => 'cancelada',
    };
    await flujos.conWorker(actividades, async (cola) => {
      const { handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarCancelacion);
      expect(await handle.result()).toBe('cancelada');
      const historia = await handle.fetchHistory();
      expect(programadas(historia)).toEqual(['solicitarCancelacion', 'consultarCancelacion']);
      await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();
      grabarSiSePide(historia, 'cancelacion-pac-espera.json');
    });
  });

  it("the README's check lists a running cancellation without the marker, not one past it", async () => {
    const pac = aviso<EstadoCancelacion>();
    let respondio = false;
    let final: EstadoCancelacion = 'en_proceso';
    const actividades = {
      async solicitarCancelacion(): Promise<EstadoCancelacion> {
        // The second cancellation waits for the PAC's first answer: it has not reached the patch yet.
        if (respondio) return pac.promesa;
        respondio = true;
        return 'en_proceso';
      },
      consultarCancelacion: async (): Promise<EstadoCancelacion> => final,
    };
    await flujos.conWorker(actividades, async (cola) => {
      const sondeando = await iniciarConEspera(flujos.client, inicio(cola), esperarCancelacion);
      expect(await sondeando.espera.result()).toBe('en_proceso');
      const { handle: pidiendo } = await iniciarConEspera(flujos.client, inicio(cola), esperarCancelacion);
      await hasta(async () => (await listados(sinMarcador(pidiendo.workflowId))).length === 1);
      // Visibility lags: first the polling one is seen with its marker, then the check leaves it out.
      const conMarcador = `TemporalChangeVersion="cancelacion-plazo" AND WorkflowId="${sondeando.handle.workflowId}"`;
      await hasta(async () => (await listados(conMarcador)).length === 1);
      expect(await listados(sinMarcador(sondeando.handle.workflowId))).toEqual([]);
      final = 'cancelada';
      pac.resolver('cancelada');
      expect(await sondeando.handle.result()).toBe('cancelada');
      expect(await pidiendo.result()).toBe('cancelada');
    });
  });
});
