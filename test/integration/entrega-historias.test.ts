import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { leerHistoria, repetirHistoria, rutaHistoria } from '../support/historias';
import { iniciarPila, type Pila } from '../support/pila';

// A delivery waits up to a day between attempts: every released version of `entregarEvento` must replay with
// the current code. entrega-v1.json was recorded by the first version (GRABAR_HISTORIAS=1 records it again).

describe('historias de la entrega de webhooks', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ programaEntregasS: [0, 1, 2, 3, 4] });
  });
  afterAll(() => pila.detener());

  it('a delivery that fails twice and then arrives replays, and so does the recorded first version', async () => {
    let n = 0;
    const receptor = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(++n <= 2 ? 500 : 200).end());
    });
    await new Promise<void>((r) => receptor.listen(0, '127.0.0.1', r));
    try {
      const c = await cuentaLista(pila);
      const url = `http://127.0.0.1:${(receptor.address() as AddressInfo).port}/`;
      const w = (await c.http.post('/v1/webhooks', { url, eventos_suscritos: ['factura.creada'] })).body;
      await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
      const ev = (await c.http.get('/v1/eventos?tipo=factura.creada')).body.datos[0];
      const h = pila.cliente.workflow.getHandle(`entrega:${ev.id}:${w.id}`);
      // Started by the dispatcher just after the draft's commit.
      await esperar(() =>
        h.describe().then(
          () => true,
          () => undefined,
        ),
      );
      expect(await h.result()).toBe('entregada');
      const historia = await h.fetchHistory();
      await expect(repetirHistoria(historia, h.workflowId)).resolves.toBeUndefined();
      if (process.env.GRABAR_HISTORIAS === '1') {
        writeFileSync(rutaHistoria('entrega-v1.json'), historyToJSON(historia));
      }
      await esperar(async () => (n === 3 ? true : undefined));
    } finally {
      await new Promise<void>((r) => receptor.close(() => r()));
    }

    const v1 = leerHistoria('entrega-v1.json');
    // The first attempt runs local (a marker); attempts 2 and 3 are regular activities after their timers.
    expect(v1.conMarcadores).toBe(true);
    expect(v1.programadas).toEqual(['intentarEntrega', 'intentarEntrega']);
    await expect(repetirHistoria(v1.historia, 'entrega:historia-v1')).resolves.toBeUndefined();
  });
});
