import { clienteHttp } from '../support/cliente-http';
import { llaveLiveDirecta, nuevaCuenta, type CuentaDePrueba } from '../support/cuentas';
import { iniciarPila, type Pila } from '../support/pila';

describe('autenticación con llaves API', () => {
  let pila: Pila;
  let cuenta: CuentaDePrueba;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
    cuenta = await nuevaCuenta(pila.db, pila.url);
  });
  afterAll(() => pila.detener());

  it('sin credenciales responde 401 autenticacion_requerida con WWW-Authenticate', async () => {
    const r = await clienteHttp(pila.url).get('/v1/cuenta');
    expect(r.status).toBe(401);
    expect(r.body.error.codigo).toBe('autenticacion_requerida');
    expect(r.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('una llave desconocida o mal formada responde 401 llave_invalida', async () => {
    for (const llave of ['sk_test_' + 'x'.repeat(40), 'no-es-llave', 'sk_test_corta']) {
      const r = await clienteHttp(pila.url, llave).get('/v1/cuenta');
      expect(r.status).toBe(401);
      expect(r.body.error.codigo).toBe('llave_invalida');
    }
  });

  it('la llave válida da acceso y la respuesta lleva los encabezados de límite', async () => {
    const r = await cuenta.http.get('/v1/cuenta');
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(cuenta.cuentaId);
    expect(Number(r.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
    expect(r.headers.get('ratelimit-remaining')).not.toBeNull();
  });

  it('una llave revocada deja de funcionar en la solicitud siguiente', async () => {
    const creada = await cuenta.http.post('/v1/llaves_api', { nombre: 'temporal', modo: 'test' });
    expect(creada.status).toBe(201);
    const otra = clienteHttp(pila.url, creada.body.secreto);
    expect((await otra.get('/v1/cuenta')).status).toBe(200);
    const revocada = await cuenta.http.delete(`/v1/llaves_api/${creada.body.id}`);
    expect(revocada.status).toBe(200);
    expect(revocada.body.revocada_en).not.toBeNull();
    const despues = await otra.get('/v1/cuenta');
    expect(despues.status).toBe(401);
    expect(despues.body.error.codigo).toBe('llave_invalida');
  });

  it('una llave puede revocarse a sí misma y la siguiente solicitud ya falla', async () => {
    const creada = await cuenta.http.post('/v1/llaves_api', { nombre: 'suicida', modo: 'test' });
    const propia = clienteHttp(pila.url, creada.body.secreto);
    expect((await propia.delete(`/v1/llaves_api/${creada.body.id}`)).status).toBe(200);
    expect((await propia.get('/v1/cuenta')).status).toBe(401);
  });

  it('los catálogos no piden llave', async () => {
    const r = await clienteHttp(pila.url).get('/v1/catalogos/formas_pago');
    expect(r.status).toBe(200);
  });

  it('una llave live sin onboarding ni CSD responde 403 modo_live_bloqueado', async () => {
    const live = await llaveLiveDirecta(pila.db, cuenta.cuentaId);
    const r = await clienteHttp(pila.url, live).get('/v1/organizaciones');
    expect(r.status).toBe(403);
    expect(r.body.error.codigo).toBe('modo_live_bloqueado');
  });

  it('nunca guarda el secreto: solo su hash', async () => {
    const filas = await pila.db('llaves_api').where({ cuenta_id: cuenta.cuentaId });
    for (const f of filas) {
      expect(JSON.stringify(f)).not.toContain(cuenta.secreto.slice(8));
      expect(Buffer.isBuffer(f.hash) && f.hash.length).toBe(32);
    }
  });
});

describe('límite de solicitudes por llave', () => {
  it('responde 429 con Retry-After al agotar la ráfaga y vuelve a atender después', async () => {
    const pila = await iniciarPila({ worker: false, pac: false, limite: { porSegundo: 2, rafaga: 3 } });
    try {
      const cuenta = await nuevaCuenta(pila.db, pila.url);
      const estados: number[] = [];
      for (let i = 0; i < 5; i++) estados.push((await cuenta.http.get('/v1/cuenta')).status);
      expect(estados.slice(0, 3)).toEqual([200, 200, 200]);
      const r = await cuenta.http.get('/v1/cuenta');
      expect(r.status).toBe(429);
      expect(r.body.error).toMatchObject({
        tipo: 'limite_de_solicitudes',
        codigo: 'limite_de_solicitudes_excedido',
      });
      const espera = Number(r.headers.get('retry-after'));
      expect(espera).toBeGreaterThanOrEqual(1);
      // Another key of another account is not affected.
      const otra = await nuevaCuenta(pila.db, pila.url);
      expect((await otra.http.get('/v1/cuenta')).status).toBe(200);
      await new Promise((res) => setTimeout(res, espera * 1000));
      expect((await cuenta.http.get('/v1/cuenta')).status).toBe(200);
    } finally {
      await pila.detener();
    }
  });
});

describe('límite de autenticaciones fallidas por dirección', () => {
  it('pasado el máximo, la dirección recibe 429 con Retry-After antes de mirar la llave, aun la válida', async () => {
    const pila = await iniciarPila({
      worker: false,
      pac: false,
      fallosAutenticacion: { maximo: 3, ventanaMs: 60_000 },
    });
    try {
      const cuenta = await nuevaCuenta(pila.db, pila.url);
      const estados = [
        (await clienteHttp(pila.url).get('/v1/cuenta')).status,
        (await clienteHttp(pila.url, 'no-es-llave').get('/v1/cuenta')).status,
        (await clienteHttp(pila.url, 'sk_test_' + 'x'.repeat(40)).get('/v1/cuenta')).status,
      ];
      expect(estados).toEqual([401, 401, 401]);
      const r = await cuenta.http.get('/v1/cuenta');
      expect(r.status).toBe(429);
      expect(r.body.error).toMatchObject({
        tipo: 'limite_de_solicitudes',
        codigo: 'demasiados_intentos_fallidos',
      });
      const espera = Number(r.headers.get('retry-after'));
      expect(espera).toBeGreaterThanOrEqual(1);
      expect(espera).toBeLessThanOrEqual(60);
      // The public catalogs need no key and stay open.
      expect((await clienteHttp(pila.url).get('/v1/catalogos/formas_pago')).status).toBe(200);
    } finally {
      await pila.detener();
    }
  });
});

describe('detrás de un balanceador (PROXIES_CONFIABLES)', () => {
  it('cuenta los fallos de la dirección que reporta el balanceador listado, no la suya', async () => {
    const pila = await iniciarPila({
      worker: false,
      pac: false,
      fallosAutenticacion: { maximo: 2, ventanaMs: 60_000 },
      proxiesConfiables: ['loopback'],
    });
    try {
      const cuenta = await nuevaCuenta(pila.db, pila.url);
      const desde = (ip: string) => ({ 'X-Forwarded-For': ip });
      const cliente = clienteHttp(pila.url, 'sk_test_' + 'x'.repeat(40));
      for (let i = 0; i < 2; i++)
        expect((await cliente.get('/v1/cuenta', desde('203.0.113.50'))).status).toBe(401);
      expect((await cuenta.http.get('/v1/cuenta', desde('203.0.113.50'))).body.error?.codigo).toBe(
        'demasiados_intentos_fallidos',
      );
      // Another client behind the same balancer, and the balancer's own address, are not blocked.
      expect((await cuenta.http.get('/v1/cuenta', desde('203.0.113.51'))).status).toBe(200);
      expect((await cuenta.http.get('/v1/cuenta')).status).toBe(200);
    } finally {
      await pila.detener();
    }
  });
});
