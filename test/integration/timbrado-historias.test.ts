import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { cuentaLista, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';

// A deployment must not break stampings already running: every history the workflow code ever wrote
// has to replay with the current code (a determinism error would leave them stuck).

const paquete = () => ({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } });

const { EventType } = temporal.api.enums.v1;

describe('historias del timbrado', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila();
  });
  afterAll(() => pila.detener());

  it('replays a stamping recorded before the local activities (every step a regular activity)', async () => {
    const json = JSON.parse(
      readFileSync(join(__dirname, '../fixtures/historias/timbrado-actividades-remotas.json'), 'utf8'),
    ) as {
      events: {
        eventType: string;
        activityTaskScheduledEventAttributes?: { activityType: { name: string } };
      }[];
    };
    // What the fixture is: the three steps scheduled on the server, no marker.
    const programadas = json.events
      .map((e) => e.activityTaskScheduledEventAttributes?.activityType.name)
      .filter(Boolean);
    expect(programadas).toEqual(['prepararTimbrado', 'enviarAlPac', 'generarPdf']);
    expect(json.events.some((e) => e.eventType === 'EVENT_TYPE_MARKER_RECORDED')).toBe(false);

    await expect(
      Worker.runReplayHistory(paquete(), historyFromJSON(json), 'timbrado:historia-remota'),
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
    // Patch marker + prepararTimbrado + enviarAlPac as markers; only the PDF is scheduled on the server.
    expect(contar(EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(3);
    expect(contar(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toBe(1);
    await expect(Worker.runReplayHistory(paquete(), historia, handle.workflowId)).resolves.toBeUndefined();
  });
});
