import { aApiError } from '../../api/middleware/manejador-errores';
import { ErrorNegocio } from '../../dominio/errores';
import { errorDeViolaciones } from '../../servicios/violaciones';

describe('errorDeViolaciones', () => {
  it('keeps the first code and field and lists every violation in the message', () => {
    const e = errorDeViolaciones([
      { codigo: 'rfc_invalido', mensaje: 'El RFC no es válido.', parametro: 'rfc' },
      {
        codigo: 'regimen_no_aplica',
        mensaje: 'El régimen 605 no aplica a personas morales.',
        parametro: 'regimen_fiscal',
      },
    ]);
    expect(e).toBeInstanceOf(ErrorNegocio);
    expect(e.tipo).toBe('regla_de_negocio');
    // The API shows the business kind as a 422.
    const api = aApiError(e);
    expect(api.status).toBe(422);
    expect(api.toJSON().error).toEqual({
      tipo: 'regla_de_negocio',
      codigo: 'rfc_invalido',
      mensaje: 'El RFC no es válido. También: El régimen 605 no aplica a personas morales.',
      parametro: 'rfc',
    });
  });

  it('a single violation is its own message', () => {
    const e = errorDeViolaciones([{ codigo: 'x', mensaje: 'Uno.', parametro: 'p' }]);
    expect(e.message).toBe('Uno.');
  });
});
