import { nuevaCuenta } from '../support/cuentas';
import { iniciarPila, type Pila } from '../support/pila';

// HTTP hygiene (issue 13): every answer says how it may be used, and nothing authenticated is cached.
describe('encabezados de seguridad y orden autenticación → cuerpo', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
  });
  afterAll(() => pila.detener());

  const basic = (llave: string) => `Basic ${Buffer.from(`${llave}:`).toString('base64')}`;
  const comunes = (r: Response) => ({
    nosniff: r.headers.get('x-content-type-options'),
    marco: r.headers.get('x-frame-options'),
    referente: r.headers.get('referrer-policy'),
  });
  const ESPERADOS = { nosniff: 'nosniff', marco: 'DENY', referente: 'no-referrer' };

  it('las respuestas autenticadas (incluida la que trae un secreto) llevan no-store y la CSP de la API', async () => {
    const c = await nuevaCuenta(pila.db, pila.url);
    const llave = await fetch(`${pila.url}/v1/llaves_api`, {
      method: 'POST',
      headers: { authorization: basic(c.secreto), 'content-type': 'application/json' },
      body: JSON.stringify({ nombre: 'otra', modo: 'test' }),
    });
    expect(llave.status).toBe(201);
    expect((await llave.json()).secreto).toMatch(/^sk_test_/);
    for (const r of [
      llave,
      await fetch(`${pila.url}/v1/facturas`, { headers: { authorization: basic(c.secreto) } }),
      await fetch(`${pila.url}/v1/facturas/fac_no_existe`, { headers: { authorization: basic(c.secreto) } }),
      await fetch(`${pila.url}/v1/facturas`),
    ]) {
      expect({ status: r.status, ...comunes(r) }).toEqual({ status: r.status, ...ESPERADOS });
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  it('los catálogos públicos se pueden guardar en caché, con los mismos encabezados de seguridad', async () => {
    const r = await fetch(`${pila.url}/v1/catalogos/formas_pago`);
    expect(r.status).toBe(200);
    expect(comunes(r)).toEqual(ESPERADOS);
    expect(r.headers.get('cache-control')).toBe('public, max-age=3600');
  });

  it('/docs solo carga recursos propios: sin script en línea', async () => {
    const pagina = await fetch(`${pila.url}/docs`);
    const html = await pagina.text();
    expect(comunes(pagina)).toEqual(ESPERADOS);
    const csp = pagina.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain("script-src 'unsafe-inline'");
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
    const inicio = await fetch(`${pila.url}/docs/inicio.js`);
    expect(inicio.status).toBe(200);
    expect(await inicio.text()).toContain('SwaggerUIBundle');
  });

  it('HEAD en una ruta GET autenticada responde como GET, sin cuerpo; sin llave, 401', async () => {
    const c = await nuevaCuenta(pila.db, pila.url);
    const r = await fetch(`${pila.url}/v1/facturas`, {
      method: 'HEAD',
      headers: { authorization: basic(c.secreto) },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(await r.text()).toBe('');
    const ajena = await fetch(`${pila.url}/v1/facturas/fac_01kbq3x7m2d5c8n9p4r6t0v2w4`, {
      method: 'HEAD',
      headers: { authorization: basic(c.secreto) },
    });
    expect(ajena.status).toBe(404);
    expect((await fetch(`${pila.url}/v1/facturas`, { method: 'HEAD' })).status).toBe(401);
    // A route without GET still says which methods it has.
    const soloPost = await fetch(`${pila.url}/v1/facturas/fac_01kbq3x7m2d5c8n9p4r6t0v2w4/timbrar`, {
      method: 'HEAD',
      headers: { authorization: basic(c.secreto) },
    });
    expect(soloPost.status).toBe(405);
  });

  it('sin credenciales, un JSON roto o un cuerpo de 3 MB responden 401, no 400 ni 413', async () => {
    const roto = await fetch(`${pila.url}/v1/facturas`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"organizacion":',
    });
    expect(roto.status).toBe(401);
    const grande = await fetch(`${pila.url}/v1/facturas`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ relleno: 'x'.repeat(3 * 1024 * 1024) }),
    });
    expect(grande.status).toBe(401);
    // With a key the body is read, and judged.
    const c = await nuevaCuenta(pila.db, pila.url);
    const conLlave = await fetch(`${pila.url}/v1/facturas`, {
      method: 'POST',
      headers: { authorization: basic(c.secreto), 'content-type': 'application/json' },
      body: '{"organizacion":',
    });
    expect(conLlave.status).toBe(400);
    expect((await conLlave.json()).error.codigo).toBe('json_invalido');
  });
});
