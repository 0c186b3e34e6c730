import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import type { Paso } from '../../activities/timbrado';
import { ErrorPacTransitorio } from '../../pac/puerto';
import { inicioPdf } from '../../temporal/pdf';
import { inicioTimbrado } from '../../temporal/timbrador';
import { ATRIBUTOS } from '../../workflows/atributos';
import { abandonarTimbrado, reintentarAhora } from '../../workflows/pasos';
import { obtenerPdf } from '../../workflows/pdf';
import { esperarTimbrado } from '../../workflows/timbrado';
import {
  contar,
  grabarSiSePide,
  leerHistoria,
  parches,
  programadas,
  repetirHistoria,
} from '../support/historias';
import { atributo, hasta, iniciarConEspera, prepararFlujos } from './soporte';

// A deployment must not break stampings already running: every history the workflow code ever wrote has to
// replay with the current code (a determinism error would leave them stuck). The recorded ones were written by
// released code (the first four through the whole stack, the last two with faked activities, as here).

const { EventType } = temporal.api.enums.v1;
const flujos = prepararFlujos();

const REFERENCIAS = ['AAA010101AAA', 'XAXX010101000', 'A-1'];
const listo: Paso = { estado: 'listo', referencias: REFERENCIAS };
const timbrada: Paso = {
  estado: 'timbrada',
  referencias: [...REFERENCIAS, '5FB2822E-396D-4725-8521-CDC4BDD20CCF'],
};
const inicio = (cola: string, tipo = 'timbrarFacturaV3') => ({
  ...inicioTimbrado(
    cola,
    { cuentaId: 'cta_1', modo: 'test' },
    { id: `fac_${randomUUID()}`, organizacionId: 'org_1' },
  ),
  tipo,
});
/** The PDF queue's worker, for the stampings that render their PDF (timbrarFacturaV3). */
const conPdf = { pdf: { generarPdf: async () => undefined } };

describe('historias de timbrarFactura (nada lo inicia ya; sus ejecuciones en curso terminan)', () => {
  it('replays a stamping recorded before the local activities (every step a regular activity)', async () => {
    const h = leerHistoria('timbrado-actividades-remotas.json');
    // What the fixture is: the three steps scheduled on the server, no marker.
    expect(h.programadas).toEqual(['prepararTimbrado', 'enviarAlPac', 'generarPdf']);
    expect(h.conMarcadores).toBe(false);
    await expect(repetirHistoria(h.historia, 'timbrado:historia-remota')).resolves.toBeUndefined();
  });

  it('replays the stampings of the version before the bounded steps (pasos-locales, unbounded local retries)', async () => {
    const local = leerHistoria('timbrado-pasos-locales.json');
    expect(local.programadas).toEqual(['generarPdf']);
    expect(local.parches.map((p) => p.id)).toEqual(['pasos-locales']);
    await expect(repetirHistoria(local.historia, 'timbrado:historia-pasos-locales')).resolves.toBeUndefined();
    // Its first PAC attempt lost the answer: the regular activity took over.
    const reintento = leerHistoria('timbrado-pac-reintento.json');
    expect(reintento.programadas).toEqual(['enviarAlPac', 'generarPdf']);
    await expect(
      repetirHistoria(reintento.historia, 'timbrado:historia-pac-reintento'),
    ).resolves.toBeUndefined();
  });

  it('replays the version before the PDF workflow (pasos-acotados, PDF rendered in the stamping)', async () => {
    const v = leerHistoria('timbrado-pasos-acotados.json');
    expect(v.programadas).toEqual(['generarPdf']);
    expect(v.parches.map((p) => p.id)).toEqual(['pasos-locales', 'pasos-acotados']);
    await expect(repetirHistoria(v.historia, 'timbrado:historia-pasos-acotados')).resolves.toBeUndefined();
  });

  it('replays the last released version (pdf-aparte: the PDF left to its own workflow)', async () => {
    const v = leerHistoria('timbrado-pdf-aparte.json');
    expect(v.tipo).toBe('timbrarFactura');
    expect(v.programadas).toEqual([]);
    expect(v.parches).toEqual([
      { id: 'pasos-locales', deprecated: false },
      { id: 'pasos-acotados', deprecated: false },
      { id: 'pdf-aparte', deprecated: false },
    ]);
    await expect(repetirHistoria(v.historia, 'timbrado:historia-pdf-aparte')).resolves.toBeUndefined();
  });
});

