import { temporal } from '@temporalio/proto';
import { cuentaLista, facturaNueva } from '../support/facturas';
import { leerHistoria, repetirHistoria } from '../support/historias';
import { iniciarPila, type Pila } from '../support/pila';

// Cancellations may wait days for the receiver: those running when the tracking window was deployed must
// still replay (they keep polling without a window), and new ones record the patch.

const { EventType } = temporal.api.enums.v1;

describe('historias de la cancelación', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 10_000, cancelacionSondeoMs: 300 });
  });
  afterAll(() => pila.detener());

  it('replays a cancellation recorded before the tracking window (no patch marker)', async () => {
    const { historia, programadas, conMarcadores } = leerHistoria('cancelacion-sin-plazo.json');
    // Requested, polled while the receiver decided, then accepted.
    expect(programadas[0]).toBe('solicitarCancelacion');
    expect(programadas.slice(1).every((n) => n === 'consultarCancelacion')).toBe(true);
    expect(programadas.length).toBeGreaterThan(1);
    expect(conMarcadores).toBe(false);
    await expect(repetirHistoria(historia, 'cancelacion:historia-sin-plazo')).resolves.toBeUndefined();
  });

  it('a cancellation of the current code records the patch, and its history replays', async () => {
    const c = await cuentaLista(pila);
    const r = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { condiciones_pago: 'SANDBOX:CON_ACEPTACION' }),
    );
    expect(r.status).toBe(201);
    expect((await c.http.post(`/v1/facturas/${r.body.id}/cancelar`, { motivo: '02' })).status).toBe(202);
    await fetch(`${pila.pacUrl}/sandbox/cancelaciones/${r.body.uuid}/aceptar`, { method: 'POST' });
    const handle = pila.cliente.workflow.getHandle(`cancelacion:${r.body.id}`);
    expect(await handle.result()).toBe('cancelada');
    const historia = await handle.fetchHistory();
    const marcadores = (historia.events ?? []).filter(
      (e) => e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED,
    );
    expect(marcadores).toHaveLength(1);
    await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();
  });
});
