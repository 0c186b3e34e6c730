import { aApiError } from '../../api/middleware/manejador-errores';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  mensajeValidacion,
  parametroValidacion,
  PATRON_CODIGO_POSTAL,
  PATRON_RFC,
  type ErrorDeValidacion,
} from '../../api/middleware/mensajes-validacion';

// The errors below are the validator's own (express-openapi-validator 5.6.2 over ajv 8), as it raised them
// for requests against openapi.yaml: path, ajv message and errorCode exactly as they arrive.
const e = (path: string, message: string, palabra?: string): ErrorDeValidacion => ({
  path,
  message,
  ...(palabra ? { errorCode: `${palabra}.openapi.validation` } : {}),
});

// English that must never reach a client (ajv's, the validator's and multer's vocabulary).
const INGLES =
  /\b(must|should|property|properties|items?|characters|allowed|values?|unknown|required|match|format|schema|empty|found|parameter|field|too|many|files?|malformed|uri)\b/i;

type Caso = [string, ErrorDeValidacion[], string, string | undefined];

const casos: Caso[] = [
  // required: the validator appends the missing property to the path.
  [
    'required',
    [e('/body/rfc', "must have required property 'rfc'", 'required')],
    'Falta el campo obligatorio rfc.',
    'rfc',
  ],
  [
    'required anidado',
    [e('/body/conceptos/0/cantidad', "must have required property 'cantidad'", 'required')],
    'Falta el campo obligatorio conceptos[0].cantidad.',
    'conceptos[0].cantidad',
  ],
  [
    'required sin la propiedad en la ruta',
    [e('/body/impuestos_default/traslados/0', "must have required property 'tipo_factor'", 'required')],
    'Falta el campo obligatorio impuestos_default.traslados[0].tipo_factor.',
    'impuestos_default.traslados[0].tipo_factor',
  ],
  [
    'required de multipart (archivo)',
    [e('/body/cer', "must have required property 'cer'", 'required')],
    'Falta el campo obligatorio cer.',
    'cer',
  ],
  [
    'required en la consulta',
    [e('/query/organizacion', "must have required property 'organizacion'", 'required')],
    'Falta el parámetro obligatorio organizacion.',
    'organizacion',
  ],
  [
    'required en un encabezado',
    [e('/headers/clave-idempotencia', "must have required property 'clave-idempotencia'", 'required')],
    'Falta el encabezado obligatorio Clave-Idempotencia.',
    'Clave-Idempotencia',
  ],
  [
    'dependentRequired',
    [e('/body', 'must have property tipo_cambio when property moneda is present', 'dependentRequired')],
    'Falta el campo tipo_cambio: es obligatorio cuando se envía moneda.',
    'tipo_cambio',
  ],
  [
    'additionalProperties',
    [e('/body/extra', 'must NOT have additional properties', 'additionalProperties')],
    'El campo extra no está permitido en esta solicitud.',
    'extra',
  ],
  [
    'additionalProperties anidado',
    [e('/body/conceptos/0/foo', 'must NOT have additional properties', 'additionalProperties')],
    'El campo conceptos[0].foo no está permitido en esta solicitud.',
    'conceptos[0].foo',
  ],
  [
    'unevaluatedProperties',
    [e('/body/rfc', 'must NOT have unevaluated properties', 'unevaluatedProperties')],
    'El campo rfc no está permitido en esta solicitud.',
    'rfc',
  ],
  ['type texto', [e('/body/nombre', 'must be string', 'type')], 'El campo nombre debe ser texto.', 'nombre'],
  [
    'type booleano',
    [e('/body/activo', 'must be boolean', 'type')],
    'El campo activo debe ser un booleano (true o false).',
    'activo',
  ],
  [
    'type objeto',
    [e('/body/impuestos_default', 'must be object', 'type')],
    'El campo impuestos_default debe ser un objeto.',
    'impuestos_default',
  ],
  [
    'type arreglo',
    [e('/body/eventos_suscritos', 'must be array', 'type')],
    'El campo eventos_suscritos debe ser un arreglo.',
    'eventos_suscritos',
  ],
  [
    'type varios',
    [e('/body/telefono', 'must be string,null', 'type')],
    'El campo telefono debe ser texto o null.',
    'telefono',
  ],
  [
    'type del cuerpo entero',
    [e('/body', 'must be object', 'type')],
    'El cuerpo de la solicitud debe ser un objeto JSON.',
    'cuerpo',
  ],
  [
    'type entero en la consulta',
    [e('/query/paginacion.limite', 'must be integer', 'type')],
    'El parámetro paginacion.limite debe ser un número entero.',
    'paginacion.limite',
  ],
  [
    'type texto en la consulta (valor repetido)',
    [e('/query/estado', 'must be string', 'type')],
    'El parámetro estado debe ser texto (un solo valor, sin repetirlo).',
    'estado',
  ],
  [
    'enum',
    [e('/body/modo', 'must be equal to one of the allowed values: test, live', 'enum')],
    'El campo modo debe ser uno de estos valores: test, live.',
    'modo',
  ],
  [
    'enum de un elemento de arreglo',
    [
      e(
        '/body/eventos_suscritos/0',
        'must be equal to one of the allowed values: pago.creado, factura.creada',
        'enum',
      ),
    ],
    'El campo eventos_suscritos[0] debe ser uno de estos valores: pago.creado, factura.creada.',
    'eventos_suscritos[0]',
  ],
  [
    'enum en la consulta',
    [e('/query/estado', 'must be equal to one of the allowed values: borrador, timbrada, cancelada', 'enum')],
    'El parámetro estado debe ser uno de estos valores: borrador, timbrada, cancelada.',
    'estado',
  ],
  [
    'enum de un solo valor',
    [e('/headers/idempotencia-repetida', 'must be equal to one of the allowed values: true', 'enum')],
    'El encabezado Idempotencia-Repetida debe valer true.',
    'Idempotencia-Repetida',
  ],
  [
    'const',
    [e('/body/acepta_terminos', 'must be equal to constant', 'const')],
    'El campo acepta_terminos no tiene el único valor permitido.',
    'acepta_terminos',
  ],
  [
    'pattern',
    [e('/body/codigo_postal', 'must match pattern "^[0-9]{5}$"', 'pattern')],
    'El campo codigo_postal debe tener 5 dígitos.',
    'codigo_postal',
  ],
  [
    'pattern',
    [e('/body/rfc', 'must match pattern "^[A-ZÑ&]{3,4}[0-9]{6}[A-Z0-9]{2}[0-9A]$"', 'pattern')],
    'El campo rfc no tiene el formato de un RFC: 3 letras (persona moral) o 4 (persona física), la fecha AAMMDD y 3 caracteres de homoclave, en mayúsculas.',
    'rfc',
  ],
  [
    'pattern',
    [e('/body/color_acento', 'must match pattern "^#[0-9A-Fa-f]{6}$"', 'pattern')],
    'El campo color_acento no tiene el formato esperado (patrón ^#[0-9A-Fa-f]{6}$).',
    'color_acento',
  ],
  [
    'pattern en la ruta',
    [e('/params/id', 'must match pattern "^fac_[0-9a-z]+$"', 'pattern')],
    'El parámetro de ruta id no tiene el formato esperado (patrón ^fac_[0-9a-z]+$).',
    'id',
  ],
  [
    'pattern en un encabezado',
    [e('/headers/clave-idempotencia', 'must match pattern "^[\\x21-\\x7E]+$"', 'pattern')],
    'El encabezado Clave-Idempotencia no tiene el formato esperado (patrón ^[\\x21-\\x7E]+$).',
    'Clave-Idempotencia',
  ],
  [
    'format email',
    [e('/body/correo', 'must match format "email"', 'format')],
    'El campo correo debe ser una dirección de correo electrónico válida.',
    'correo',
  ],
  [
    'format uri',
    [e('/body/sitio_web', 'must match format "uri"', 'format')],
    'El campo sitio_web debe ser una URL absoluta válida (p. ej. https://ejemplo.mx).',
    'sitio_web',
  ],
  [
    'format byte',
    [e('/body/cer', 'must match format "byte"', 'format')],
    'El campo cer debe ir en base64 estándar (con relleno =).',
    'cer',
  ],
  [
    'format binary',
    [e('/body/llave', 'must match format "binary"', 'format')],
    'El campo llave debe ser un archivo.',
    'llave',
  ],
  [
    'format date-time',
    [e('/query/desde', 'must match format "date-time"', 'format')],
    'El parámetro desde debe ser una fecha y hora ISO 8601 con zona (p. ej. 2026-11-23T02:53:10Z).',
    'desde',
  ],
  [
    'format date',
    [e('/body/fecha', 'must match format "date"', 'format')],
    'El campo fecha debe ser una fecha AAAA-MM-DD (p. ej. 2026-11-23).',
    'fecha',
  ],
  [
    'format desconocido',
    [e('/body/color', 'must match format "color"', 'format')],
    'El campo color no tiene el formato color.',
    'color',
  ],
  [
    'minLength 1',
    [e('/body/nombre', 'must NOT have fewer than 1 characters', 'minLength')],
    'El campo nombre no puede estar vacío.',
    'nombre',
  ],
  [
    'minLength n',
    [e('/body/rfc', 'must NOT have fewer than 12 characters', 'minLength')],
    'El campo rfc debe tener al menos 12 caracteres.',
    'rfc',
  ],
  [
    'maxLength',
    [e('/body/rfc', 'must NOT have more than 13 characters', 'maxLength')],
    'El campo rfc debe tener como máximo 13 caracteres.',
    'rfc',
  ],
  [
    'maxLength 1',
    [e('/body/inicial', 'must NOT have more than 1 characters', 'maxLength')],
    'El campo inicial debe tener como máximo un carácter.',
    'inicial',
  ],
  [
    'maxLength en la ruta',
    [e('/params/id', 'must NOT have more than 64 characters', 'maxLength')],
    'El parámetro de ruta id debe tener como máximo 64 caracteres.',
    'id',
  ],
  [
    'minimum',
    [e('/query/paginacion.limite', 'must be >= 1', 'minimum')],
    'El parámetro paginacion.limite debe ser mayor o igual que 1.',
    'paginacion.limite',
  ],
  [
    'maximum',
    [e('/query/paginacion.limite', 'must be <= 100', 'maximum')],
    'El parámetro paginacion.limite debe ser menor o igual que 100.',
    'paginacion.limite',
  ],
  [
    'exclusiveMinimum',
    [e('/body/tasa', 'must be > 0', 'exclusiveMinimum')],
    'El campo tasa debe ser mayor que 0.',
    'tasa',
  ],
  [
    'exclusiveMaximum',
    [e('/body/tasa', 'must be < 1.5', 'exclusiveMaximum')],
    'El campo tasa debe ser menor que 1.5.',
    'tasa',
  ],
  [
    'multipleOf',
    [e('/body/monto', 'must be multiple of 0.01', 'multipleOf')],
    'El campo monto debe ser múltiplo de 0.01.',
    'monto',
  ],
  [
    'minItems 1',
    [e('/body/conceptos', 'must NOT have fewer than 1 items', 'minItems')],
    'El campo conceptos debe tener al menos un elemento.',
    'conceptos',
  ],
  [
    'minItems n',
    [e('/body/uuids', 'must NOT have fewer than 2 items', 'minItems')],
    'El campo uuids debe tener al menos 2 elementos.',
    'uuids',
  ],
  [
    'maxItems',
    [e('/body/facturas_pagadas', 'must NOT have more than 100 items', 'maxItems')],
    'El campo facturas_pagadas debe tener como máximo 100 elementos.',
    'facturas_pagadas',
  ],
  [
    'uniqueItems',
    [
      e(
        '/body/eventos_suscritos',
        'must NOT have duplicate items (items ## 0 and 1 are identical)',
        'uniqueItems',
      ),
    ],
    'El campo eventos_suscritos no puede tener elementos repetidos: eventos_suscritos[0] y eventos_suscritos[1] son iguales.',
    'eventos_suscritos',
  ],
  [
    'minProperties (PATCH con {})',
    [e('/body', 'must NOT have fewer than 1 properties', 'minProperties')],
    'El cuerpo de la solicitud no puede estar vacío: debe incluir al menos un campo.',
    'cuerpo',
  ],
  [
    'minProperties n anidado',
    [e('/body/impuestos', 'must NOT have fewer than 2 properties', 'minProperties')],
    'El campo impuestos debe incluir al menos 2 campos.',
    'impuestos',
  ],
  [
    'maxProperties',
    [e('/body', 'must NOT have more than 1 properties', 'maxProperties')],
    'El cuerpo de la solicitud debe incluir como máximo un campo.',
    'cuerpo',
  ],
  ['not', [e('/body/rfc', 'must NOT be valid', 'not')], 'El campo rfc tiene un valor no permitido.', 'rfc'],
  [
    'readOnly',
    [e('/body/id', 'is read-only', 'readOnly')],
    'El campo id es de solo lectura: no se envía.',
    'id',
  ],
  // anyOf (Cantidad: decimal text or a number > 0): what to tell depends on which branch got past its type.
  [
    'anyOf, número fuera de rango',
    [
      e('/body/conceptos/0/cantidad', 'must be string', 'type'),
      e('/body/conceptos/0/cantidad', 'must be >= 0.000001', 'minimum'),
      e('/body/conceptos/0/cantidad', 'must match a schema in anyOf', 'anyOf'),
    ],
    'El campo conceptos[0].cantidad debe ser mayor o igual que 0.000001.',
    'conceptos[0].cantidad',
  ],
  [
    'anyOf, texto que no es decimal',
    [
      e('/body/conceptos/0/cantidad', 'must match pattern "^[0-9]+(\\.[0-9]{1,6})?$"', 'pattern'),
      e('/body/conceptos/0/cantidad', 'must be number', 'type'),
      e('/body/conceptos/0/cantidad', 'must match a schema in anyOf', 'anyOf'),
    ],
    'El campo conceptos[0].cantidad no tiene el formato esperado (patrón ^[0-9]+(\\.[0-9]{1,6})?$).',
    'conceptos[0].cantidad',
  ],
  [
    'anyOf, ningún tipo',
    [
      e('/body/conceptos/0/cantidad', 'must be string', 'type'),
      e('/body/conceptos/0/cantidad', 'must be number', 'type'),
      e('/body/conceptos/0/cantidad', 'must match a schema in anyOf', 'anyOf'),
    ],
    'El campo conceptos[0].cantidad debe ser texto o un número.',
    'conceptos[0].cantidad',
  ],
  [
    'anyOf, varias ramas fallan en concreto',
    [
      e('/body/clave', 'must match pattern "^[A-Z]{3}$"', 'pattern'),
      e('/body/clave', 'must match pattern "^[0-9]{3}$"', 'pattern'),
      e('/body/clave', 'must match a schema in anyOf', 'anyOf'),
    ],
    'El campo clave no coincide con ninguna de las formas permitidas.',
    'clave',
  ],
  [
    'oneOf que coincide con dos formas',
    [e('/body/pago', 'must match exactly one schema in oneOf', 'oneOf')],
    'El campo pago debe coincidir con una sola de las formas permitidas.',
    'pago',
  ],
  // Errors the validator raises without an ajv keyword.
  [
    'parámetro de consulta desconocido',
    [e('/query/limit', "Unknown query parameter 'limit'")],
    'El parámetro de consulta limit no existe en esta ruta.',
    'limit',
  ],
  [
    'parámetro de consulta vacío',
    [e('/query/cliente', "Empty value found for query parameter 'cliente'")],
    'El parámetro cliente no puede estar vacío.',
    'cliente',
  ],
  [
    'caracteres reservados en la consulta',
    [e('/query/q', "Parameter 'q' must be url encoded. Its value may not contain reserved characters.")],
    "El parámetro q debe ir codificado en la URL: su valor no puede llevar caracteres reservados (: / ? # [ ] @ ! $ & ' ( ) * + , ; =) sin codificar.",
    'q',
  ],
  [
    'discriminador',
    [e('/v1/pagos', "'tipo' must be equal to one of the allowed values: a, b.")],
    'El campo tipo debe ser uno de estos valores: a, b.',
    'tipo',
  ],
  [
    'URL mal codificada',
    [e('/v1/facturas/fac_%ZZ', "malformed uri'")],
    'La URL tiene una secuencia de escape (%) no válida.',
    undefined,
  ],
  [
    'multipart sin boundary',
    [e('/v1/certificados', 'multipart file(s) required')],
    'El cuerpo multipart/form-data no se puede leer: falta el boundary en Content-Type.',
    'cuerpo',
  ],
  [
    'multipart con demasiados campos',
    [e('/v1/certificados', 'Too many fields')],
    'El cuerpo multipart/form-data tiene demasiados campos.',
    'cuerpo',
  ],
  [
    'multipart con un valor demasiado largo',
    [e('/v1/certificados', 'Field value too long')],
    'El cuerpo multipart/form-data tiene un campo con un valor demasiado largo.',
    'cuerpo',
  ],
  [
    'multipart con una parte sin nombre',
    [e('/v1/certificados', 'Field name missing')],
    'El cuerpo multipart/form-data tiene una parte sin nombre de campo.',
    'cuerpo',
  ],
  // Whatever else: a Spanish sentence that agrees with its subject, never the English text.
  [
    'palabra clave desconocida en un campo',
    [e('/body/rfc', 'must match "then" schema', 'if')],
    'El campo rfc no es válido.',
    'rfc',
  ],
  [
    'error desconocido sin ubicación',
    [e('/v1/cuenta', 'something odd')],
    'La solicitud no es válida.',
    undefined,
  ],
  ['lista vacía', [], 'La solicitud no es válida.', undefined],
];

