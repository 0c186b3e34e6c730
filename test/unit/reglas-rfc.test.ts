import { personaDeRfc, validarRfc } from '../../cfdi/reglas';

const codigos = (rfc: string) => validarRfc(rfc, 'rfc').map((v) => v.codigo);

describe('personaDeRfc', () => {
  it('12 characters are a persona moral, 13 a persona física', () => {
    expect(personaDeRfc('EKU9003173C9')).toBe('moral');
    expect(personaDeRfc('XIQB891116QE4')).toBe('fisica');
    expect(personaDeRfc('XAXX010101000')).toBe('fisica');
    expect(personaDeRfc('ABC')).toBeNull();
  });
});

describe('validarRfc', () => {
  it('accepts well-formed RFCs of both lengths', () => {
    expect(validarRfc('EKU9003173C9')).toEqual([]);
    expect(validarRfc('XIQB891116QE4')).toEqual([]);
  });

  it('accepts the generic RFCs', () => {
    expect(validarRfc('XAXX010101000')).toEqual([]);
    expect(validarRfc('XEXX010101000')).toEqual([]);
  });

  it('accepts Ñ and & in the name part', () => {
    expect(validarRfc('H&E951128469')).toEqual([]);
    expect(validarRfc('ÑAÑ850101AB1')).toEqual([]);
    expect(validarRfc('MUÑO800101AB1')).toEqual([]);
  });

  it('rejects wrong lengths, naming the parameter', () => {
    expect(validarRfc('EKU9003173C', 'receptor.rfc')).toEqual([
      expect.objectContaining({ codigo: 'rfc_invalido', parametro: 'receptor.rfc' }),
    ]);
    expect(codigos('XIQB891116QE45')).toEqual(['rfc_invalido']);
    expect(codigos('')).toEqual(['rfc_invalido']);
  });

  it('rejects lowercase, saying so', () => {
    const [v] = validarRfc('eku9003173c9');
    expect(v?.codigo).toBe('rfc_invalido');
    expect(v?.mensaje).toMatch(/mayúsculas/);
    expect(codigos('xiqb891116qe4')).toEqual(['rfc_invalido']);
  });

  it('rejects a layout that does not fit the pattern', () => {
    expect(codigos('EK19003173C9')).toEqual(['rfc_invalido']); // digit among the letters
    expect(codigos('EKU9003173CB')).toEqual(['rfc_invalido']); // check digit must be 0-9 or A
    expect(codigos('EKU9003173CA')).toEqual([]);
    expect(codigos('EKU900317-C9')).toEqual(['rfc_invalido']);
    expect(codigos(' EKU9003173C')).toEqual(['rfc_invalido']);
  });

  it('rejects dates that are not on the calendar', () => {
    expect(codigos('EKU9913323C9')).toEqual(['rfc_fecha_invalida']); // 991332
    expect(codigos('XIQB991332QE4')).toEqual(['rfc_fecha_invalida']);
    expect(codigos('EKU9000003C9')).toEqual(['rfc_fecha_invalida']); // month 00
    expect(codigos('EKU9004313C9')).toEqual(['rfc_fecha_invalida']); // April 31
    expect(codigos('EKU9902293C9')).toEqual(['rfc_fecha_invalida']); // 1999-02-29
    expect(codigos('EKU0002293C9')).toEqual([]); // 2000-02-29
    expect(codigos('EKU9602293C9')).toEqual([]); // 1996-02-29
  });
});
