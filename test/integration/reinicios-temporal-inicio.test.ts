import { randomUUID } from 'node:crypto';
import { asegurarProgramaciones, idsProgramaciones } from '../../temporal/programaciones';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { baseAparte } from '../support/servicio-replicado';
import { iniciarPila, type Pila } from '../support/pila';
import { iniciarTemporalPrivado, type TemporalPrivado } from '../support/temporal-privado';

const dormir = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A stamping requested while the Temporal server is down for longer than the client's gRPC retries (about 20 s):
 * the API commits the invoice and answers 202 `pendiente`, and the Update-With-Start gives up. The start
 * reconciler's schedule (`cfdi-reanudar-procesos`, every minute; triggered by hand here) starts its workflow once
 * the server is back, and it is stamped exactly once.
 */
describe('timbrado pedido con el servidor Temporal caído', () => {
  const prefijo = `prueba-${randomUUID().slice(0, 8)}`;
  let temporal: TemporalPrivado;
  let pila: Pila;
  let base: Awaited<ReturnType<typeof baseAparte>>;

  beforeAll(async () => {
    // A database of its own: its start reconciler (1 s of grace) would otherwise take over the invoices other
    // files keep pending on purpose (a PAC down) and stamp them through this file's PAC.
    [temporal, base] = await Promise.all([
      iniciarTemporalPrivado(),
      baseAparte(process.env.DATABASE_URL!, 'reanudacion'),
    ]);
    pila = await iniciarPila({
      temporalAddress: temporal.address,
      databaseUrl: base.url,
      timbradoEsperaMs: 5000,
      graciaReanudacionMs: 1000,
    });
  }, 120_000);
  afterAll(async () => {
    await pila?.cliente.schedule
      .getHandle(idsProgramaciones(prefijo).reanudar)
      .delete()
      .catch(() => undefined);
    await pila?.detener();
    await temporal?.detener();
    await base?.borrar();
  });

  let c: Awaited<ReturnType<typeof cuentaLista>>;
  let id: string;

  it('con Temporal caído 25 s, POST /v1/facturas guarda la factura y responde 202 pendiente', async () => {
    c = await cuentaLista(pila);
    await temporal.matar();
    let r: Response;
    try {
      r = await fetch(`${pila.url}/v1/facturas`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${c.secreto}:`).toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(facturaNueva(c)),
      });
      // Longer than the client's retries: the start is lost, only MySQL knows the invoice waits.
      await dormir(25_000);
    } finally {
      await temporal.arrancar();
    }
    expect(r.status).toBe(202);
    const body = (await r.json()) as { id: string; timbrado: { estado: string } };
    expect(body.timbrado.estado).toBe('pendiente');
    id = body.id;
    const f = await c.http.get(`/v1/facturas/${id}`);
    expect(f.body.timbrado.estado).toBe('pendiente');
  }, 120_000);

  it('el reconciliador de inicios la timbra al volver el servidor, una sola vez', async () => {
    await asegurarProgramaciones(pila.cliente, { taskQueue: pila.taskQueue, prefijo, solo: ['reanudar'] });
    await pila.cliente.schedule.getHandle(idsProgramaciones(prefijo).reanudar).trigger();
    const fin = await esperar(async () => {
      const f = await c.http.get(`/v1/facturas/${id}`);
      return f.body.timbrado.estado === 'pendiente' ? undefined : f.body;
    }, 60_000);
    expect(fin).toMatchObject({ estado: 'timbrada', timbrado: { estado: 'timbrada' } });
    // One execution of its stamping workflow, and one factura.timbrada.
    const ejecuciones = [];
    for await (const w of pila.cliente.workflow.list({ query: `WorkflowId = 'timbrado:${id}'` })) {
      ejecuciones.push(w.runId);
    }
    expect(ejecuciones).toHaveLength(1);
    const timbradas = await pila
      .db('eventos')
      .where({ tipo: 'factura.timbrada' })
      .whereRaw(`JSON_VALUE(datos, '$.id') = ?`, [id])
      .count({ n: '*' });
    expect(Number(timbradas[0]!.n)).toBe(1);
    // A second run finds nothing left to start for it.
    await pila.cliente.schedule.getHandle(idsProgramaciones(prefijo).reanudar).trigger();
    await dormir(2000);
    const otra = [];
    for await (const w of pila.cliente.workflow.list({ query: `WorkflowId = 'timbrado:${id}'` })) {
      otra.push(w.runId);
    }
    expect(otra).toHaveLength(1);
  }, 120_000);
});
