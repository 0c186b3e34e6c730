import { clienteHttp } from '../support/cliente-http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { habilitarLive, llaveLiveDirecta, nuevaCuenta, type CuentaDePrueba } from '../support/cuentas';
import { iniciarPila, type Pila } from '../support/pila';

describe('cuenta y llaves API', () => {
  let pila: Pila;
  let cuenta: CuentaDePrueba;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
    cuenta = await nuevaCuenta(pila.db, pila.url, 'Mi empresa');
  });
  afterAll(() => pila.detener());

  it('una cuenta nueva tiene el onboarding pendiente y el modo live deshabilitado', async () => {
    const r = await cuenta.http.get('/v1/cuenta');
    expect(r.body).toMatchObject({
      objeto: 'cuenta',
      nombre: 'Mi empresa',
      onboarding: { completo: false, faltantes: ['razon_social', 'rfc', 'correo', 'acepta_terminos'] },
      live_habilitado: false,
    });
  });

  it('POST /v1/cuenta completa el onboarding, PATCH cambia campos sueltos', async () => {
    const r = await cuenta.http.post('/v1/cuenta', {
      razon_social: 'MI EMPRESA SA DE CV',
      rfc: 'EKU9003173C9',
      correo: 'facturacion@example.com',
      acepta_terminos: true,
    });
    expect(r.status).toBe(200);
    expect(r.body.onboarding).toEqual({ completo: true, faltantes: [] });
    // Onboarding alone does not unlock live mode: a valid CSD is required too.
    expect(r.body.live_habilitado).toBe(false);
    const p = await cuenta.http.patch('/v1/cuenta', { telefono: '5555555555' });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ telefono: '5555555555', razon_social: 'MI EMPRESA SA DE CV' });
  });

  it('POST /v1/cuenta sin los campos obligatorios responde 400 nombrando el campo', async () => {
    const r = await cuenta.http.post('/v1/cuenta', { razon_social: 'X' });
    expect(r.status).toBe(400);
    expect(r.body.error.codigo).toBe('parametro_invalido');
    expect(r.body.error.parametro).toBeDefined();
  });

  it('crea una llave test: el secreto aparece solo en la respuesta de creación', async () => {
    const r = await cuenta.http.post('/v1/llaves_api', { nombre: 'Servidor de producción', modo: 'test' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ objeto: 'llave_api', nombre: 'Servidor de producción', modo: 'test' });
    expect(r.body.secreto).toMatch(/^sk_test_[A-Za-z0-9]{40}$/);
    expect(r.body.prefijo).toBe(r.body.secreto.slice(0, 12));
    const lista = await cuenta.http.get('/v1/llaves_api');
    expect(lista.status).toBe(200);
    expect(lista.body.datos.map((l: { id: string }) => l.id)).toContain(r.body.id);
    expect(JSON.stringify(lista.body)).not.toContain(r.body.secreto);
    for (const l of lista.body.datos) expect(l.secreto).toBeUndefined();
  });

  it('una llave test no crea llaves live: 403 modo_no_permitido, aunque live esté habilitado', async () => {
    const otra = await nuevaCuenta(pila.db, pila.url);
    for (const habilitar of [false, true]) {
      if (habilitar) await habilitarLive(pila.db, otra.cuentaId);
      const r = await otra.http.post('/v1/llaves_api', { nombre: 'live', modo: 'live' });
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ tipo: 'permiso', codigo: 'modo_no_permitido', parametro: 'modo' });
      expect(r.body.error.mensaje).toContain('operador');
    }
    expect(await pila.db('llaves_api').where({ cuenta_id: otra.cuentaId, modo: 'live' })).toEqual([]);
  });

  it('un modo desconocido responde 400', async () => {
    const r = await cuenta.http.post('/v1/llaves_api', { nombre: 'x', modo: 'prod' });
    expect(r.status).toBe(400);
    expect(r.body.error.parametro).toBe('modo');
    expect(r.body.error.mensaje).toBe('El campo modo debe ser uno de estos valores: test, live.');
  });

  it('no se puede revocar la llave de otra cuenta (404)', async () => {
    const otra = await nuevaCuenta(pila.db, pila.url);
    const creada = await otra.http.post('/v1/llaves_api', { nombre: 'ajena', modo: 'test' });
    const r = await cuenta.http.delete(`/v1/llaves_api/${creada.body.id}`);
    expect(r.status).toBe(404);
    expect((await clienteHttp(pila.url, creada.body.secreto).get('/v1/cuenta')).status).toBe(200);
  });

  it('una llave live ve y administra las llaves de ambos modos; una test no ve las live (404)', async () => {
    const otra = await nuevaCuenta(pila.db, pila.url);
    await habilitarLive(pila.db, otra.cuentaId);
    const live = clienteHttp(pila.url, await llaveLiveDirecta(pila.db, otra.cuentaId));
    const creada = await live.post('/v1/llaves_api', { nombre: 'producción', modo: 'live' });
    expect(creada.status).toBe(201);
    expect(creada.body.secreto).toMatch(/^sk_live_/);
    const deTest = await live.post('/v1/llaves_api', { nombre: 'pruebas', modo: 'test' });
    expect(deTest.status).toBe(201);

    const vistas = async (c: typeof live) =>
      ((await c.get('/v1/llaves_api')).body.datos as { modo: string }[]).map((l) => l.modo);
    expect(new Set(await vistas(live))).toEqual(new Set(['test', 'live']));
    expect(new Set(await vistas(otra.http))).toEqual(new Set(['test']));

    const r = await otra.http.delete(`/v1/llaves_api/${creada.body.id}`);
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ codigo: 'llave_no_encontrada', parametro: 'id' });
    const nueva = clienteHttp(pila.url, creada.body.secreto);
    expect((await nueva.get('/v1/organizaciones')).status).toBe(200);
    // The unlocking organization lives in test mode: the live key does not see it.
    expect((await nueva.get('/v1/organizaciones')).body.datos).toEqual([]);

    expect((await live.delete(`/v1/llaves_api/${deTest.body.id}`)).status).toBe(200);
    expect((await live.delete(`/v1/llaves_api/${creada.body.id}`)).status).toBe(200);
    expect((await nueva.get('/v1/cuenta')).status).toBe(401);
  });
});

