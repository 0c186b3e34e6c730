import { huellaDe } from '../../api/middleware/idempotencia';
import { nuevaCuenta, ORGANIZACION, type CuentaDePrueba } from '../support/cuentas';
import { iniciarPila, type Pila } from '../support/pila';

const con = (clave: string) => ({ 'Clave-Idempotencia': clave });
const nueva = () => `idem-${Math.random().toString(36).slice(2)}`;

describe('Clave-Idempotencia', () => {
  let pila: Pila;
  let cuenta: CuentaDePrueba;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
    cuenta = await nuevaCuenta(pila.db, pila.url);
  });
  afterAll(() => pila.detener());

  const contarOrgs = async (cuentaId: string) =>
    Number((await pila.db('organizaciones').where({ cuenta_id: cuentaId }).count({ n: '*' }))[0]!.n);

  it('la misma clave con el mismo cuerpo repite la respuesta sin crear otro recurso', async () => {
    const clave = nueva();
    const a = await cuenta.http.post('/v1/organizaciones', ORGANIZACION, con(clave));
    const b = await cuenta.http.post('/v1/organizaciones', ORGANIZACION, con(clave));
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect(a.headers.get('idempotencia-repetida')).toBeNull();
    expect(b.headers.get('idempotencia-repetida')).toBe('true');
    expect(await contarOrgs(cuenta.cuentaId)).toBe(1);
  });

  it('el orden de las propiedades del cuerpo no cambia la solicitud', async () => {
    const clave = nueva();
    const a = await cuenta.http.post('/v1/llaves_api', { nombre: 'orden', modo: 'test' }, con(clave));
    const b = await cuenta.http.post('/v1/llaves_api', { modo: 'test', nombre: 'orden' }, con(clave));
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotencia-repetida')).toBe('true');
    expect(b.body.id).toBe(a.body.id);
  });

  it('guarda la respuesta cifrada: el secreto de una llave nueva se repite pero nunca queda en claro', async () => {
    const clave = nueva();
    const a = await cuenta.http.post('/v1/llaves_api', { nombre: 'secreta', modo: 'test' }, con(clave));
    expect(a.status).toBe(201);
    const secreto = a.body.secreto as string;
    expect(secreto).toMatch(/^sk_test_/);
    // Every byte stored for that key, as the database holds it.
    const filas = (await pila.db('idempotencia').where({ cuenta_id: cuenta.cuentaId, clave })) as Record<
      string,
      unknown
    >[];
    expect(filas).toHaveLength(1);
    const guardado = Object.values(filas[0]!)
      .map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') : String(v)))
      .join('\n');
    expect(guardado).not.toContain(secreto);
    expect(guardado).not.toContain(secreto.slice(8));
    expect(guardado).not.toContain('secreta');
    // The client that lost the answer still gets it whole.
    const b = await cuenta.http.post('/v1/llaves_api', { nombre: 'secreta', modo: 'test' }, con(clave));
    expect(b.headers.get('idempotencia-repetida')).toBe('true');
    expect(b.body).toEqual(a.body);
  });

  it('la misma clave con otro cuerpo responde 422 clave_idempotencia_reutilizada', async () => {
    const clave = nueva();
    await cuenta.http.post('/v1/llaves_api', { nombre: 'a', modo: 'test' }, con(clave));
    const r = await cuenta.http.post('/v1/llaves_api', { nombre: 'b', modo: 'test' }, con(clave));
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({
      codigo: 'clave_idempotencia_reutilizada',
      parametro: 'Clave-Idempotencia',
    });
  });

  it('la misma clave en otra ruta también es otra solicitud (422)', async () => {
    const clave = nueva();
    await cuenta.http.post('/v1/llaves_api', { nombre: 'a', modo: 'test' }, con(clave));
    const r = await cuenta.http.post('/v1/cuenta', { nombre: 'a', modo: 'test' }, con(clave));
    expect([400, 422]).toContain(r.status);
  });

  it('repite también los errores de negocio, no los de validación', async () => {
    const clave = nueva();
    const invalida = await cuenta.http.post('/v1/llaves_api', { nombre: 'x' }, con(clave));
    expect(invalida.status).toBe(400);
    // A request rejected by validation stored nothing: the same key now runs.
    const valida = await cuenta.http.post('/v1/llaves_api', { nombre: 'x', modo: 'live' }, con(clave));
    expect(valida.status).toBe(403);
    const repetida = await cuenta.http.post('/v1/llaves_api', { nombre: 'x', modo: 'live' }, con(clave));
    expect(repetida.status).toBe(403);
    expect(repetida.headers.get('idempotencia-repetida')).toBe('true');
  });

  it('con 20 solicitudes simultáneas con la misma clave se crea un solo recurso', async () => {
    const otra = await nuevaCuenta(pila.db, pila.url);
    const clave = nueva();
    const rs = await Promise.all(
      Array.from({ length: 20 }, () => otra.http.post('/v1/organizaciones', ORGANIZACION, con(clave))),
    );
    const estados = rs.map((r) => r.status);
    for (const s of estados) expect([201, 409]).toContain(s);
    expect(estados.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    for (const r of rs.filter((x) => x.status === 409))
      expect(r.body.error.codigo).toBe('solicitud_en_curso');
    const ids = new Set(rs.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(await contarOrgs(otra.cuentaId)).toBe(1);
  });

  it('las claves son por cuenta: otra cuenta puede usar la misma clave', async () => {
    const clave = nueva();
    const otra = await nuevaCuenta(pila.db, pila.url);
    const a = await cuenta.http.post('/v1/llaves_api', { nombre: 'a', modo: 'test' }, con(clave));
    const b = await otra.http.post('/v1/llaves_api', { nombre: 'b', modo: 'test' }, con(clave));
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotencia-repetida')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('una clave vencida (más de 24 h) vuelve a ejecutar la solicitud', async () => {
    const clave = nueva();
    const a = await cuenta.http.post('/v1/llaves_api', { nombre: 'v', modo: 'test' }, con(clave));
    await pila
      .db('idempotencia')
      .where({ cuenta_id: cuenta.cuentaId, clave })
      .update({ creado_en: new Date(Date.now() - 25 * 3600 * 1000) });
    const b = await cuenta.http.post('/v1/llaves_api', { nombre: 'v', modo: 'test' }, con(clave));
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotencia-repetida')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('una solicitud abandonada (proceso caído) libera su clave tras el plazo de abandono', async () => {
    const clave = nueva();
    const viejo = new Date(Date.now() - 5 * 60 * 1000);
    await pila.db('idempotencia').insert({
      cuenta_id: cuenta.cuentaId,
      modo: 'test',
      clave,
      huella: Buffer.alloc(32),
      estado: 'en_curso',
      creado_en: viejo,
      actualizado_en: viejo,
    });
    const r = await cuenta.http.post('/v1/llaves_api', { nombre: 'tras caída', modo: 'test' }, con(clave));
    expect(r.status).toBe(201);
  });

  it('una solicitud aún en curso responde 409 solicitud_en_curso', async () => {
    const clave = nueva();
    await pila.db('idempotencia').insert({
      cuenta_id: cuenta.cuentaId,
      modo: 'test',
      clave,
      huella: huellaDe('POST', '/v1/llaves_api', { nombre: 'x', modo: 'test' }),
      estado: 'en_curso',
    });
    const r = await cuenta.http.post('/v1/llaves_api', { nombre: 'x', modo: 'test' }, con(clave));
    expect(r.status).toBe(409);
    expect(r.body.error.codigo).toBe('solicitud_en_curso');
  });
});
