import {
  normalizarPrecio,
  validarClaveProdServ,
  validarClaveUnidad,
  validarCodigoPostal,
  validarPrecioUnitario,
} from '../../cfdi/reglas';
import { catalogosCsv } from '../support/catalogos-csv';

const catalogos = catalogosCsv('2026-06-01');

describe('validarPrecioUnitario', () => {
  it('accepts non-negative decimals with up to 6 decimals', () => {
    for (const valor of ['1500', '1500.00', '0', '0.000001', '12.123456', '999999999999999999.999999']) {
      expect(validarPrecioUnitario(valor)).toEqual([]);
    }
  });

  it('rejects more than 6 decimals, signs, exponents and other spellings', () => {
    for (const valor of ['1.1234567', '-1', '-0.50', '1e3', '+5', '1,500.00', '.5', '5.', ' 5', '', 'abc']) {
      expect(validarPrecioUnitario(valor, 'conceptos[0].valor_unitario')).toEqual([
        expect.objectContaining({ codigo: 'precio_invalido', parametro: 'conceptos[0].valor_unitario' }),
      ]);
    }
    expect(validarPrecioUnitario('1234567890123456789')).toHaveLength(1);
  });
});

describe('normalizarPrecio', () => {
  it('writes 6 decimals', () => {
    expect(normalizarPrecio('1500')).toBe('1500.000000');
    expect(normalizarPrecio('0.5')).toBe('0.500000');
    expect(normalizarPrecio('12.123456')).toBe('12.123456');
  });

  it('refuses an invalid price', () => {
    expect(() => normalizarPrecio('1e3')).toThrow();
  });
});

describe('validarCodigoPostal', () => {
  it('accepts catalog postal codes', () => {
    expect(validarCodigoPostal('06600', catalogos)).toEqual([]);
    expect(validarCodigoPostal('44100', catalogos)).toEqual([]);
  });

  it('rejects unknown codes, with CFDI40126 only for the issuer', () => {
    expect(validarCodigoPostal('00000', catalogos)).toEqual([
      expect.objectContaining({
        codigo: 'codigo_postal_invalido',
        parametro: 'codigo_postal',
        sat: 'CFDI40126',
      }),
    ]);
    const [receptor] = validarCodigoPostal('6600', catalogos, 'domicilio_fiscal', 'receptor');
    expect(receptor).toEqual(
      expect.objectContaining({ codigo: 'codigo_postal_invalido', parametro: 'domicilio_fiscal' }),
    );
    expect(receptor?.sat).toBeUndefined();
  });
});

describe('validarClaveProdServ / validarClaveUnidad', () => {
  it('accept catalog codes', () => {
    expect(validarClaveProdServ('84111506', catalogos)).toEqual([]);
    expect(validarClaveProdServ('01010101', catalogos)).toEqual([]);
    expect(validarClaveUnidad('E48', catalogos)).toEqual([]);
    expect(validarClaveUnidad('H87', catalogos)).toEqual([]);
  });

  it('reject unknown and expired product codes', () => {
    expect(validarClaveProdServ('99999999', catalogos)).toEqual([
      expect.objectContaining({
        codigo: 'clave_prod_serv_invalida',
        parametro: 'clave_prod_serv',
        sat: 'CFDI40162',
      }),
    ]);
    // 15101506 (Gasolina) ended its vigencia in 2020.
    expect(validarClaveProdServ('15101506', catalogos)).toHaveLength(1);
  });

  it('reject unknown unit codes', () => {
    expect(validarClaveUnidad('ZZZ', catalogos)).toEqual([
      expect.objectContaining({
        codigo: 'clave_unidad_invalida',
        parametro: 'clave_unidad',
        sat: 'CFDI40165',
      }),
    ]);
    expect(validarClaveUnidad('e48', catalogos)).toHaveLength(1);
  });
});