describe('mensajes de validación en español', () => {
  it.each(casos)('%s', (_nombre, errores, mensaje, parametro) => {
    const r = mensajeValidacion(errores);
    expect(r.mensaje).toBe(mensaje);
    expect(r.parametro).toBe(parametro);
  });

  it.each(casos)('%s: una oración en español, sin inglés del validador', (_nombre, errores) => {
    const { mensaje, parametro } = mensajeValidacion(errores);
    expect(mensaje).toMatch(/^[A-ZÁÉÍÓÚÑ].*\.$/);
    // The field names and patterns it quotes may be anything; the rest must be Spanish.
    const sinCitas = mensaje
      .replace(/\(patrón .*\)/, '')
      .replace(/ (de consulta|de ruta|campo|parámetro|encabezado) \S+/g, ' $1')
      .replace(parametro ?? '\u0000', '');
    expect(sinCitas).not.toMatch(INGLES);
  });

  it('nunca dice "no es válido" de un sujeto femenino', () => {
    for (const [, errores] of casos)
      expect(mensajeValidacion(errores).mensaje).not.toMatch(/La \S+ no es válido\b/);
  });
});

describe('patrones dichos en palabras', () => {
  it('son los de openapi.yaml: un cambio del contrato no deja un mensaje que ya no le corresponde', () => {
    const doc = parse(readFileSync(join(__dirname, '..', '..', 'openapi.yaml'), 'utf8')) as {
      components: { schemas: Record<string, { pattern?: string }> };
    };
    expect(doc.components.schemas.Rfc!.pattern).toBe(PATRON_RFC);
    expect(doc.components.schemas.CodigoPostal!.pattern).toBe(PATRON_CODIGO_POSTAL);
  });
});