describe('npm run llave:crear', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
  });
  afterAll(() => pila.detener());

  const llaveCrear = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['dist/scripts/llave-crear.js', ...args], { env: process.env });

  it('se niega a emitir una llave live mientras el modo live no esté habilitado', async () => {
    const c = await nuevaCuenta(pila.db, pila.url);
    const r = await llaveCrear('--cuenta', c.cuentaId, '--modo', 'live', '--nombre', 'prod').catch((e) => e);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('modo_live_bloqueado');
    expect(await pila.db('llaves_api').where({ cuenta_id: c.cuentaId, modo: 'live' })).toEqual([]);
  });

  it('con el modo live habilitado emite la primera llave live, que funciona y crea otras', async () => {
    const c = await nuevaCuenta(pila.db, pila.url);
    await habilitarLive(pila.db, c.cuentaId);
    const { stdout } = await llaveCrear('--cuenta', c.cuentaId, '--modo', 'live', '--nombre', 'Producción');
    const llave = JSON.parse(stdout);
    expect(llave).toMatchObject({ objeto: 'llave_api', modo: 'live', nombre: 'Producción' });
    expect(llave.secreto).toMatch(/^sk_live_/);
    const live = clienteHttp(pila.url, llave.secreto);
    expect((await live.get('/v1/cuenta')).body.id).toBe(c.cuentaId);
    expect((await live.post('/v1/llaves_api', { nombre: 'otra', modo: 'live' })).status).toBe(201);
  });

  it('una cuenta inexistente o argumentos incompletos terminan con error y sin escribir', async () => {
    const inexistente = await llaveCrear('--cuenta', 'cta_noexiste', '--modo', 'test', '--nombre', 'x').catch(
      (e) => e,
    );
    expect(inexistente.code).toBe(1);
    expect(inexistente.stderr).toContain('no existe');
    const sinModo = await llaveCrear('--cuenta', 'cta_x', '--nombre', 'x').catch((e) => e);
    expect(sinModo.code).toBe(2);
    expect(sinModo.stderr).toContain('--modo');
  });
});

describe('npm run cuenta:crear', () => {
  it('crea una cuenta e imprime su primera llave test, que funciona', async () => {
    const pila = await iniciarPila({ worker: false, pac: false });
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['dist/scripts/cuenta-crear.js', '--nombre', 'Mi empresa'],
        { env: process.env },
      );
      const creada = JSON.parse(stdout);
      expect(creada.cuenta).toMatchObject({ id: expect.stringMatching(/^cta_/), nombre: 'Mi empresa' });
      expect(creada.llave).toMatchObject({ modo: 'test', secreto: expect.stringMatching(/^sk_test_/) });
      const r = await clienteHttp(pila.url, creada.llave.secreto).get('/v1/cuenta');
      expect(r.body).toMatchObject({ id: creada.cuenta.id, nombre: 'Mi empresa' });
    } finally {
      await pila.detener();
    }
  });

  it('sin --nombre explica el uso y termina con código 2', async () => {
    const r = await promisify(execFile)(process.execPath, ['dist/scripts/cuenta-crear.js']).catch((e) => e);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--nombre');
  });
});
