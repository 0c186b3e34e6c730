import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { FILTRO_TIMBRADOS_ATORADOS, filtroAtoradosDesde } from '../../temporal/consultas-ops';
import { describirFlujo } from '../../temporal/describir';
import { ATRIBUTOS } from '../../workflows/atributos';
import { CLIENTE, ORGANIZACION } from '../support/cuentas';
import { fallasPac } from '../support/fallas';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { repetirHistoria } from '../support/historias';
import { iniciarPila, type Pila } from '../support/pila';

const ejecutar = promisify(execFile);

/**
 * The README's "Ops" runbook, step by step, on the real stack: find a stuck stamping (Temporal filter and API
 * filter), understand it (its last error and step), act (retry now by API or CLI; Terminate and Cancel leave the
 * invoice pending and re-stampable), and nothing is stamped twice.
 */
describe('runbook de ops: encontrar, entender y reintentar un timbrado atorado', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;

  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 1500 });
    c = await cuentaLista(pila);
  });
  afterAll(async () => {
    await fallasPac(pila, 'normal');
    await pila.detener();
  });

  const folio = () => `R${Date.now()}${Math.floor(Math.random() * 1000)}`;
  const timbresDelFolio = async (f: string) =>
    (await pila.db('pac_sandbox_timbres').where('xml_timbrado', 'like', `%Folio="${f}"%`).select('uuid')).map(
      (r) => String(r.uuid).toUpperCase(),
    );
  const lista = async (query: string) => {
    const ws: WorkflowExecutionInfo[] = [];
    for await (const w of pila.cliente.workflow.list({ query })) ws.push(w);
    return ws;
  };
  /** The README's filter, narrowed to this test's invoice (visibility is eventually consistent). */
  const atorado = (id: string, filtro = FILTRO_TIMBRADOS_ATORADOS) =>
    esperar(async () => (await lista(`${filtro} AND FacturaId="${id}"`))[0], 30_000);
  const eventosTimbrada = async (id: string) => {
    const r = await c.http.get('/v1/eventos?tipo=factura.timbrada&paginacion.limite=100');
    return (r.body.datos as { datos: { id: string } }[]).filter((e) => e.datos.id === id).length;
  };
  /** Waits until the stamping has failed `n` times: its backoff is then several seconds long. */
  const conIntentos = (id: string, n: number) =>
    esperar(async () => {
      const f = (await c.http.get(`/v1/facturas/${id}`)).body;
      return f.timbrado.intentos >= n ? f : undefined;
    }, 60_000);

  it('PAC caído → filtro de Temporal y de la API con su último error → "reintentar ahora" timbra una sola vez', async () => {
    await fallasPac(pila, 'caido');
    const f = folio();
    const r = await c.http.post('/v1/facturas', facturaNueva(c, { serie: 'OPS', folio: f }));
    expect(r.status).toBe(202);
    const id = r.body.id as string;

    // Find: the documented Temporal filter (and its "since before" form), by what ops know.
    const w = await atorado(id);
    expect(w.workflowId).toBe(`timbrado:${id}`);
    expect(w.typedSearchAttributes.get(ATRIBUTOS.ErrorTimbrado)).toEqual(['pac', 'pac_no_disponible']);
    expect(w.typedSearchAttributes.get(ATRIBUTOS.Referencias)).toEqual(
      expect.arrayContaining([ORGANIZACION.rfc, CLIENTE.rfc, `OPS-${f}`]),
    );
    await atorado(id, filtroAtoradosDesde(new Date(Date.now() + 60_000)));
    expect(
      await lista(`${filtroAtoradosDesde(new Date(Date.now() - 3_600_000))} AND FacturaId="${id}"`),
    ).toEqual([]);
    expect((await lista(`Referencias="OPS-${f}"`)).map((x) => x.workflowId)).toEqual([`timbrado:${id}`]);

    // Find and understand through the API: pending, by age, with the last error and its step.
    const pendientes = await c.http.get(
      `/v1/facturas?timbrado_estado=pendiente&creada_antes=${encodeURIComponent(new Date(Date.now() + 1000).toISOString())}`,
    );
    expect(pendientes.status).toBe(200);
    const enLista = (pendientes.body.datos as { id: string; timbrado: unknown }[]).find((x) => x.id === id);
    expect(enLista?.timbrado).toMatchObject({
      estado: 'pendiente',
      ultimo_error: { codigo: 'pac_no_disponible', paso: 'pac' },
    });
    const recientes = await c.http.get(
      `/v1/facturas?timbrado_estado=pendiente&creada_desde=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(recientes.body.datos).toEqual([]);

    // Four sends (the local one, then the regular activity at once, 2 s and 4 s later): the next waits 8 s, far
    // longer than the API's 1.5 s wait below.
    await conIntentos(id, 4);
    // Understand, as `npm run flujo:describir` prints it: the regular activity, its attempts and last failure.
    const leido = await esperar(async () => {
      const x = await describirFlujo(await pila.cliente.workflow.getHandle(`timbrado:${id}`).describe());
      return x.pendientes[0]?.ultima_falla ? x : undefined;
    });
    expect(leido).toMatchObject({
      estado: 'RUNNING',
      resumen: `Timbrado de la factura ${id}`,
      atributos: { FacturaId: id, EstadoFactura: 'timbrando', ErrorTimbrado: ['pac', 'pac_no_disponible'] },
      pendientes: [{ actividad: 'enviarAlPac', ultima_falla: { mensaje: expect.any(String) } }],
    });
    expect(leido.pendientes[0]!.intento).toBeGreaterThanOrEqual(1);
    await fallasPac(pila, 'normal');
    const ahora = await c.http.post(`/v1/facturas/${id}/timbrado/reintentar`);
    expect(ahora.status).toBe(200);
    expect(ahora.body).toMatchObject({ estado: 'timbrada', timbrado: { estado: 'timbrada' } });
    expect(await timbresDelFolio(f)).toEqual([ahora.body.uuid]);
    expect(await eventosTimbrada(id)).toBe(1);

    // The workflow now says so: stamped, no error, found by its UUID.
    const d = await pila.cliente.workflow.getHandle(`timbrado:${id}`).describe();
    expect(d.typedSearchAttributes.get(ATRIBUTOS.EstadoFactura)).toBe('timbrada');
    expect(d.typedSearchAttributes.get(ATRIBUTOS.ErrorTimbrado)).toBeUndefined();
    await esperar(async () => (await lista(`Referencias="${ahora.body.uuid}"`))[0], 30_000);

    // The run with the outage, the regular activity and the operator's cut replays with the current code.
    const h = pila.cliente.workflow.getHandle(`timbrado:${id}`);
    await h.result();
    await expect(repetirHistoria(await h.fetchHistory(), h.workflowId)).resolves.toBeUndefined();

    // A second retry has nothing to retry.
    const otra = await c.http.post(`/v1/facturas/${id}/timbrado/reintentar`);
    expect(otra.status).toBe(409);
    expect(otra.body.error).toMatchObject({ codigo: 'timbrado_no_pendiente', parametro: 'id' });
  });

  it('Terminate y Request Cancellation dejan la factura pendiente; reintentar la timbra una vez', async () => {
    await fallasPac(pila, 'caido');
    const fa = folio();
    const fb = folio();
    const a = (await c.http.post('/v1/facturas', facturaNueva(c, { folio: fa }))).body.id as string;
    const b = (await c.http.post('/v1/facturas', facturaNueva(c, { folio: fb }))).body.id as string;
    await atorado(a);
    await atorado(b);

    await pila.cliente.workflow.getHandle(`timbrado:${a}`).terminate('prueba del runbook');
    const hb = pila.cliente.workflow.getHandle(`timbrado:${b}`);
    await hb.cancel();
    await expect(hb.result()).rejects.toThrow();
    expect((await hb.describe()).status.name).toBe('CANCELLED');
    for (const id of [a, b]) {
      const f = (await c.http.get(`/v1/facturas/${id}`)).body;
      expect(f).toMatchObject({ estado: 'borrador', uuid: null, timbrado: { estado: 'pendiente' } });
    }

    await fallasPac(pila, 'normal');
    // The workflow is gone, so the retry starts a new run that asks the PAC first.
    const ra = await c.http.post(`/v1/facturas/${a}/timbrado/reintentar`);
    expect(ra.status).toBe(200);
    expect(await timbresDelFolio(fa)).toEqual([ra.body.uuid]);

    // Cancelled the same way: a new run, the same sealed XML, one UUID.
    const rb = await c.http.post(`/v1/facturas/${b}/timbrado/reintentar`);
    expect(rb.status).toBe(200);
    expect(await timbresDelFolio(fb)).toEqual([rb.body.uuid]);
  });

  it('Terminate de un pago con su CFDI pendiente: reintentar lo inicia de nuevo (registrarPagoV2) y lo timbra una vez', async () => {
    const f = (
      await c.http.post('/v1/facturas', facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined }))
    ).body;
    await esperar(async () =>
      (await c.http.get(`/v1/facturas/${f.id}`)).body.estado === 'timbrada' ? true : undefined,
    );
    await fallasPac(pila, 'caido');
    // Its own series: the payment CFDI's folio is the organization's next one.
    const serie = folio();
    const p = await c.http.post('/v1/pagos', {
      organizacion: c.org,
      fecha_pago: new Date().toISOString(),
      forma_pago: '03',
      monto: '100.00',
      serie,
      facturas_pagadas: [{ factura: f.id, imp_pagado: '100.00' }],
    });
    expect(p.status).toBe(202);
    const cfdi: string = await esperar(
      async () => (await c.http.get(`/v1/pagos/${p.body.id}`)).body.factura_pago ?? undefined,
    );
    await atorado(cfdi);
    // The ledger step is done (`registrado`): the start reconciler no longer restarts this payment.
    await pila.cliente.workflow.getHandle(`pago:${p.body.id}`).terminate('prueba del runbook');

    await fallasPac(pila, 'normal');
    const r = await c.http.post(`/v1/facturas/${cfdi}/timbrado/reintentar`);
    expect(r.status).toBe(200);
    const timbres = await pila.db('pac_sandbox_timbres').where('xml_timbrado', 'like', `%Serie="${serie}"%`);
    expect(timbres.map((t) => String(t.uuid).toUpperCase())).toEqual([r.body.uuid]);
    const d = await pila.cliente.workflow.getHandle(`pago:${p.body.id}`).describe();
    expect(d.type).toBe('registrarPagoV2');
    expect(d.typedSearchAttributes.get(ATRIBUTOS.FacturasPagadas)).toEqual([f.id]);
  });

  it('el comando del CLI del runbook corta la espera de un timbrado en curso', async () => {
    await fallasPac(pila, 'caido');
    const f = folio();
    const id = (await c.http.post('/v1/facturas', facturaNueva(c, { folio: f }))).body.id as string;
    await atorado(id);
    // Five sends: the next one would wait 16 s.
    await conIntentos(id, 5);
    await fallasPac(pila, 'normal');
    const { stdout } = await ejecutar(process.env.TEMPORAL_CLI!, [
      'workflow',
      'update',
      'execute',
      '--address',
      pila.config.temporal.address,
      '--workflow-id',
      `timbrado:${id}`,
      '--name',
      'reintentarAhora',
    ]);
    expect(stdout).toContain('true');
    // The next attempt was 16 s away: stamped long before it.
    const final = await esperar(async () => {
      const x = (await c.http.get(`/v1/facturas/${id}`)).body;
      return x.estado === 'timbrada' ? x : undefined;
    }, 8_000);
    expect(await timbresDelFolio(f)).toEqual([final.uuid]);
  });
});
