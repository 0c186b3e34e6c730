import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { validarRespuesta } from '../support/contrato';
import { nuevaCuenta, ORGANIZACION } from '../support/cuentas';
import { iniciarPila, type Pila } from '../support/pila';

interface Opciones {
  /** JSON value, raw text (sent as is) or a multipart form. */
  cuerpo?: unknown;
  tipo?: string;
  encabezados?: Record<string, string>;
}

type CasoValidacion = [string, string, string, Opciones, string, string | undefined];

const TIPOS_EVENTO = (
  parse(readFileSync(join(__dirname, '..', '..', 'openapi.yaml'), 'utf8')) as {
    components: { schemas: { TipoEvento: { enum: string[] } } };
  }
).components.schemas.TipoEvento.enum;

const FACTURA = { organizacion: ORGANIZACION.rfc, tipo: 'ingreso', cliente: 'MASO451221PM4' };
const formulario = (campos: Record<string, string>, archivos: string[] = []) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(campos)) f.set(k, v);
  for (const a of archivos) f.set(a, new Blob([new Uint8Array([0x30, 0x82])]), `${a}.der`);
  return f;
};
const CERTIFICADO = { organizacion: ORGANIZACION.rfc, contrasena: '12345678a' };

// One request per class of schema error the validator can raise against openapi.yaml.
const VALIDACION: CasoValidacion[] = [
  [
    'PATCH con {} (minProperties)',
    'PATCH',
    '/v1/cuenta',
    { cuerpo: {} },
    'El cuerpo de la solicitud no puede estar vacío: debe incluir al menos un campo.',
    'cuerpo',
  ],
  [
    'PATCH JSON sin bytes',
    'PATCH',
    '/v1/cuenta',
    { cuerpo: '' },
    'El cuerpo de la solicitud no puede estar vacío: debe incluir al menos un campo.',
    'cuerpo',
  ],
  [
    'cuerpo que no es objeto',
    'POST',
    '/v1/organizaciones',
    { cuerpo: [] },
    'El cuerpo de la solicitud debe ser un objeto JSON.',
    'cuerpo',
  ],
  [
    'required',
    'POST',
    '/v1/organizaciones',
    { cuerpo: { nombre: 'X' } },
    'Falta el campo obligatorio rfc.',
    'rfc',
  ],
  [
    'required anidado',
    'POST',
    '/v1/facturas',
    { cuerpo: { ...FACTURA, conceptos: [{}] } },
    'Falta el campo obligatorio conceptos[0].cantidad.',
    'conceptos[0].cantidad',
  ],
  [
    'additionalProperties',
    'POST',
    '/v1/organizaciones',
    { cuerpo: { ...ORGANIZACION, extra: 1 } },
    'El campo extra no está permitido en esta solicitud.',
    'extra',
  ],
  [
    'additionalProperties: el RFC no cambia',
    'PATCH',
    '/v1/organizaciones/org_x',
    { cuerpo: { rfc: 'EKU9003173C9' } },
    'El campo rfc no está permitido en esta solicitud.',
    'rfc',
  ],
  [
    'type',
    'POST',
    '/v1/organizaciones',
    { cuerpo: { ...ORGANIZACION, nombre: 5 } },
    'El campo nombre debe ser texto.',
    'nombre',
  ],
  [
    'type booleano',
    'PATCH',
    '/v1/certificados/cert_abc',
    { cuerpo: { activo: 'si' } },
    'El campo activo debe ser un booleano (true o false).',
    'activo',
  ],
  [
    'enum',
    'POST',
    '/v1/llaves_api',
    { cuerpo: { nombre: 'x', modo: 'prod' } },
    'El campo modo debe ser uno de estos valores: test, live.',
    'modo',
  ],
  [
    'pattern',
    'POST',
    '/v1/organizaciones',
    { cuerpo: { ...ORGANIZACION, codigo_postal: '123' } },
    'El campo codigo_postal debe tener 5 dígitos.',
    'codigo_postal',
  ],
  [
    'minLength 1',
    'POST',
    '/v1/organizaciones',
    { cuerpo: { ...ORGANIZACION, nombre: '' } },
    'El campo nombre no puede estar vacío.',
    'nombre',
  ],
  [
    'minLength',
    'POST',
    '/v1/organizaciones',
    { cuerpo: { ...ORGANIZACION, rfc: 'ABC' } },
    'El campo rfc debe tener al menos 12 caracteres.',
    'rfc',
  ],
  [
    'maxLength',
    'POST',
    '/v1/organizaciones',
    { cuerpo: { ...ORGANIZACION, nombre: 'x'.repeat(301) } },
    'El campo nombre debe tener como máximo 300 caracteres.',
    'nombre',
  ],
  [
    'format email',
    'PATCH',
    '/v1/cuenta',
    { cuerpo: { correo: 'no-es-correo' } },
    'El campo correo debe ser una dirección de correo electrónico válida.',
    'correo',
  ],
  [
    'format uri',
    'PATCH',
    '/v1/cuenta',
    { cuerpo: { sitio_web: 'https://a b' } },
    'El campo sitio_web debe ser una URL absoluta válida (p. ej. https://ejemplo.mx).',
    'sitio_web',
  ],
  [
    'format byte',
    'POST',
    '/v1/certificados',
    { cuerpo: { ...CERTIFICADO, cer: '!!!!', llave: 'AAAA' } },
    'El campo cer debe ir en base64 estándar (con relleno =).',
    'cer',
  ],
  [
    'minItems',
    'POST',
    '/v1/webhooks',
    { cuerpo: { url: 'https://a.mx', eventos_suscritos: [] } },
    'El campo eventos_suscritos debe tener al menos un elemento.',
    'eventos_suscritos',
  ],
  [
    'maxItems',
    'POST',
    '/v1/pagos',
    {
      cuerpo: {
        organizacion: ORGANIZACION.rfc,
        fecha_pago: '2026-01-01',
        forma_pago: '03',
        monto: '1',
        facturas_pagadas: Array.from({ length: 101 }, () => ({ factura: 'fac_a', imp_pagado: '1' })),
      },
    },
    'El campo facturas_pagadas debe tener como máximo 100 elementos.',
    'facturas_pagadas',
  ],
  [
    'uniqueItems',
    'POST',
    '/v1/webhooks',
    { cuerpo: { url: 'https://a.mx', eventos_suscritos: ['pago.creado', 'pago.creado'] } },
    'El campo eventos_suscritos no puede tener elementos repetidos: eventos_suscritos[0] y eventos_suscritos[1] son iguales.',
    'eventos_suscritos',
  ],
  [
    'enum de un elemento',
    'POST',
    '/v1/webhooks',
    { cuerpo: { url: 'https://a.mx', eventos_suscritos: ['pago.creado', 'otro'] } },
    // Every event type, in the contract's order (a new one changes the list, not this test).
    `El campo eventos_suscritos[1] debe ser uno de estos valores: ${TIPOS_EVENTO.join(', ')}.`,
    'eventos_suscritos[1]',
  ],
  [
    'anyOf: número no positivo',
    'POST',
    '/v1/facturas',
    { cuerpo: { ...FACTURA, conceptos: [{ cantidad: 0 }] } },
    'El campo conceptos[0].cantidad debe ser mayor o igual que 0.000001.',
    'conceptos[0].cantidad',
  ],
  [
    'anyOf: texto no decimal',
    'POST',
    '/v1/facturas',
    { cuerpo: { ...FACTURA, conceptos: [{ cantidad: 'uno' }] } },
    'El campo conceptos[0].cantidad no tiene el formato esperado (patrón ^[0-9]+(\\.[0-9]{1,6})?$).',
    'conceptos[0].cantidad',
  ],
  [
    'anyOf: ni texto ni número',
    'POST',
    '/v1/facturas',
    { cuerpo: { ...FACTURA, conceptos: [{ cantidad: true }] } },
    'El campo conceptos[0].cantidad debe ser texto o un número.',
    'conceptos[0].cantidad',
  ],
  [
    'minimum en la consulta',
    'GET',
    '/v1/facturas?paginacion.limite=0',
    {},
    'El parámetro paginacion.limite debe ser mayor o igual que 1.',
    'paginacion.limite',
  ],
  [
    'maximum en la consulta',
    'GET',
    '/v1/facturas?paginacion.limite=101',
    {},
    'El parámetro paginacion.limite debe ser menor o igual que 100.',
    'paginacion.limite',
  ],
  [
    'type en la consulta',
    'GET',
    '/v1/clientes?paginacion.limite=diez',
    {},
    'El parámetro paginacion.limite debe ser un número entero.',
    'paginacion.limite',
  ],
  [
    'parámetro de consulta repetido',
    'GET',
    '/v1/facturas?estado=borrador&estado=timbrada',
    {},
    'El parámetro estado debe ser texto (un solo valor, sin repetirlo).',
    'estado',
  ],
  [
    'enum en la consulta',
    'GET',
    '/v1/facturas?estado=pagada',
    {},
    'El parámetro estado debe ser uno de estos valores: borrador, timbrada, cancelada.',
    'estado',
  ],
  [
    'pattern en la consulta',
    'GET',
    '/v1/pagos?factura=xyz',
    {},
    'El parámetro factura no tiene el formato esperado (patrón ^fac_[0-9a-z]+$).',
    'factura',
  ],
  [
    'enum del tipo de pendiente',
    'GET',
    '/v1/pendientes?tipo=otro',
    {},
    'El parámetro tipo debe ser uno de estos valores: timbrado, cancelacion, pago, correo, entrega, reexpedicion.',
    'tipo',
  ],
  [
    'fecha y hora de antes_de',
    'GET',
    '/v1/pendientes?antes_de=ayer',
    {},
    'El parámetro antes_de debe ser una fecha y hora ISO 8601 con zona (p. ej. 2026-11-23T02:53:10Z).',
    'antes_de',
  ],
  [
    'enum de la agrupación del resumen',
    'GET',
    '/v1/resumen?agrupacion=semana',
    {},
    'El parámetro agrupacion debe ser uno de estos valores: dia, mes.',
    'agrupacion',
  ],
  [
    'fecha de corte del estado de cuenta',
    'GET',
    '/v1/clientes/cli_01kbq2b4d6f8h0k2m4p6r8t0v2/estado_de_cuenta?fecha=ayer',
    {},
    'El parámetro fecha debe ser una fecha AAAA-MM-DD (p. ej. 2026-11-23).',
    'fecha',
  ],
  [
    'pattern del UUID en la búsqueda de facturas',
    'GET',
    '/v1/facturas?uuid=xyz',
    {},
    'El parámetro uuid no tiene el formato esperado (patrón ^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$).',
    'uuid',
  ],
  [
    'pattern del webhook en las entregas de la cuenta',
    'GET',
    '/v1/entregas?webhook=xyz',
    {},
    'El parámetro webhook no tiene el formato esperado (patrón ^wh_[0-9a-z]+$).',
    'webhook',
  ],
  [
    'pattern de la entrega a reintentar',
    'POST',
    '/v1/entregas/xyz/reintentar',
    {},
    'El parámetro de ruta id no tiene el formato esperado (patrón ^ent_[0-9a-z]+$).',
    'id',
  ],
  [
    'parámetro de consulta vacío',
    'GET',
    '/v1/facturas?cliente=',
    {},
    'El parámetro cliente no puede estar vacío.',
    'cliente',
  ],
  [
    'parámetro de consulta desconocido',
    'GET',
    '/v1/facturas?limit=5',
    {},
    'El parámetro de consulta limit no existe en esta ruta.',
    'limit',
  ],
  [
    'carácter reservado sin codificar en la consulta',
    'GET',
    '/v1/clientes?q=a:b',
    {},
    "El parámetro q debe ir codificado en la URL: su valor no puede llevar caracteres reservados (: / ? # [ ] @ ! $ & ' ( ) * + , ; =) sin codificar.",
    'q',
  ],
  [
    'pattern en la ruta',
    'GET',
    '/v1/facturas/xyz',
    {},
    'El parámetro de ruta id no tiene el formato esperado (patrón ^fac_[0-9a-z]+$).',
    'id',
  ],
  [
    'maxLength en la ruta',
    'GET',
    `/v1/organizaciones/${'a'.repeat(65)}`,
    {},
    'El parámetro de ruta id debe tener como máximo 64 caracteres.',
    'id',
  ],
  [
    'URL mal codificada',
    'GET',
    '/v1/facturas/fac_%ZZ',
    {},
    'La URL tiene una secuencia de escape (%) no válida.',
    undefined,
  ],
  [
    'encabezado demasiado largo',
    'POST',
    '/v1/llaves_api',
    { cuerpo: { nombre: 'x', modo: 'test' }, encabezados: { 'Clave-Idempotencia': 'a'.repeat(256) } },
    'El encabezado Clave-Idempotencia debe tener como máximo 255 caracteres.',
    'Clave-Idempotencia',
  ],
  [
    'encabezado con espacios',
    'POST',
    '/v1/llaves_api',
    { cuerpo: { nombre: 'x', modo: 'test' }, encabezados: { 'Clave-Idempotencia': 'a b' } },
    'El encabezado Clave-Idempotencia no tiene el formato esperado (patrón ^[\\x21-\\x7E]+$).',
    'Clave-Idempotencia',
  ],
  [
    'multipart sin archivos',
    'POST',
    '/v1/certificados',
    { cuerpo: formulario(CERTIFICADO) },
    'Falta el campo obligatorio cer.',
    'cer',
  ],
  [
    'multipart sin la llave',
    'POST',
    '/v1/certificados',
    { cuerpo: formulario(CERTIFICADO, ['cer']) },
    'Falta el campo obligatorio llave.',
    'llave',
  ],
  [
    'multipart sin la contraseña',
    'POST',
    '/v1/certificados',
    { cuerpo: formulario({ organizacion: ORGANIZACION.rfc }, ['cer', 'llave']) },
    'Falta el campo obligatorio contrasena.',
    'contrasena',
  ],
  [
    'multipart con un campo de más',
    'POST',
    '/v1/certificados',
    { cuerpo: formulario({ ...CERTIFICADO, otro: 'x' }, ['cer', 'llave']) },
    'El campo otro no está permitido en esta solicitud.',
    'otro',
  ],
  [
    'multipart con demasiados campos',
    'POST',
    '/v1/certificados',
    { cuerpo: formulario(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`c${i}`, 'x']))) },
    'El cuerpo multipart/form-data tiene demasiados campos.',
    'cuerpo',
  ],
  [
    'multipart sin boundary',
    'POST',
    '/v1/certificados',
    { cuerpo: 'basura', tipo: 'multipart/form-data' },
    'El cuerpo multipart/form-data no se puede leer: falta el boundary en Content-Type.',
    'cuerpo',
  ],
];

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
    expect(html).toContain('/docs/inicio.js');
    expect(html).not.toMatch(/https?:\/\//);
    expect(await (await fetch(`${pila.url}/docs/inicio.js`)).text()).toContain("url: '/openapi.yaml'");
    const js = await fetch(`${pila.url}/docs/recursos/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
  });

  describe('400 de validación: una oración en español y el parametro', () => {
    let secreto: string;
    beforeAll(async () => {
      ({ secreto } = await nuevaCuenta(pila.db, pila.url));
    });

    async function pedir(metodo: string, ruta: string, { cuerpo, tipo, encabezados }: Opciones) {
      const headers: Record<string, string> = {
        authorization: `Basic ${Buffer.from(`${secreto}:`).toString('base64')}`,
        ...encabezados,
      };
      let body: string | FormData | undefined;
      if (cuerpo instanceof FormData) body = cuerpo;
      else if (cuerpo !== undefined) {
        body = typeof cuerpo === 'string' ? cuerpo : JSON.stringify(cuerpo);
        headers['content-type'] = tipo ?? 'application/json';
      }
      // Raw fetch: the test client always sends JSON, and these need empty, raw or multipart bodies.
      const r = await fetch(`${pila.url}${ruta}`, { method: metodo, headers, body });
      const json = await r.json();
      validarRespuesta(metodo, ruta, r.status, json);
      return { status: r.status, json };
    }

    it.each(VALIDACION)('%s', async (_nombre, metodo, ruta, opciones, mensaje, parametro) => {
      const { status, json } = await pedir(metodo, ruta, opciones);
      expect(status).toBe(400);
      expect(json).toEqual({
        error: {
          tipo: 'solicitud_invalida',
          codigo: 'parametro_invalido',
          mensaje,
          ...(parametro ? { parametro } : {}),
        },
      });
    });

    // No body, or a body in a type the operation does not take, is the validator's 415 (not a 400).
    it.each([
      ['PATCH sin cuerpo', 'PATCH', '/v1/cuenta', {}],
      ['POST sin cuerpo', 'POST', '/v1/facturas/fac_abc/cancelar', {}],
      [
        'texto plano a un POST sin cuerpo',
        'POST',
        '/v1/facturas/fac_abc/timbrado/abandonar',
        { cuerpo: 'x', tipo: 'text/plain' },
      ],
      ['texto plano', 'POST', '/v1/organizaciones', { cuerpo: 'rfc=x', tipo: 'text/plain' }],
      ['multipart donde solo va JSON', 'PATCH', '/v1/cuenta', { cuerpo: formulario({ nombre: 'x' }) }],
    ] as [string, string, string, Opciones][])(
      '%s responde 415 en español',
      async (_n, metodo, ruta, opciones) => {
        const { status, json } = await pedir(metodo, ruta, opciones);
        expect(status).toBe(415);
        expect(json.error).toMatchObject({
          tipo: 'tipo_de_contenido',
          codigo: 'tipo_de_contenido_no_soportado',
        });
        expect(json.error.mensaje).toMatch(/^El tipo de contenido no está soportado/);
      },
    );
  });
});
