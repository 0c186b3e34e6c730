import { temporal } from '@temporalio/proto';
import { cuentaLista, facturaNueva } from '../support/facturas';
import { leerHistoria, repetirHistoria } from '../support/historias';
import { iniciarPila, type Pila } from '../support/pila';

// Payments live for as long as their stamping takes: every released version of the payment workflow must
// replay with the current code. pago-v1.json was recorded by the first version (before the `timbrando` patch),
// pago-v2.json by the second (before the bounded ledger step), pago-v3.json by the third (before the PDF workflow).

const { EventType } = temporal.api.enums.v1;

describe('historias del pago', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 15_000 });
  });
  afterAll(() => pila.detener());

  it('a payment of the current code records its patch and replays, and so does the recorded first version', async () => {
    const c = await cuentaLista(pila);
    const f = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined }),
    );
    expect(f.status).toBe(201);
    const p = await c.http.post('/v1/pagos', {
      organizacion: c.org,
      fecha_pago: new Date().toISOString(),
      forma_pago: '03',
      monto: '100.00',
      facturas_pagadas: [{ factura: f.body.id, imp_pagado: '100.00' }],
    });
    expect(p.status).toBe(201);
    const handle = pila.cliente.workflow.getHandle(`pago:${p.body.id}`);
    expect(await handle.result()).toBe('timbrada');
    const historia = await handle.fetchHistory();
    const marcadores = (historia.events ?? []).filter(
      (e) => e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED,
    );
    // The ledger step (local), the stamping patch, sealing and the PAC (local), and the `timbrando` patch.
    expect(marcadores.length).toBeGreaterThan(
      leerHistoria('pago-v1.json').historia.events!.filter(
        (e) => e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED,
      ).length,
    );
    await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();

    // The third version (bounded ledger step, PDF rendered inside the payment workflow).
    const v3 = leerHistoria('pago-v3.json');
    expect(v3.programadas).toEqual(['generarPdf']);
    await expect(repetirHistoria(v3.historia, 'pago:historia-v3')).resolves.toBeUndefined();

    // The second version (the `timbrando` patch, ledger retried locally without bound).
    const v2 = leerHistoria('pago-v2.json');
    expect(v2.programadas).toEqual(['generarPdf']);
    await expect(repetirHistoria(v2.historia, 'pago:historia-v2')).resolves.toBeUndefined();

    const v1 = leerHistoria('pago-v1.json');
    expect(v1.programadas).toEqual(['generarPdf']);
    await expect(repetirHistoria(v1.historia, 'pago:historia-v1')).resolves.toBeUndefined();
  });
});
