import { clienteHttp } from '../support/cliente-http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { habilitarLive, nuevaCuenta, type CuentaDePrueba } from '../support/cuentas';
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

  it('una llave live se niega con 403 mientras no haya CSD válido', async () => {
    const r = await cuenta.http.post('/v1/llaves_api', { nombre: 'live', modo: 'live' });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ codigo: 'modo_live_bloqueado', parametro: 'modo' });
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

  it('con el onboarding completo y un CSD válido se crean llaves live que ven solo el modo live', async () => {
    const otra = await nuevaCuenta(pila.db, pila.url);
    await habilitarLive(pila.db, otra.cuentaId);
    expect((await otra.http.get('/v1/cuenta')).body.live_habilitado).toBe(true);
    const r = await otra.http.post('/v1/llaves_api', { nombre: 'producción', modo: 'live' });
    expect(r.status).toBe(201);
    expect(r.body.secreto).toMatch(/^sk_live_/);
    const live = clienteHttp(pila.url, r.body.secreto);
    const orgs = await live.get('/v1/organizaciones');
    expect(orgs.status).toBe(200);
    // The unlocking organization lives in test mode: the live key does not see it.
    expect(orgs.body.datos).toEqual([]);
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
