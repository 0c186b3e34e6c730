import { CLIENTE, nuevaCuenta, ORGANIZACION, PRODUCTO, type CuentaDePrueba } from '../support/cuentas';
import { iniciarPila, type Pila } from '../support/pila';

describe('organizaciones', () => {
  let pila: Pila;
  let c: CuentaDePrueba;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
    c = await nuevaCuenta(pila.db, pila.url);
  });
  afterAll(() => pila.detener());

  it('crea, lee por id y por RFC, lista y actualiza', async () => {
    const r = await c.http.post('/v1/organizaciones', { ...ORGANIZACION, color_acento: '#aa3300' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      objeto: 'organizacion',
      modo: 'test',
      rfc: 'EKU9003173C9',
      persona: 'moral',
      color_acento: '#AA3300',
      certificado_activo: null,
    });
    expect(r.body.id).toMatch(/^org_/);
    expect((await c.http.get(`/v1/organizaciones/${r.body.id}`)).body).toEqual(r.body);
    expect((await c.http.get(`/v1/organizaciones/${ORGANIZACION.rfc}`)).body.id).toBe(r.body.id);
    const lista = await c.http.get('/v1/organizaciones');
    expect(lista.body).toMatchObject({
      objeto: 'lista',
      paginacion: { hay_mas: false, siguiente_cursor: null },
    });
    expect(lista.body.datos.map((o: { id: string }) => o.id)).toEqual([r.body.id]);
    const p = await c.http.patch(`/v1/organizaciones/${ORGANIZACION.rfc}`, {
      nombre: 'KEMPER',
      regimen_fiscal: '603',
    });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ nombre: 'KEMPER', regimen_fiscal: '603', rfc: ORGANIZACION.rfc });
  });

  it('sin color_acento usa el color por defecto', async () => {
    const otra = await nuevaCuenta(pila.db, pila.url);
    const r = await otra.http.post('/v1/organizaciones', ORGANIZACION);
    expect(r.body.color_acento).toBe('#1F4E79');
  });

  it('el RFC repetido en la misma cuenta y modo responde 409', async () => {
    const r = await c.http.post('/v1/organizaciones', ORGANIZACION);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ codigo: 'organizacion_duplicada', parametro: 'rfc' });
  });

  it.each([
    [{ ...ORGANIZACION, rfc: 'EKU9013173C9' }, 'rfc_fecha_invalida', 'rfc'],
    [{ ...ORGANIZACION, rfc: 'EKU900317', nombre: 'X' }, 'parametro_invalido', 'rfc'],
    [
      { ...ORGANIZACION, rfc: 'EKU9003173C9', regimen_fiscal: '605' },
      'regimen_no_aplica_persona',
      'regimen_fiscal',
    ],
    [{ ...ORGANIZACION, regimen_fiscal: '999' }, 'parametro_invalido', 'regimen_fiscal'],
    [{ ...ORGANIZACION, codigo_postal: '00000' }, 'codigo_postal_invalido', 'codigo_postal'],
    [{ ...ORGANIZACION, color_acento: 'rojo' }, 'parametro_invalido', 'color_acento'],
  ])('rechaza datos inválidos con un código estable (%#)', async (cuerpo, codigo, parametro) => {
    const otra = await nuevaCuenta(pila.db, pila.url);
    const r = await otra.http.post('/v1/organizaciones', cuerpo);
    expect([400, 422]).toContain(r.status);
    expect(r.body.error).toMatchObject({ codigo, parametro });
  });

  it('el RFC no se puede cambiar con PATCH (400)', async () => {
    const r = await c.http.patch(`/v1/organizaciones/${ORGANIZACION.rfc}`, { rfc: 'AAA010101AAA' });
    expect(r.status).toBe(400);
    expect(r.body.error.parametro).toBe('rfc');
  });
});

