import { temporal } from '@temporalio/proto';
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

  it('a stamping of the current code seals and stamps locally, and its history replays', async () => {
    const c = await cuentaLista(pila);
    const r = await c.http.post('/v1/facturas', facturaNueva(c));
    expect(r.status).toBe(201);
    const handle = pila.cliente.workflow.getHandle(`timbrado:${r.body.id}`);
    await handle.result();
    const historia = await handle.fetchHistory();
    const contar = (tipo: temporal.api.enums.v1.EventType) =>
      (historia.events ?? []).filter((e) => e.eventType === tipo).length;
    // Two patch markers (`pasos-locales`, `pasos-acotados`) + prepararTimbrado + enviarAlPac as markers; only
    // the PDF is scheduled on the server.
    expect(contar(EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(4);
    expect(contar(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toBe(1);
    await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();
  });
});