describe('parametro: la convención', () => {
  it.each([
    ['/body/conceptos/0/cantidad', 'conceptos[0].cantidad'],
    ['/body/relaciones/1/uuids/0', 'relaciones[1].uuids[0]'],
    ['/body', 'cuerpo'],
    ['/query/paginacion.limite', 'paginacion.limite'],
    ['/params/id', 'id'],
    ['/headers/clave-idempotencia', 'Clave-Idempotencia'],
    ['/body/a~1b', 'a/b'],
    ['/v1/certificados', undefined],
    [undefined, undefined],
  ])('%s → %s', (ruta, parametro) => {
    expect(parametroValidacion(ruta)).toBe(parametro);
  });
});

describe('aApiError usa los mensajes de validación', () => {
  it('PATCH con {} responde un mensaje claro con parametro cuerpo', () => {
    const err = aApiError({
      status: 400,
      errors: [e('/body', 'must NOT have fewer than 1 properties', 'minProperties')],
    });
    expect(err.toJSON()).toEqual({
      error: {
        tipo: 'solicitud_invalida',
        codigo: 'parametro_invalido',
        mensaje: 'El cuerpo de la solicitud no puede estar vacío: debe incluir al menos un campo.',
        parametro: 'cuerpo',
      },
    });
  });

  it('combina las ramas de un anyOf', () => {
    const err = aApiError({
      status: 400,
      errors: [
        e('/body/conceptos/0/cantidad', 'must be string', 'type'),
        e('/body/conceptos/0/cantidad', 'must be >= 0.000001', 'minimum'),
        e('/body/conceptos/0/cantidad', 'must match a schema in anyOf', 'anyOf'),
      ],
    });
    expect(err.message).toBe('El campo conceptos[0].cantidad debe ser mayor o igual que 0.000001.');
    expect(err.parametro).toBe('conceptos[0].cantidad');
  });

  it('un 400 del validador sin errores dice "La solicitud no es válida." sin parametro', () => {
    const err = aApiError({ status: 400, errors: [] });
    expect(err.message).toBe('La solicitud no es válida.');
    expect(err.parametro).toBeUndefined();
  });

  it('una URL mal codificada no inventa un parametro con la ruta', () => {
    const err = aApiError({ status: 400, errors: [e('/v1/organizaciones/%E0%A4%A', "malformed uri'")] });
    expect(err.codigo).toBe('parametro_invalido');
    expect(err.parametro).toBeUndefined();
  });

  it('solo el 400 pasa por los mensajes de validación', () => {
    const err = aApiError({ status: 415, errors: [e('/v1/cuenta', 'unsupported media type undefined')] });
    expect(err.codigo).toBe('tipo_de_contenido_no_soportado');
    expect(err.message).not.toMatch(INGLES);
  });
});
