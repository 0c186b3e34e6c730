import { Writable } from 'node:stream';
import { crearLogger } from '../../log/logger';
import { clienteHttp } from '../support/cliente-http';
import { archivoSat, CONTRASENA_PRUEBA, CSD_VALIDO, generarCsd } from '../support/certificados';
import {
  habilitarLive,
  llaveLiveDirecta,
  nuevaCuenta,
  ORGANIZACION,
  type CuentaDePrueba,
} from '../support/cuentas';
import { iniciarPila, type Pila } from '../support/pila';

const b64 = (b: Buffer) => b.toString('base64');
const valido = () => ({ cer: archivoSat(CSD_VALIDO.cer), llave: archivoSat(CSD_VALIDO.key) });

describe('certificados (CSD)', () => {
  let pila: Pila;
  let c: CuentaDePrueba;
  let org: string;
  const registro: string[] = [];
  beforeAll(async () => {
    // Every log line of this suite is kept, to prove no key or password reaches one.
    const destino = new Writable({
      write(chunk, _e, cb) {
        registro.push(String(chunk));
        cb();
      },
    });
    pila = await iniciarPila({ worker: false, pac: false, logger: crearLogger('prueba', 'debug', destino) });
    c = await nuevaCuenta(pila.db, pila.url);
    org = (await c.http.post('/v1/organizaciones', ORGANIZACION)).body.id;
  });
  afterAll(() => pila.detener());

  const subirJson = (http = c.http, cuerpo: Record<string, unknown> = {}) => {
    const { cer, llave } = valido();
    return http.post('/v1/certificados', {
      organizacion: ORGANIZACION.rfc,
      cer: b64(cer),
      llave: b64(llave),
      contrasena: CONTRASENA_PRUEBA,
      ...cuerpo,
    });
  };

  it('sube por JSON (base64): responde solo metadatos y lo deja activo en la organización', async () => {
    const r = await subirJson();
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      objeto: 'certificado',
      modo: 'test',
      organizacion: org,
      rfc: 'EKU9003173C9',
      no_certificado: '30001000000500003416',
      activo: true,
      de_prueba: true,
    });
    expect(new Date(r.body.valido_hasta).getUTCFullYear()).toBe(2027);
    const o = await c.http.get(`/v1/organizaciones/${org}`);
    expect(o.body.certificado_activo).toMatchObject({
      id: r.body.id,
      no_certificado: '30001000000500003416',
    });
  });

  it('el mismo certificado otra vez responde 409 certificado_duplicado', async () => {
    const r = await subirJson();
    expect(r.status).toBe(409);
    expect(r.body.error.codigo).toBe('certificado_duplicado');
  });

  it('sube por multipart/form-data y el nuevo desactiva al anterior', async () => {
    const otra = await nuevaCuenta(pila.db, pila.url);
    await otra.http.post('/v1/organizaciones', ORGANIZACION);
    const primero = await subirJson(otra.http);
    const generado = generarCsd({ rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE SA DE CV' });
    const form = new FormData();
    form.set('organizacion', ORGANIZACION.rfc);
    form.set('contrasena', generado.contrasena);
    form.set('cer', new Blob([new Uint8Array(generado.cer)]), 'csd.cer');
    form.set('llave', new Blob([new Uint8Array(generado.llave)]), 'csd.key');
    const r = await fetch(`${pila.url}/v1/certificados`, {
      method: 'POST',
      headers: { authorization: `Basic ${b64(Buffer.from(`${otra.secreto}:`))}` },
      body: form,
    });
    const cuerpo = await r.json();
    expect(r.status).toBe(201);
    expect(cuerpo).toMatchObject({ no_certificado: generado.noCertificado, activo: true });
    expect((await otra.http.get(`/v1/certificados/${primero.body.id}`)).body.activo).toBe(false);
    // PATCH switches back: still one active certificate per organization.
    const p = await otra.http.patch(`/v1/certificados/${primero.body.id}`, { activo: true });
    expect(p.body.activo).toBe(true);
    expect((await otra.http.get(`/v1/certificados/${cuerpo.id}`)).body.activo).toBe(false);
    const lista = await otra.http.get('/v1/certificados');
    expect(lista.body.datos.filter((x: { activo: boolean }) => x.activo)).toHaveLength(1);
  });

  it.each([
    ['contraseña incorrecta', { contrasena: 'otra-cosa' }, 'contrasena_incorrecta'],
    [
      'llave de otro CSD',
      { llave: b64(archivoSat('expired-2023-sat-test-set/persona-moral/EKU9003173C9_CSD.key')) },
      'llave_no_corresponde',
    ],
    [
      'una FIEL',
      {
        cer: b64(archivoSat('expired-2023-sat-test-set/persona-moral/EKU9003173C9_FIEL.cer')),
        llave: b64(archivoSat('expired-2023-sat-test-set/persona-moral/EKU9003173C9_FIEL.key')),
      },
      'certificado_no_es_csd',
    ],
    [
      'RFC de otra organización',
      {
        cer: b64(archivoSat('expired-2023-sat-test-set/persona-moral/EWE1709045U0_CSD.cer')),
        llave: b64(archivoSat('expired-2023-sat-test-set/persona-moral/EWE1709045U0_CSD.key')),
      },
      'rfc_no_coincide',
    ],
    [
      'archivo que no es certificado',
      { cer: b64(Buffer.from('no soy un certificado')) },
      'certificado_ilegible',
    ],
  ])('rechaza %s con 422 y un código claro', async (_n, cambio, codigo) => {
    const r = await subirJson(c.http, cambio);
    expect(r.status).toBe(422);
    expect(r.body.error.codigo).toBe(codigo);
  });

  it('rechaza un certificado vencido y uno aún no vigente', async () => {
    const vencido = generarCsd({
      rfc: 'EKU9003173C9',
      validoDesde: new Date('2020-01-01'),
      validoHasta: new Date('2024-01-01'),
    });
    const futuro = generarCsd({
      rfc: 'EKU9003173C9',
      validoDesde: new Date('2030-01-01'),
      validoHasta: new Date('2034-01-01'),
    });
    for (const [g, codigo] of [
      [vencido, 'certificado_vencido'],
      [futuro, 'certificado_aun_no_vigente'],
    ] as const) {
      const r = await subirJson(c.http, { cer: b64(g.cer), llave: b64(g.llave), contrasena: g.contrasena });
      expect(r.status).toBe(422);
      expect(r.body.error.codigo).toBe(codigo);
    }
  });

  it('en modo live rechaza un CSD de la autoridad de pruebas del SAT y acepta uno de producción', async () => {
    const cuenta = await nuevaCuenta(pila.db, pila.url);
    await habilitarLive(pila.db, cuenta.cuentaId);
    const live = clienteHttp(pila.url, await llaveLiveDirecta(pila.db, cuenta.cuentaId));
    await live.post('/v1/organizaciones', ORGANIZACION);
    const prueba = await subirJson(live);
    expect(prueba.status).toBe(422);
    expect(prueba.body.error.codigo).toBe('certificado_de_prueba');
    const produccion = generarCsd({ rfc: 'EKU9003173C9', emisor: 'produccion' });
    const r = await subirJson(live, {
      cer: b64(produccion.cer),
      llave: b64(produccion.llave),
      contrasena: produccion.contrasena,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ modo: 'live', de_prueba: false, activo: true });
  });

  it('guarda la llave y la contraseña cifradas: ni en claro en la base ni en respuestas ni en logs', async () => {
    const { llave } = valido();
    const filas = await pila.db('certificados').where({ cuenta_id: c.cuentaId });
    expect(filas.length).toBeGreaterThan(0);
    for (const f of filas) {
      expect(f.llave_cifrada.includes(llave.subarray(0, 64))).toBe(false);
      expect(f.contrasena_cifrada.includes(Buffer.from(CONTRASENA_PRUEBA))).toBe(false);
      expect(f.dek_cifrada.length).toBeGreaterThan(32);
    }
    const lista = await c.http.get('/v1/certificados');
    const texto = JSON.stringify(lista.body);
    expect(texto).not.toContain(CONTRASENA_PRUEBA);
    expect(texto).not.toContain(b64(llave).slice(0, 40));
    const logs = registro.join('');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(CONTRASENA_PRUEBA);
    expect(logs).not.toContain('otra-cosa');
    expect(logs).not.toContain(b64(llave).slice(0, 40));
  });

  it('no se puede activar un certificado vencido (422) ni ver el de otra cuenta (404)', async () => {
    const lista = await c.http.get('/v1/certificados');
    const id = lista.body.datos[0].id;
    await pila
      .db('certificados')
      .where({ id })
      .update({ valido_hasta: new Date('2020-01-01') });
    const r = await c.http.patch(`/v1/certificados/${id}`, { activo: true });
    expect(r.status).toBe(422);
    expect(r.body.error.codigo).toBe('certificado_vencido');
    const otra = await nuevaCuenta(pila.db, pila.url);
    expect((await otra.http.get(`/v1/certificados/${id}`)).status).toBe(404);
    expect((await otra.http.patch(`/v1/certificados/${id}`, { activo: false })).status).toBe(404);
  });
});
