import { clienteHttp, type ClienteHttp } from '../support/cliente-http';
import { cuentaLista, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';

/**
 * Issue 14, item 3: every event says who wrote it and for which request, and the log is read per invoice and
 * per payment (`GET /v1/eventos?factura=…`, `?pago=…`), over the real API, worker, Temporal and sandbox PAC.
 */

interface EventoApi {
  id: string;
  tipo: string;
  actor: { tipo: 'llave' | 'sistema'; id: string | null } | null;
  solicitud: { id: string; llave: string | null } | null;
  datos: { id: string };
}

describe('eventos: actor, solicitud y filtros por factura y pago', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  /** The account's first key (creates) and a second one (stamps and cancels). */
  let llaveA: string;
  let llaveB: { id: string; http: ClienteHttp };

  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 15_000 });
    c = await cuentaLista(pila);
    llaveA = (await c.http.get('/v1/llaves_api')).body.datos[0].id;
    const b = await c.http.post('/v1/llaves_api', { nombre: 'Cancelaciones', modo: 'test' });
    expect(b.status).toBe(201);
    llaveB = { id: b.body.id, http: clienteHttp(pila.url, b.body.secreto) };
  }, 120_000);
  afterAll(() => pila.detener());

  /** Every page of a filtered list, following its cursors. */
  async function todos(consulta: string, limite = 100): Promise<EventoApi[]> {
    const vistos: EventoApi[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `${consulta}&paginacion.limite=${limite}${cursor ? `&paginacion.cursor_inicio=${cursor}` : ''}`;
      const r = await c.http.get(`/v1/eventos?${q}`);
      expect(r.status).toBe(200);
      vistos.push(...r.body.datos);
      cursor = r.body.paginacion.siguiente_cursor;
    } while (cursor);
    return vistos;
  }
  const resumen = (es: EventoApi[]) => es.map((e) => `${e.tipo} ${e.datos.id}`);

  it('un borrador creado por una llave y timbrado por otra: cada evento con la llave que lo causó', async () => {
    const creada = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }), {
      'x-request-id': 'prueba-creacion-0001',
    });
    expect(creada.status).toBe(201);
    expect(creada.headers.get('x-request-id')).toBe('prueba-creacion-0001');
    const timbrada = await llaveB.http.post(`/v1/facturas/${creada.body.id}/timbrar`);
    expect(timbrada.status).toBe(200);
    const solicitudTimbrado = timbrada.headers.get('x-request-id');
    expect(solicitudTimbrado).toMatch(/^req_/);

    const eventos = await todos(`factura=${creada.body.id}`);
    expect(eventos.map((e) => [e.tipo, e.actor, e.solicitud])).toEqual([
      ['factura.timbrada', { tipo: 'llave', id: llaveB.id }, { id: solicitudTimbrado, llave: llaveB.id }],
      ['factura.creada', { tipo: 'llave', id: llaveA }, { id: 'prueba-creacion-0001', llave: llaveA }],
    ]);
    // The same fields on GET /v1/eventos/{id}.
    const uno = await c.http.get(`/v1/eventos/${eventos[1]!.id}`);
    expect(uno.body).toMatchObject({ actor: { tipo: 'llave', id: llaveA } });
  });

  it('una factura PPD con un pago: los filtros dan exactamente sus eventos; la cancelación nombra la llave que canceló', async () => {
    const f = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined }),
    );
    expect(f.status).toBe(201);
    // Another invoice with a payment of its own: none of its events may show up.
    const otra = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined }),
    );
    const pagar = (factura: string) =>
      c.http.post('/v1/pagos', {
        organizacion: c.org,
        fecha_pago: new Date().toISOString(),
        forma_pago: '03',
        monto: '1000.00',
        facturas_pagadas: [{ factura, imp_pagado: '1000.00' }],
      });
    const pago = await pagar(f.body.id);
    expect(pago.status).toBe(201);
    expect((await pagar(otra.body.id)).status).toBe(201);
    const cfdi: string = pago.body.factura_pago;

    // Cancellation needs the payment CFDI cancelled first; both by key B.
    const cancelaCfdi = await llaveB.http.post(`/v1/facturas/${cfdi}/cancelar`, { motivo: '02' });
    expect(cancelaCfdi.status).toBe(200);
    const cancela = await llaveB.http.post(`/v1/facturas/${f.body.id}/cancelar`, { motivo: '02' });
    expect(cancela.status).toBe(200);

    const deFactura = await todos(`factura=${f.body.id}`);
    expect(resumen(deFactura)).toEqual([
      `factura.cancelada ${f.body.id}`,
      `factura.cancelada ${cfdi}`,
      `factura.timbrada ${cfdi}`,
      `pago.creado ${pago.body.id}`,
      `factura.timbrada ${f.body.id}`,
    ]);
    const por = (tipo: string, id: string) => deFactura.find((e) => e.tipo === tipo && e.datos.id === id)!;
    // The worker wrote each outcome; the actor is the key whose request started the operation.
    expect(por('factura.cancelada', f.body.id)).toMatchObject({
      actor: { tipo: 'llave', id: llaveB.id },
      solicitud: { id: cancela.headers.get('x-request-id'), llave: llaveB.id },
    });
    expect(por('factura.cancelada', cfdi).solicitud).toEqual({
      id: cancelaCfdi.headers.get('x-request-id'),
      llave: llaveB.id,
    });
    expect(por('factura.timbrada', f.body.id)).toMatchObject({
      actor: { tipo: 'llave', id: llaveA },
      solicitud: { id: f.headers.get('x-request-id'), llave: llaveA },
    });
    expect(por('pago.creado', pago.body.id).solicitud).toEqual({
      id: pago.headers.get('x-request-id'),
      llave: llaveA,
    });
    // The payment CFDI's stamping belongs to the request that registered the payment.
    expect(por('factura.timbrada', cfdi)).toMatchObject({
      actor: { tipo: 'llave', id: llaveA },
      solicitud: { id: pago.headers.get('x-request-id'), llave: llaveA },
    });

    expect(resumen(await todos(`pago=${pago.body.id}`))).toEqual([
      `factura.cancelada ${cfdi}`,
      `factura.timbrada ${cfdi}`,
      `pago.creado ${pago.body.id}`,
    ]);
    expect(resumen(await todos(`factura=${f.body.id}&tipo=factura.cancelada`))).toEqual([
      `factura.cancelada ${f.body.id}`,
      `factura.cancelada ${cfdi}`,
    ]);
    expect(resumen(await todos(`factura=${f.body.id}&pago=${pago.body.id}&tipo=pago.creado`))).toEqual([
      `pago.creado ${pago.body.id}`,
    ]);
    // Page by page, the same events exactly once.
    expect(resumen(await todos(`factura=${f.body.id}`, 2))).toEqual(resumen(deFactura));

    // A cursor walks only the list that issued it.
    const p1 = await c.http.get(`/v1/eventos?factura=${f.body.id}&paginacion.limite=1`);
    const cursor = p1.body.paginacion.siguiente_cursor as string;
    for (const otraLista of ['', `factura=${otra.body.id}&`, `pago=${pago.body.id}&`]) {
      const r = await c.http.get(`/v1/eventos?${otraLista}paginacion.cursor_inicio=${cursor}`);
      expect([otraLista, r.status, r.body.error?.codigo]).toEqual([otraLista, 400, 'cursor_invalido']);
    }

    // Another account's ids are missing ones.
    const intrusa = await cuentaLista(pila);
    const rf = await intrusa.http.get(`/v1/eventos?factura=${f.body.id}`);
    expect([rf.status, rf.body.error.codigo, rf.body.error.parametro]).toEqual([
      404,
      'factura_no_encontrada',
      'factura',
    ]);
    const rp = await intrusa.http.get(`/v1/eventos?pago=${pago.body.id}`);
    expect([rp.status, rp.body.error.codigo, rp.body.error.parametro]).toEqual([
      404,
      'pago_no_encontrado',
      'pago',
    ]);
  }, 120_000);

  it('las relaciones quedan escritas al registrar el evento, en su alcance', async () => {
    const f = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
    const [e] = await todos(`factura=${f.body.id}`);
    expect(await pila.db('eventos_recursos').where({ evento_id: e!.id })).toEqual([
      { cuenta_id: c.cuentaId, modo: 'test', recurso_id: f.body.id, evento_id: e!.id },
    ]);
    expect(await pila.db('eventos').select('actor', 'solicitud_id').where({ id: e!.id })).toEqual([
      { actor: llaveA, solicitud_id: f.headers.get('x-request-id') },
    ]);
  });
});