describe('clientes', () => {
  let pila: Pila;
  let c: CuentaDePrueba;
  let org: string;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
    c = await nuevaCuenta(pila.db, pila.url);
    org = (await c.http.post('/v1/organizaciones', ORGANIZACION)).body.id;
  });
  afterAll(() => pila.detener());

  it('crea con la organización por RFC, sin advertencias cuando uso y régimen son compatibles', async () => {
    const r = await c.http.post('/v1/clientes', {
      ...CLIENTE,
      organizacion: ORGANIZACION.rfc,
      correo: 'a@b.mx',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      objeto: 'cliente',
      organizacion: org,
      persona: 'fisica',
      advertencias: [],
    });
  });

  it('guarda un uso_cfdi incompatible con el régimen, pero lo advierte', async () => {
    const r = await c.http.post('/v1/clientes', {
      ...CLIENTE,
      rfc: 'XOJI740919U48',
      regimen_fiscal: '605',
      uso_cfdi: 'G03',
      organizacion: org,
    });
    expect(r.status).toBe(201);
    expect(r.body.advertencias).toEqual([{ codigo: 'uso_cfdi_incompatible', mensaje: expect.any(String) }]);
  });

  it('el RFC repetido en la organización responde 409; el genérico se puede repetir', async () => {
    const dup = await c.http.post('/v1/clientes', { ...CLIENTE, organizacion: org });
    expect(dup.status).toBe(409);
    expect(dup.body.error.codigo).toBe('cliente_duplicado');
    const generico = {
      rfc: 'XAXX010101000',
      nombre: 'PUBLICO EN GENERAL',
      regimen_fiscal: '616',
      domicilio_fiscal: '42501',
      uso_cfdi: 'S01',
      organizacion: org,
    };
    expect((await c.http.post('/v1/clientes', generico)).status).toBe(201);
    expect((await c.http.post('/v1/clientes', generico)).status).toBe(201);
  });

  it('busca por RFC y por nombre sin distinguir acentos ni mayúsculas, y filtra por organización', async () => {
    await c.http.post('/v1/clientes', {
      ...CLIENTE,
      rfc: 'PEGJ800101AB1',
      nombre: 'JOSÉ PÉREZ GÓMEZ',
      organizacion: org,
    });
    const porNombre = await c.http.get('/v1/clientes?q=jose%20perez');
    expect(porNombre.body.datos.map((x: { nombre: string }) => x.nombre)).toEqual(['JOSÉ PÉREZ GÓMEZ']);
    const porRfc = await c.http.get('/v1/clientes?q=MASO451221');
    expect(porRfc.body.datos).toHaveLength(1);
    const otraOrg = (await c.http.post('/v1/organizaciones', { ...ORGANIZACION, rfc: 'AAA010101AAA' })).body
      .id;
    expect((await c.http.get(`/v1/clientes?organizacion=${otraOrg}`)).body.datos).toEqual([]);
    expect((await c.http.get(`/v1/clientes?organizacion=${org}`)).body.datos.length).toBeGreaterThanOrEqual(
      4,
    );
  });

  it('PATCH valida el resultado y DELETE es lógico: desaparece de listas y lecturas', async () => {
    const r = await c.http.post('/v1/clientes', { ...CLIENTE, rfc: 'BORR800101AB1', organizacion: org });
    const malo = await c.http.patch(`/v1/clientes/${r.body.id}`, { regimen_fiscal: '601' });
    expect(malo.status).toBe(422);
    expect(malo.body.error.codigo).toBe('regimen_no_aplica_persona');
    const bien = await c.http.patch(`/v1/clientes/${r.body.id}`, { correo: 'nuevo@b.mx' });
    expect(bien.body.correo).toBe('nuevo@b.mx');
    const del = await c.http.delete(`/v1/clientes/${r.body.id}`);
    expect(del.body).toEqual({ id: r.body.id, objeto: 'cliente', eliminado: true });
    expect((await c.http.get(`/v1/clientes/${r.body.id}`)).status).toBe(404);
    expect((await c.http.get('/v1/clientes?q=BORR800101AB1')).body.datos).toEqual([]);
    // The row is kept for the invoices that reference it.
    expect(await pila.db('clientes').where({ id: r.body.id }).first()).toMatchObject({
      rfc: 'BORR800101AB1',
    });
    // And its RFC may be used again.
    expect(
      (await c.http.post('/v1/clientes', { ...CLIENTE, rfc: 'BORR800101AB1', organizacion: org })).status,
    ).toBe(201);
  });

  it('sin un campo obligatorio responde 400 nombrándolo', async () => {
    const { uso_cfdi: _u, ...sinUso } = CLIENTE;
    const r = await c.http.post('/v1/clientes', { ...sinUso, organizacion: org });
    expect(r.status).toBe(400);
    expect(r.body.error.parametro).toBe('uso_cfdi');
  });
});

