import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { cuentaLista, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';

// Payments live for as long as their stamping takes: every released version of the payment workflow must
// replay with the current code. `GRABAR_HISTORIAS=1` writes the fixture of the current version.

const FIXTURA = join(__dirname, '../fixtures/historias/pago-v1.json');
const paquete = () => ({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } });

describe('historias del pago', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 15_000 });
  });
  afterAll(() => pila.detener());

  it('a payment of the current code replays, and so does the recorded first version', async () => {
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
    await expect(Worker.runReplayHistory(paquete(), historia, handle.workflowId)).resolves.toBeUndefined();
    if (process.env.GRABAR_HISTORIAS) writeFileSync(FIXTURA, historyToJSON(historia));

    expect(existsSync(FIXTURA)).toBe(true);
    const grabada = JSON.parse(readFileSync(FIXTURA, 'utf8'));
    await expect(
      Worker.runReplayHistory(paquete(), historyFromJSON(grabada), 'pago:historia-v1'),
    ).resolves.toBeUndefined();
  });
});
