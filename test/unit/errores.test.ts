import { ApiError } from '../../api/errores';
import { aApiError } from '../../api/middleware/manejador-errores';

describe('mapeo central de errores', () => {
  it('deja pasar un ApiError tal cual', () => {
    const e = new ApiError('conflicto', 'factura_no_es_borrador', 'Solo se timbran borradores.', 'id');
    expect(aApiError(e)).toBe(e);
    expect(e.status).toBe(409);
    expect(e.toJSON()).toEqual({
      error: {
        tipo: 'conflicto',
        codigo: 'factura_no_es_borrador',
        mensaje: 'Solo se timbran borradores.',
        parametro: 'id',
      },
    });
  });

  it('traduce un error del validador OpenAPI y nombra el parámetro', () => {
    const e = aApiError({
      status: 400,
      errors: [
        {
          path: '/body/conceptos/0/cantidad',
          message: "must have required property 'cantidad'",
          errorCode: 'required.openapi.validation',
        },
      ],
    });
    expect(e.status).toBe(400);
    expect(e.codigo).toBe('parametro_invalido');
    expect(e.parametro).toBe('conceptos[0].cantidad');
    expect(e.message).toBe('Falta el campo obligatorio conceptos[0].cantidad.');
  });

  it.each([
    [
      'pattern.openapi.validation',
      'must match pattern "^[0-9]{5}$"',
      '/body/codigo_postal',
      'El campo codigo_postal debe tener 5 dígitos.',
    ],
    ['type.openapi.validation', 'must be string', '/body/nombre', 'El campo nombre debe ser texto.'],
    [
      'format.openapi.validation',
      'must match format "byte"',
      '/body/cer',
      'El campo cer debe ir en base64 estándar (con relleno =).',
    ],
    [
      'enum.openapi.validation',
      'must be equal to one of the allowed values: test, live',
      '/body/modo',
      'El campo modo debe ser uno de estos valores: test, live.',
    ],
    [
      'additionalProperties.openapi.validation',
      'must NOT have additional properties',
      '/body/rfc',
      'El campo rfc no está permitido en esta solicitud.',
    ],
    [
      'maxLength.openapi.validation',
      'must NOT have more than 13 characters',
      '/body/rfc',
      'El campo rfc debe tener como máximo 13 caracteres.',
    ],
    [
      'minItems.openapi.validation',
      'must NOT have fewer than 1 items',
      '/body/conceptos',
      'El campo conceptos debe tener al menos un elemento.',
    ],
    [
      'maximum.openapi.validation',
      'must be <= 100',
      '/query/paginacion.limite',
      'El parámetro paginacion.limite debe ser menor o igual que 100.',
    ],
    [
      undefined,
      "Unknown query parameter 'limit'",
      '/query/limit',
      'El parámetro de consulta limit no existe en esta ruta.',
    ],
  ])('explica en español el error %s', (errorCode, message, path, esperado) => {
    const e = aApiError({ status: 400, errors: [{ errorCode, message, path }] });
    expect(e.message).toBe(esperado);
  });

  it('convierte JSON inválido en 400 json_invalido', () => {
    expect(aApiError({ type: 'entity.parse.failed', status: 400 }).codigo).toBe('json_invalido');
  });

  it('oculta los detalles internos de un error desconocido', () => {
    const e = aApiError(new Error('ER_NO_SUCH_TABLE: tabla secreta'));
    expect(e.status).toBe(500);
    expect(JSON.stringify(e.toJSON())).not.toContain('tabla');
  });
});
