import { clienteHttp, type ClienteHttp } from '../support/cliente-http';
import {
  CLIENTE,
  habilitarLive,
  llaveLiveDirecta,
  nuevaCuenta,
  ORGANIZACION,
  PRODUCTO,
} from '../support/cuentas';
import { iniciarPila, type Pila } from '../support/pila';

/** Creates one of every resource through `http` and returns their paths. */
async function sembrar(http: ClienteHttp) {
  const org = await http.post('/v1/organizaciones', ORGANIZACION);
  expect(org.status).toBe(201);
  const cli = await http.post('/v1/clientes', { ...CLIENTE, organizacion: org.body.id });
  expect(cli.status).toBe(201);
  const prod = await http.post('/v1/productos', { ...PRODUCTO, organizacion: org.body.id });
  expect(prod.status).toBe(201);
  return {
    org: org.body.id as string,
    recursos: {
      organizaciones: org.body.id as string,
      clientes: cli.body.id as string,
      productos: prod.body.id as string,
    },
  };
}

async function noVe(http: ClienteHttp, recursos: Record<string, string>, rfcOrg: string) {
  for (const [ruta, id] of Object.entries(recursos)) {
    const get = await http.get(`/v1/${ruta}/${id}`);
    expect({ ruta, status: get.status }).toEqual({ ruta, status: 404 });
    expect(get.body.error.tipo).toBe('no_encontrado');
    const patch = await http.patch(
      `/v1/${ruta}/${id}`,
      ruta === 'productos' ? { descripcion: 'X' } : { nombre: 'X' },
    );
    expect({ ruta, status: patch.status }).toEqual({ ruta, status: 404 });
    if (ruta !== 'organizaciones') {
      const del = await http.delete(`/v1/${ruta}/${id}`);
      expect({ ruta, status: del.status }).toEqual({ ruta, status: 404 });
    }
    const lista = await http.get(`/v1/${ruta}`);
    expect(lista.body.datos.map((x: { id: string }) => x.id)).not.toContain(id);
  }
  // Addressing the organization by RFC is scoped too.
  expect((await http.get(`/v1/organizaciones/${rfcOrg}`)).status).toBe(404);
  // And it cannot be used as a parent.
  const cli = await http.post('/v1/clientes', { ...CLIENTE, organizacion: recursos.organizaciones });
  expect(cli.status).toBe(404);
  expect(cli.body.error).toMatchObject({ codigo: 'organizacion_no_encontrada', parametro: 'organizacion' });
}

describe('aislamiento por cuenta y por modo', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
  });
  afterAll(() => pila.detener());

  it('una cuenta no ve ni toca nada de otra (404)', async () => {
    const a = await nuevaCuenta(pila.db, pila.url);
    const b = await nuevaCuenta(pila.db, pila.url);
    const { recursos } = await sembrar(a.http);
    await noVe(b.http, recursos, ORGANIZACION.rfc);
    // The owner still sees everything, untouched.
    for (const [ruta, id] of Object.entries(recursos))
      expect((await a.http.get(`/v1/${ruta}/${id}`)).status).toBe(200);
  });

  it('una llave test no ve datos live y una live no ve datos test', async () => {
    const a = await nuevaCuenta(pila.db, pila.url);
    await habilitarLive(pila.db, a.cuentaId);
    const live = clienteHttp(pila.url, await llaveLiveDirecta(pila.db, a.cuentaId));
    const deTest = await sembrar(a.http);
    const deLive = await sembrar(live);
    expect(deLive.org).not.toBe(deTest.org);
    await noVe(live, deTest.recursos, ORGANIZACION.rfc + 'X');
    await noVe(a.http, deLive.recursos, ORGANIZACION.rfc + 'X');
    const porRfcLive = await live.get(`/v1/organizaciones/${ORGANIZACION.rfc}`);
    expect(porRfcLive.body).toMatchObject({ id: deLive.org, modo: 'live' });
    const porRfcTest = await a.http.get(`/v1/organizaciones/${ORGANIZACION.rfc}`);
    expect(porRfcTest.body).toMatchObject({ id: deTest.org, modo: 'test' });
  });

  it('las llaves y la cuenta son de la cuenta: la de otra cuenta no aparece', async () => {
    const a = await nuevaCuenta(pila.db, pila.url);
    const b = await nuevaCuenta(pila.db, pila.url);
    const llavesB = await b.http.get('/v1/llaves_api');
    const llavesA = await a.http.get('/v1/llaves_api');
    const ids = (r: { body: { datos: { id: string }[] } }) => r.body.datos.map((l) => l.id);
    expect(ids(llavesA).filter((id) => ids(llavesB).includes(id))).toEqual([]);
    expect((await b.http.get('/v1/cuenta')).body.id).toBe(b.cuentaId);
  });
});
