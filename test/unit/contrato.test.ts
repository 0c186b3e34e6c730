import { validarRespuesta } from '../support/contrato';

// The integration tests trust this checker with every response: prove it rejects what the contract forbids.
describe('validación de respuestas contra openapi.yaml', () => {
  const error = { error: { tipo: 'no_encontrado', codigo: 'cliente_no_encontrado', mensaje: 'y' } };

  it('acepta un sobre de error válido y rechaza uno incompleto', () => {
    expect(() => validarRespuesta('GET', '/v1/clientes/cli_x', 404, error)).not.toThrow();
    expect(() =>
      validarRespuesta('GET', '/v1/clientes/cli_x', 404, { error: { tipo: 'no_encontrado' } }),
    ).toThrow(/no cumple openapi.yaml/);
  });

  it('rechaza un tipo de error fuera del catálogo', () => {
    const malo = { error: { ...error.error, tipo: 'otro' } };
    expect(() => validarRespuesta('GET', '/v1/clientes/cli_x', 404, malo)).toThrow(/no cumple/);
  });

  it('rechaza rutas, métodos y estados que el contrato no documenta', () => {
    expect(() => validarRespuesta('GET', '/v1/no-existe', 200, {})).toThrow(/no documenta/);
    expect(() => validarRespuesta('PUT', '/v1/clientes', 200, {})).toThrow(/no documenta/);
  });

  it('rechaza una lista sin paginación', () => {
    expect(() => validarRespuesta('GET', '/v1/organizaciones', 200, { objeto: 'lista', datos: [] })).toThrow(
      /no cumple/,
    );
  });
});

describe('códigos de error por operación (x-codigos-error)', () => {
  it('acepta un código que la operación declara y rechaza uno que no', () => {
    const sobre = (codigo: string) => ({ error: { tipo: 'no_encontrado', codigo, mensaje: 'y' } });
    expect(() =>
      validarRespuesta('GET', '/v1/clientes/cli_x', 404, sobre('cliente_no_encontrado')),
    ).not.toThrow();
    expect(() => validarRespuesta('GET', '/v1/clientes/cli_x', 404, sobre('pago_no_encontrado'))).toThrow(
      /fuera de CodigosErrorObtenerCliente/,
    );
  });
});