describe('productos', () => {
  let pila: Pila;
  let c: CuentaDePrueba;
  let org: string;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
    c = await nuevaCuenta(pila.db, pila.url);
    org = (await c.http.post('/v1/organizaciones', ORGANIZACION)).body.id;
  });
  afterAll(() => pila.detener());

  it('crea con precio y tasas normalizados a 6 decimales', async () => {
    const r = await c.http.post('/v1/productos', { ...PRODUCTO, organizacion: org });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      objeto: 'producto',
      valor_unitario: '1500.000000',
      impuestos_default: {
        traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }],
        retenciones: [],
      },
    });
  });

  it.each([
    [{ objeto_imp: '02', impuestos_default: {} }, 'impuestos_requeridos'],
    [{ objeto_imp: '01' }, 'impuestos_no_permitidos'],
    [{ clave_prod_serv: '99999999' }, 'clave_prod_serv_invalida'],
    [{ clave_unidad: 'ZZZ' }, 'clave_unidad_invalida'],
    [{ valor_unitario: '1.1234567' }, 'parametro_invalido'],
    [
      {
        impuestos_default: {
          traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.170000' }],
        },
      },
      'tasa_no_permitida',
    ],
  ])('rechaza un producto inválido (%#)', async (cambio, codigo) => {
    const r = await c.http.post('/v1/productos', { ...PRODUCTO, organizacion: org, ...cambio });
    expect([400, 422]).toContain(r.status);
    expect(r.body.error.codigo).toBe(codigo);
  });

  it('acepta retención de ISR e IVA exento', async () => {
    const r = await c.http.post('/v1/productos', {
      ...PRODUCTO,
      organizacion: org,
      impuestos_default: {
        traslados: [{ impuesto: '002', tipo_factor: 'Exento' }],
        retenciones: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.1' }],
      },
    });
    expect(r.status).toBe(201);
    expect(r.body.impuestos_default.retenciones[0].tasa_o_cuota).toBe('0.100000');
  });

  it('busca por descripción y no_identificación; PATCH y DELETE lo retiran de uso', async () => {
    const r = await c.http.post('/v1/productos', {
      ...PRODUCTO,
      descripcion: 'Licencia anual',
      no_identificacion: 'LIC-9',
      organizacion: org,
    });
    expect(
      (await c.http.get('/v1/productos?q=licencia')).body.datos.map((p: { id: string }) => p.id),
    ).toEqual([r.body.id]);
    expect((await c.http.get('/v1/productos?q=LIC-9')).body.datos).toHaveLength(1);
    const p = await c.http.patch(`/v1/productos/${r.body.id}`, { valor_unitario: '99.5' });
    expect(p.body.valor_unitario).toBe('99.500000');
    expect((await c.http.delete(`/v1/productos/${r.body.id}`)).body.eliminado).toBe(true);
    expect((await c.http.get(`/v1/productos/${r.body.id}`)).status).toBe(404);
  });
});
