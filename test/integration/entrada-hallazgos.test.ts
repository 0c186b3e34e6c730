import { request } from 'node:http';
import { validarRespuesta } from '../support/contrato';
import { CLIENTE, ORGANIZACION } from '../support/cuentas';
import { cuentaLista, esperar } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';

/**
 * Regression tests of the hostile-input findings of issue 13: every one of these requests was accepted (and
 * stuck or stamped wrong) or answered 500 before. Each must now be a 4xx with a stable code and the field in
 * `parametro`, with nothing stored.
 */
describe('entrada hostil: rechazada al crear, con el campo y sin escribir nada', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  beforeAll(async () => {
    pila = await iniciarPila();
    c = await cuentaLista(pila);
  });
  afterAll(() => pila.detener());

  const concepto = (extra: Record<string, unknown> = {}) => ({
    cantidad: '1',
    clave_prod_serv: '43211914',
    clave_unidad: 'H87',
    unidad: 'Pieza',
    descripcion: 'Pantalla',
    valor_unitario: '100',
    objeto_imp: '02',
    impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
    ...extra,
  });
  const factura = (extra: Record<string, unknown> = {}, conceptoExtra: Record<string, unknown> = {}) => ({
    organizacion: c.org,
    tipo: 'ingreso',
    cliente: CLIENTE.rfc,
    forma_pago: '03',
    conceptos: [concepto(conceptoExtra)],
    ...extra,
  });
  const cuantasFacturas = async () =>
    Number((await pila.db('facturas').where({ cuenta_id: c.cuentaId }).count({ n: '*' }))[0]!.n);

  async function rechazada(cuerpo: unknown, status: number, codigo: string, parametro: string) {
    const antes = await cuantasFacturas();
    const r = await c.http.post('/v1/facturas', cuerpo);
    expect([r.status, r.body.error?.codigo, r.body.error?.parametro]).toEqual([status, codigo, parametro]);
    expect(await cuantasFacturas()).toBe(antes);
    return r.body.error.mensaje as string;
  }

  it.each([
    ['U+0001 en descripcion', { descripcion: 'A\u0001B' }, 'conceptos[0].descripcion', 'U+0001'],
    ['U+001F en unidad', { unidad: 'Pz\u001f' }, 'conceptos[0].unidad', 'U+001F'],
    [
      'U+FFFE en no_identificacion',
      { no_identificacion: 'X\ufffe' },
      'conceptos[0].no_identificacion',
      'U+FFFE',
    ],
    ['U+FFFF en descripcion', { descripcion: '\uffff' }, 'conceptos[0].descripcion', 'U+FFFF'],
    [
      'tabulador (el XML lo leería como espacio)',
      { descripcion: 'A\tB' },
      'conceptos[0].descripcion',
      'U+0009',
    ],
    ['salto de línea', { descripcion: 'A\nB' }, 'conceptos[0].descripcion', 'U+000A'],
    [
      'sustituto suelto (antes 500 del JSON de MySQL)',
      { descripcion: '\ud800x' },
      'conceptos[0].descripcion',
      'U+D800',
    ],
    ['sustituto bajo suelto', { descripcion: 'x\udc00' }, 'conceptos[0].descripcion', 'U+DC00'],
  ])('%s → 400 caracter_no_permitido', async (_caso, extra, parametro, codigoCaracter) => {
    const mensaje = await rechazada(factura({}, extra), 400, 'caracter_no_permitido', parametro);
    expect(mensaje).toContain(codigoCaracter);
  });

  it('un par sustituto válido (emoji) y los caracteres especiales de XML se aceptan', async () => {
    const r = await c.http.post(
      '/v1/facturas',
      factura({ auto_timbrar: false }, { descripcion: 'Café ☕ 😀 & <b> "x" \'y\'' }),
    );
    expect(r.status).toBe(201);
    expect(r.body.conceptos[0].descripcion).toBe('Café ☕ 😀 & <b> "x" \'y\'');
  });

  it('también en nombres de clientes y organizaciones, y en las claves de los objetos', async () => {
    let r = await c.http.post('/v1/clientes', { ...CLIENTE, organizacion: c.org, nombre: 'ACME\u0000' });
    expect([r.status, r.body.error.codigo, r.body.error.parametro]).toEqual([
      400,
      'caracter_no_permitido',
      'nombre',
    ]);
    r = await c.http.patch(`/v1/organizaciones/${c.org}`, { nombre: 'X\u0007' });
    expect([r.status, r.body.error.parametro]).toEqual([400, 'nombre']);
    r = await c.http.post('/v1/facturas', { ...factura(), 'clave\u0002': 1 });
    expect([r.status, r.body.error.codigo, r.body.error.parametro]).toEqual([
      400,
      'caracter_no_permitido',
      'clave\u0002',
    ]);
  });

  it('| (separador de la cadena original) → 400 con el patrón explicado', async () => {
    const mensaje = await rechazada(
      factura({}, { descripcion: 'A | B' }),
      400,
      'parametro_invalido',
      'conceptos[0].descripcion',
    );
    expect(mensaje).toContain('|');
    await rechazada(factura({ serie: 'A|B' }), 400, 'parametro_invalido', 'serie');
    const p = await c.http.post('/v1/productos', {
      organizacion: c.org,
      descripcion: 'x|y',
      valor_unitario: '1',
      clave_prod_serv: '43211914',
      clave_unidad: 'H87',
      objeto_imp: '01',
    });
    expect([p.status, p.body.error.parametro]).toEqual([400, 'descripcion']);
  });

  it('texto solo con espacios → 400 (el SAT lo colapsa a vacío)', async () => {
    await rechazada(
      factura({}, { descripcion: '   ' }),
      400,
      'parametro_invalido',
      'conceptos[0].descripcion',
    );
    const r = await c.http.post('/v1/clientes', { ...CLIENTE, organizacion: c.org, nombre: '  ' });
    expect([r.status, r.body.error.parametro]).toEqual([400, 'nombre']);
  });

  it('dos líneas de IVA iguales en un concepto → 422 impuesto_repetido (antes: Total 132.00 en vez de 116.00)', async () => {
    const iva = { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' };
    await rechazada(
      factura({}, { impuestos: { traslados: [iva, iva] } }),
      422,
      'impuesto_repetido',
      'conceptos[0].impuestos.traslados[1]',
    );
  });

  it('las reglas del SAT que decide la solicitud corren al crear, no al timbrar', async () => {
    let m = await rechazada(
      factura({}, { descuento: '150' }),
      422,
      'descuento_mayor_importe',
      'conceptos[0].descuento',
    );
    expect(m).toContain('CFDI40');
    // A key outside c_FormaPago is refused by the contract's enum, naming the allowed values.
    m = await rechazada(factura({ forma_pago: '98' }), 400, 'parametro_invalido', 'forma_pago');
    expect(m).toContain('99');
    await rechazada(
      factura({}, { valor_unitario: '0' }),
      422,
      'valor_unitario_cero',
      'conceptos[0].valor_unitario',
    );
    // A draft too: what is wrong with the request is wrong whether or not it is stamped now.
    await rechazada(
      factura({ auto_timbrar: false }, { valor_unitario: '0' }),
      422,
      'valor_unitario_cero',
      'conceptos[0].valor_unitario',
    );
  });

  it('un importe que desborda 18 dígitos enteros → 422 (antes 500 ER_WARN_DATA_OUT_OF_RANGE)', async () => {
    const m = await rechazada(
      factura({}, { valor_unitario: '999999999999999999', cantidad: '2' }),
      422,
      'importe_fuera_de_limite',
      'conceptos[0]',
    );
    expect(m).toContain('18 dígitos');
    // Exactly at the limit the total with IVA still overflows, and is refused the same way.
    await rechazada(
      factura({}, { valor_unitario: '900000000000000000' }),
      422,
      'importe_fuera_de_limite',
      'conceptos',
    );
  });

  it('cuerpo con UTF-8 inválido → 400 utf8_invalido (antes se reemplazaba en silencio)', async () => {
    const cuerpo = Buffer.concat([
      Buffer.from(
        `{"organizacion":"${c.org}","tipo":"ingreso","cliente":"${CLIENTE.rfc}","forma_pago":"03","conceptos":[{"cantidad":"1","descripcion":"A`,
      ),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}]}'),
    ]);
    const antes = await cuantasFacturas();
    const r = await fetch(`${pila.url}/v1/facturas`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${c.secreto}:`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: cuerpo,
    });
    const body = await r.json();
    validarRespuesta('POST', '/v1/facturas', r.status, body);
    expect([r.status, body.error.codigo]).toEqual([400, 'utf8_invalido']);
    expect(await cuantasFacturas()).toBe(antes);
  });

  it('errores clasificados una vez: un CFDI imposible de construir termina fallido con su evento, no atascado', async () => {
    // A draft stored before the input discipline (U+0001 in its document): building its XML can never work.
    const borrador = await c.http.post('/v1/facturas', factura({ auto_timbrar: false }));
    expect(borrador.status).toBe(201);
    const fila = await pila.db('facturas').where({ id: borrador.body.id }).first();
    const documento = typeof fila.documento === 'string' ? JSON.parse(fila.documento) : fila.documento;
    documento.entrada.conceptos[0].descripcion = 'Pantalla\u0001';
    await pila
      .db('facturas')
      .where({ id: borrador.body.id })
      .update({ documento: JSON.stringify(documento) });

    const r = await c.http.post(`/v1/facturas/${borrador.body.id}/timbrar`);
    expect([r.status, r.body.error?.codigo, r.body.error?.factura]).toEqual([
      422,
      'timbrado_rechazado',
      borrador.body.id,
    ]);
    const f = await c.http.get(`/v1/facturas/${borrador.body.id}`);
    expect(f.body.timbrado).toMatchObject({
      estado: 'fallido',
      ultimo_error: { codigo: 'comprobante_invalido' },
    });
    expect(f.body.timbrado.ultimo_error.mensaje).toContain('U+0001');
    const ev = await c.http.get('/v1/eventos?tipo=factura.timbrado_fallido');
    expect(
      ev.body.datos.filter((e: { datos: { id: string } }) => e.datos.id === borrador.body.id),
    ).toHaveLength(1);
  });

  it('multipart truncado en POST /v1/certificados → 400 multipart_invalido (antes 500)', async () => {
    const frontera = 'XyZfrontera';
    const cuerpo =
      `--${frontera}\r\nContent-Disposition: form-data; name="organizacion"\r\n\r\n${ORGANIZACION.rfc}\r\n` +
      `--${frontera}\r\nContent-Disposition: form-data; name="cer"; filename="a.cer"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n0\x82\x01';
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${pila.url}/v1/certificados`,
        {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${c.secreto}:`).toString('base64')}`,
            'content-type': `multipart/form-data; boundary=${frontera}`,
          },
        },
        (res) => {
          let texto = '';
          res.on('data', (d: Buffer) => (texto += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: texto }));
        },
      );
      req.on('error', reject);
      // The body ends without its closing boundary: the client stops sending mid-part.
      req.end(cuerpo);
    });
    const json = JSON.parse(body);
    validarRespuesta('POST', '/v1/certificados', status, json);
    expect([status, json.error.codigo]).toEqual([400, 'multipart_invalido']);
  });

  // Last: it stops this stack's PAC.
  it('un error transitorio (PAC caído) deja la factura pendiente y dice por qué en timbrado.ultimo_error', async () => {
    await pila.detenerPac();
    const r = await c.http.post('/v1/facturas', factura());
    expect([r.status, r.body.timbrado.estado]).toEqual([202, 'pendiente']);
    const f = await esperar(async () => {
      const g = await c.http.get(`/v1/facturas/${r.body.id}`);
      return g.body.timbrado.ultimo_error ? g.body : undefined;
    });
    expect(f.timbrado).toMatchObject({ estado: 'pendiente', ultimo_error: { codigo: 'pac_no_disponible' } });
  });
});
