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
      errors: [{ path: '/body/conceptos/0/cantidad', message: "must have required property 'cantidad'" }],
    });
    expect(e.status).toBe(400);
    expect(e.codigo).toBe('parametro_invalido');
    expect(e.parametro).toBe('conceptos[0].cantidad');
    expect(e.message).toContain('conceptos[0].cantidad');
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
