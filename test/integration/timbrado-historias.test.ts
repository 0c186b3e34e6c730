import { temporal } from '@temporalio/proto';
import { ATRIBUTOS } from '../../workflows/atributos';
import { cuentaLista, facturaNueva } from '../support/facturas';
import { leerHistoria, repetirHistoria } from '../support/historias';
import { iniciarPila, type Pila } from '../support/pila';

// A deployment must not break stampings already running: every history the workflow code ever wrote
// has to replay with the current code (a determinism error would leave them stuck).

const { EventType } = temporal.api.enums.v1;

describe('historias del timbrado', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila();
  });
  afterAll(() => pila.detener());

  it('replays a stamping recorded before the local activities (every step a regular activity)', async () => {
    const { historia, programadas, conMarcadores } = leerHistoria('timbrado-actividades-remotas.json');
    // What the fixture is: the three steps scheduled on the server, no marker.
    expect(programadas).toEqual(['prepararTimbrado', 'enviarAlPac', 'generarPdf']);
    expect(conMarcadores).toBe(false);
    await expect(repetirHistoria(historia, 'timbrado:historia-remota')).resolves.toBeUndefined();
  });

  it('replays the stampings of the version before the bounded steps (pasos-locales, unbounded local retries)', async () => {
    const local = leerHistoria('timbrado-pasos-locales.json');
    expect(local.programadas).toEqual(['generarPdf']);
    await expect(repetirHistoria(local.historia, 'timbrado:historia-pasos-locales')).resolves.toBeUndefined();
    // Its first PAC attempt lost the answer: the regular activity took over.
    const reintento = leerHistoria('timbrado-pac-reintento.json');
    expect(reintento.programadas).toEqual(['enviarAlPac', 'generarPdf']);
    await expect(
      repetirHistoria(reintento.historia, 'timbrado:historia-pac-reintento'),
    ).resolves.toBeUndefined();
  });

  it('replays the stampings of the version before the PDF workflow (pasos-acotados, PDF rendered in the stamping)', async () => {
    const v = leerHistoria('timbrado-pasos-acotados.json');
    expect(v.programadas).toEqual(['generarPdf']);
    await expect(repetirHistoria(v.historia, 'timbrado:historia-pasos-acotados')).resolves.toBeUndefined();
  });

  it('a stamping of the current code seals, stamps and hands the PDF on in one workflow task, and replays', async () => {
    const c = await cuentaLista(pila);
    const r = await c.http.post('/v1/facturas', facturaNueva(c));
    expect(r.status).toBe(201);
    const handle = pila.cliente.workflow.getHandle(`timbrado:${r.body.id}`);
    await handle.result();
    expect((await handle.describe()).type).toBe('timbrarFacturaV2');
    const historia = await handle.fetchHistory();
    const contar = (tipo: temporal.api.enums.v1.EventType) =>
      (historia.events ?? []).filter((e) => e.eventType === tipo).length;
    // prepararTimbrado and enviarAlPac (which hands the PDF over) as markers, no patch marker (a new workflow
    // type: each patch would upsert TemporalChangeVersion too), one search-attribute write with the outcome;
    // nothing scheduled on the server, one workflow task.
    expect(contar(EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(2);
    expect(contar(EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)).toBe(1);
    expect(contar(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toBe(0);
    expect(contar(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)).toBe(1);
    const atributos = (await handle.describe()).typedSearchAttributes;
    expect(atributos.get(ATRIBUTOS.EstadoFactura)).toBe('timbrada');
    expect(atributos.get(ATRIBUTOS.Referencias)).toContain(r.body.uuid);
    await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();

    // The PDF: its own workflow on the PDF queue, one queued render.
    const pdf = pila.cliente.workflow.getHandle(`pdf:${r.body.id}`);
    await pdf.result();
    const d = await pdf.describe();
    expect(d.taskQueue).toBe(`${pila.taskQueue}-pdf`);
    const hp = await pdf.fetchHistory();
    const programadas = (hp.events ?? [])
      .filter((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
      .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
    expect(programadas).toEqual(['generarPdf']);
    await expect(repetirHistoria(hp, pdf.workflowId)).resolves.toBeUndefined();
  });
});