describe('historias de timbrarFacturaV2', () => {
  it('replays a released run that waited on the PAC and was cut short by reintentarAhora', async () => {
    const v = leerHistoria('timbrado-v2-espera.json');
    expect(v.tipo).toBe('timbrarFacturaV2');
    // The regular PAC activity, cancelled by the update, then a new one.
    expect(v.programadas).toEqual(['enviarAlPac', 'enviarAlPac']);
    expect(v.parches).toEqual([]);
    expect(contar(v.historia, EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED)).toBe(1);
    await expect(repetirHistoria(v.historia, 'timbrado:historia-v2-espera')).resolves.toBeUndefined();
  });

  it('replays a released run: two local steps, one search-attribute write, one task', async () => {
    const v = leerHistoria('timbrado-v2.json');
    expect(v.tipo).toBe('timbrarFacturaV2');
    expect(v.programadas).toEqual([]);
    expect(v.parches).toEqual([]);
    expect(contar(v.historia, EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(2);
    await expect(repetirHistoria(v.historia, 'timbrado:historia-v2')).resolves.toBeUndefined();
  });

  it('a run of the current code still replays (GRABAR_HISTORIAS=1 records it)', async () => {
    const actividades = { prepararTimbrado: async () => listo, enviarAlPac: async () => timbrada };
    await flujos.conWorker(actividades, async (cola) => {
      const { espera, handle } = await iniciarConEspera(
        flujos.client,
        inicio(cola, 'timbrarFacturaV2'),
        esperarTimbrado,
      );
      expect(await espera.result()).toBe('timbrada');
      await handle.result();
      const historia = await handle.fetchHistory();
      await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();
      grabarSiSePide(historia, 'timbrado-v2.json');
    });
  });
});

describe('historias de timbrarFacturaV3', () => {
  it('replays the recorded runs: stamped with its PDF, and stamped after waiting on the PAC', async () => {
    const v = leerHistoria('timbrado-v3.json');
    expect([v.tipo, v.programadas, v.parches]).toEqual(['timbrarFacturaV3', ['generarPdf'], []]);
    await expect(repetirHistoria(v.historia, 'timbrado:historia-v3')).resolves.toBeUndefined();
    const espera = leerHistoria('timbrado-v3-espera.json');
    expect(espera.programadas).toEqual(['enviarAlPac', 'enviarAlPac', 'generarPdf']);
    await expect(repetirHistoria(espera.historia, 'timbrado:historia-v3-espera')).resolves.toBeUndefined();
  });

  it('a stamping of the current code: one local step, no patch, one search-attribute write, then the PDF; replays', async () => {
    const actividades = { timbrarDeUnaVez: async () => timbrada };
    await flujos.conWorker(
      actividades,
      async (cola) => {
        const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarTimbrado);
        expect(await espera.result()).toBe('timbrada');
        await handle.result();
        const historia = await handle.fetchHistory();
        // Seal and stamp as one marker; no patch (each would upsert TemporalChangeVersion too); the outcome and
        // references in one write; the PDF as the one activity on the server, then a second task that ends it.
        expect(parches(historia)).toEqual([]);
        expect(contar(historia, EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(1);
        expect(contar(historia, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)).toBe(1);
        expect(programadas(historia)).toEqual(['generarPdf']);
        expect(contar(historia, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)).toBe(2);
        await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();
        grabarSiSePide(historia, 'timbrado-v3.json');
      },
      conPdf,
    );
  });

  it('a stamping of the current code waiting on the PAC: the error in one write, the outcome in another; replays', async () => {
    let pacArriba = false;
    const actividades = {
      async timbrarDeUnaVez(): Promise<Paso> {
        throw new ErrorPacTransitorio('el PAC no responde');
      },
      prepararTimbrado: async () => listo,
      async enviarAlPac() {
        if (!pacArriba) throw new ErrorPacTransitorio('el PAC no responde');
        return timbrada;
      },
    };
    await flujos.conWorker(
      actividades,
      async (cola) => {
        const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarTimbrado);
        await hasta(async () => ((await handle.describe()).raw.pendingActivities?.[0]?.attempt ?? 0) >= 2);
        pacArriba = true;
        expect(await handle.executeUpdate(reintentarAhora)).toBe(true);
        expect(await espera.result()).toBe('timbrada');
        await handle.result();
        expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toBeUndefined();
        const historia = await handle.fetchHistory();
        expect(programadas(historia)).toEqual(['enviarAlPac', 'enviarAlPac', 'generarPdf']);
        expect(contar(historia, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)).toBe(2);
        await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();
        grabarSiSePide(historia, 'timbrado-v3-espera.json');
      },
      conPdf,
    );
  });
});

describe('historias de timbrarFacturaV3 abandonado (abandonarTimbrado)', () => {
  const solicitud = { origen: { solicitudId: 'req_abandono', llaveId: 'llave_ops' } };

  it('replays the recorded run: the PAC attempt cancelled and waited for, then the abandon recorded', async () => {
    const v = leerHistoria('timbrado-v3-abandono.json');
    expect([v.tipo, v.programadas, v.parches]).toEqual([
      'timbrarFacturaV3',
      ['enviarAlPac', 'registrarAbandono'],
      [],
    ]);
    expect(contar(v.historia, EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED)).toBe(1);
    await expect(repetirHistoria(v.historia, 'timbrado:historia-v3-abandono')).resolves.toBeUndefined();
  });

  it('an abandon of the current code: no patch, the attempt cut, one activity records it; replays', async () => {
    const actividades = {
      async timbrarDeUnaVez(): Promise<Paso> {
        throw new ErrorPacTransitorio('stamp: HTTP 500, SOAP Fault');
      },
      prepararTimbrado: async () => listo,
      async enviarAlPac(): Promise<Paso> {
        throw new ErrorPacTransitorio('stamp: HTTP 500, SOAP Fault');
      },
      registrarAbandono: async (): Promise<Paso> => ({
        estado: 'rechazado',
        referencias: REFERENCIAS,
        error: { codigo: 'timbrado_abandonado', mensaje: 'abandonado', paso: 'pac' },
      }),
    };
    await flujos.conWorker(
      actividades,
      async (cola) => {
        const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarTimbrado);
        await hasta(async () => ((await handle.describe()).raw.pendingActivities?.[0]?.attempt ?? 0) >= 2);
        expect(await handle.executeUpdate(abandonarTimbrado, { args: [solicitud] })).toBe('fallido');
        expect(await espera.result()).toBe('fallido');
        await handle.result();
        const historia = await handle.fetchHistory();
        expect(parches(historia)).toEqual([]);
        expect(programadas(historia)).toEqual(['enviarAlPac', 'registrarAbandono']);
        expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toEqual(['pac', 'timbrado_abandonado']);
        await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();
        grabarSiSePide(historia, 'timbrado-v3-abandono.json');
      },
      conPdf,
    );
  });
});

describe('historias de generarPdfFactura', () => {
  it('the PDF of the current code: one queued render on the PDF queue, or one local render for a reader; replays', async () => {
    const renders: string[] = [];
    const pdf = { generarPdf: async () => void renders.push('pdf') };
    await flujos.conWorker(
      {},
      async (cola) => {
        const e = { facturaId: `fac_${randomUUID()}`, cuentaId: 'cta_1', modo: 'test' as const };
        const i = inicioPdf(cola, e);
        const enCola = await flujos.client.workflow.start(i.tipo, {
          workflowId: i.workflowId,
          taskQueue: i.taskQueue,
          args: [i.entrada],
        });
        await enCola.result();
        const historia = await enCola.fetchHistory();
        expect((await enCola.describe()).taskQueue).toBe(`${cola}-pdf`);
        expect(programadas(historia)).toEqual(['generarPdf']);
        await expect(repetirHistoria(historia, enCola.workflowId)).resolves.toBeUndefined();

        // A read first: rendered now, nothing queued.
        const leida = inicioPdf(cola, { ...e, facturaId: `fac_${randomUUID()}`, urgente: true });
        const { espera, handle } = await iniciarConEspera(flujos.client, leida, obtenerPdf);
        await espera.result();
        await handle.result();
        const h2 = await handle.fetchHistory();
        expect(programadas(h2)).toEqual([]);
        expect(contar(h2, EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(1);
        await expect(repetirHistoria(h2, handle.workflowId)).resolves.toBeUndefined();
      },
      { pdf },
    );
    expect(renders).toEqual(['pdf', 'pdf']);
  });
});
