import { nuevaCuenta } from '../support/cuentas';
import { iniciarPila, type Pila } from '../support/pila';

describe('sobre de error común', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
  });
  afterAll(() => pila.detener());

  it('bajo /v1 una ruta inexistente pide llave primero, y con llave responde 404', async () => {
    expect((await fetch(`${pila.url}/v1/no-existe`)).status).toBe(401);
    const { secreto } = await nuevaCuenta(pila.db, pila.url);
    // Raw fetch: the contract checker of the test client refuses undocumented paths by design.
    const r = await fetch(`${pila.url}/v1/no-existe`, {
      headers: { authorization: `Basic ${Buffer.from(`${secreto}:`).toString('base64')}` },
    });
    expect(r.status).toBe(404);
    expect((await r.json()).error.codigo).toBe('ruta_no_encontrada');
  });

  it('una ruta inexistente responde 404 con el sobre', async () => {
    const r = await fetch(`${pila.url}/no-existe`);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({
      error: { tipo: 'no_encontrado', codigo: 'ruta_no_encontrada', mensaje: expect.any(String) },
    });
  });

  it('un método no permitido responde 405 con el sobre', async () => {
    const r = await fetch(`${pila.url}/salud`, { method: 'DELETE' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
    expect((await r.json()).error.codigo).toBe('metodo_no_permitido');
  });

  it('JSON mal formado responde 400 json_invalido, nunca 500', async () => {
    const r = await fetch(`${pila.url}/salud`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    });
    expect(r.status).toBe(400);
    expect((await r.json()).error.codigo).toBe('json_invalido');
  });

  it('sirve el contrato en /openapi.yaml', async () => {
    const r = await fetch(`${pila.url}/openapi.yaml`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('yaml');
    expect(await r.text()).toContain('openapi: 3.');
  });

  it('un cuerpo de más de 2 MB responde 413 con el sobre', async () => {
    const { secreto } = await nuevaCuenta(pila.db, pila.url);
    const r = await fetch(`${pila.url}/v1/organizaciones`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${secreto}:`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ nombre: 'x'.repeat(3 * 1024 * 1024) }),
    });
    expect(r.status).toBe(413);
    expect((await r.json()).error.codigo).toBe('cuerpo_demasiado_grande');
  });

  it('sirve la referencia humana en /docs con Swagger UI local, sin CDN', async () => {
    const html = await (await fetch(`${pila.url}/docs`)).text();
    expect(html).toContain('/docs/recursos/swagger-ui-bundle.js');
    expect(html).toContain("url: '/openapi.yaml'");
    expect(html).not.toMatch(/https?:\/\//);
    const js = await fetch(`${pila.url}/docs/recursos/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
  });
});
