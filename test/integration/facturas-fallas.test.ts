import type { ChildProcess } from 'node:child_process';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';
import { fallasPac, lanzarWorkerProceso } from '../support/fallas';

/** How many stamps the sandbox PAC holds for an invoice, found by its unique Folio. */
const timbresDelFolio = async (pila: Pila, folio: string) =>
  (
    await pila.db('pac_sandbox_timbres').where('xml_timbrado', 'like', `%Folio="${folio}"%`).select('uuid')
  ).map((f) => String(f.uuid).toUpperCase());

const folio = () => `F${Date.now()}${Math.floor(Math.random() * 1000)}`;

async function estadoFinal(c: Awaited<ReturnType<typeof cuentaLista>>, id: string, ms = 60_000) {
  return esperar(async () => {
    const f = await c.http.get(`/v1/facturas/${id}`);
    return f.body.timbrado.estado === 'pendiente' ? undefined : f.body;
  }, ms);
}

describe('timbrado exactamente una vez ante fallas', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 1500 });
    c = await cuentaLista(pila);
  });
  afterAll(() => pila.detener());

  it('respuesta perdida: el PAC timbró pero la respuesta no llegó; el reintento recupera el mismo UUID', async () => {
    const f = folio();
    const r = await c.http.post('/v1/facturas', facturaNueva(c, { serie: 'SANDBOX:PERDIDA', folio: f }));
    expect([201, 202]).toContain(r.status);
    const final = await estadoFinal(c, r.body.id);
    expect(final.estado).toBe('timbrada');
    expect(final.timbrado.intentos).toBeGreaterThanOrEqual(2);
    expect(await timbresDelFolio(pila, f)).toEqual([final.uuid]);
  });

  it('PAC caído: responde 202 pendiente, reintenta con backoff y timbra al recuperarse', async () => {
    await fallasPac(pila, 'caido');
    const f = folio();
    const r = await c.http.post('/v1/facturas', facturaNueva(c, { folio: f }));
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ estado: 'borrador', uuid: null, timbrado: { estado: 'pendiente' } });
    await new Promise((res) => setTimeout(res, 3000));
    expect((await c.http.get(`/v1/facturas/${r.body.id}`)).body.timbrado.estado).toBe('pendiente');
    await fallasPac(pila, 'normal');
    const final = await estadoFinal(c, r.body.id);
    expect(final.estado).toBe('timbrada');
    expect(await timbresDelFolio(pila, f)).toEqual([final.uuid]);
  });
});

describe('worker muerto a mitad del timbrado (SIGKILL de un proceso real)', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  const hijos: ChildProcess[] = [];

  const lanzarWorker = async () => {
    const hijo = await lanzarWorkerProceso(pila);
    hijos.push(hijo);
    return hijo;
  };

  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, timbradoEsperaMs: 1000 });
    c = await cuentaLista(pila);
  });
  afterAll(async () => {
    for (const h of hijos) if (h.exitCode === null) h.kill('SIGKILL');
    await pila.detener();
  });

  it('otro worker retoma: consulta al PAC antes de timbrar de nuevo y no hay un segundo UUID', async () => {
    const primero = await lanzarWorker();
    const f = folio();
    // The PAC takes 4 s: the worker dies while waiting for it; the PAC stamps anyway.
    const r = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { serie: 'SANDBOX:LATENCIA=4000', folio: f }),
    );
    expect(r.status).toBe(202);
    await new Promise((res) => setTimeout(res, 1500));
    primero.kill('SIGKILL');
    await esperar(async () => ((await timbresDelFolio(pila, f)).length ? true : undefined), 20_000);
    await lanzarWorker();
    const final = await estadoFinal(c, r.body.id);
    expect(final.estado).toBe('timbrada');
    expect(await timbresDelFolio(pila, f)).toEqual([final.uuid]);
  }, 120_000);
});
