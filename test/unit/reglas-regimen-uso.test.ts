import {
  advertenciasUsoCfdi,
  validarRegimen,
  validarRegimenRfcGenerico,
  validarUsoCfdi,
} from '../../cfdi/reglas';
import { catalogosCsv } from '../support/catalogos-csv';

const catalogos = catalogosCsv('2026-06-01');
const MORAL = 'EKU9003173C9';
const FISICA = 'XIQB891116QE4';

describe('validarRegimen', () => {
  it('601 fits a persona moral, 605 and 612 a persona física, 626 both', () => {
    expect(validarRegimen('601', MORAL, catalogos)).toEqual([]);
    expect(validarRegimen('605', FISICA, catalogos)).toEqual([]);
    expect(validarRegimen('612', FISICA, catalogos)).toEqual([]);
    expect(validarRegimen('626', MORAL, catalogos)).toEqual([]);
    expect(validarRegimen('626', FISICA, catalogos)).toEqual([]);
  });

  it('601 for a persona física is wrong, with the persona in the message (issuer codes by default)', () => {
    const [v, ...resto] = validarRegimen('601', FISICA, catalogos);
    expect(resto).toEqual([]);
    expect(v).toEqual(
      expect.objectContaining({
        codigo: 'regimen_no_aplica_persona',
        parametro: 'regimen_fiscal',
        sat: 'CFDI40141',
      }),
    );
    expect(v?.mensaje).toMatch(/persona física/);
  });

  it('605 for a persona moral is wrong, with the receiver code for clients', () => {
    const [v] = validarRegimen('605', MORAL, catalogos, 'regimen_fiscal', 'receptor');
    expect(v).toEqual(expect.objectContaining({ codigo: 'regimen_no_aplica_persona', sat: 'CFDI40158' }));
    expect(v?.mensaje).toMatch(/persona moral/);
  });

  it('rejects codes outside the catalog', () => {
    expect(validarRegimen('999', MORAL, catalogos)).toEqual([
      expect.objectContaining({ codigo: 'regimen_fiscal_invalido', sat: 'CFDI40140' }),
    ]);
    expect(validarRegimen('', MORAL, catalogos, 'x', 'receptor')).toEqual([
      expect.objectContaining({ codigo: 'regimen_fiscal_invalido', parametro: 'x', sat: 'CFDI40157' }),
    ]);
  });

  it('leaves the persona check to validarRfc when the RFC length is wrong', () => {
    expect(validarRegimen('601', 'ABC', catalogos)).toEqual([]);
  });
});

describe('validarRegimenRfcGenerico', () => {
  it('generic RFCs need 616', () => {
    expect(validarRegimenRfcGenerico('616', 'XAXX010101000')).toEqual([]);
    expect(validarRegimenRfcGenerico('616', 'XEXX010101000')).toEqual([]);
    expect(validarRegimenRfcGenerico('612', 'XAXX010101000')).toEqual([
      expect.objectContaining({ codigo: 'regimen_rfc_generico', sat: 'CFDI40159' }),
    ]);
    expect(validarRegimenRfcGenerico('612', FISICA)).toEqual([]);
  });
});

describe('validarUsoCfdi', () => {
  it('accepts catalog codes and rejects the rest', () => {
    expect(validarUsoCfdi('G03', catalogos)).toEqual([]);
    expect(validarUsoCfdi('S01', catalogos)).toEqual([]);
    expect(validarUsoCfdi('P01', catalogos)).toEqual([
      expect.objectContaining({ codigo: 'uso_cfdi_invalido', parametro: 'uso_cfdi', sat: 'CFDI40160' }),
    ]);
    expect(validarUsoCfdi('g03', catalogos)).toEqual([
      expect.objectContaining({ codigo: 'uso_cfdi_invalido' }),
    ]);
  });
});

describe('advertenciasUsoCfdi', () => {
  it('G03 with regime 612 is fine, with 605 it warns (605 is not among its regimes)', () => {
    expect(advertenciasUsoCfdi('G03', '612', FISICA, catalogos)).toEqual([]);
    const avisos = advertenciasUsoCfdi('G03', '605', FISICA, catalogos);
    expect(avisos).toEqual([
      expect.objectContaining({ codigo: 'uso_cfdi_incompatible', parametro: 'uso_cfdi', sat: 'CFDI40161' }),
    ]);
    expect(avisos[0]?.mensaje).toMatch(/605/);
  });

  it('G03 with 601 for a company is fine; 616 warns', () => {
    expect(advertenciasUsoCfdi('G03', '601', MORAL, catalogos)).toEqual([]);
    expect(advertenciasUsoCfdi('G03', '616', FISICA, catalogos)).toHaveLength(1);
  });

  it('S01 fits every regime', () => {
    for (const [regimen, rfc] of [
      ['601', MORAL],
      ['605', FISICA],
      ['612', FISICA],
      ['616', 'XAXX010101000'],
      ['626', MORAL],
    ] as const) {
      expect(advertenciasUsoCfdi('S01', regimen, rfc, catalogos)).toEqual([]);
    }
  });

  it('warns once when the use does not apply to the persona type (D01 for a company)', () => {
    const avisos = advertenciasUsoCfdi('D01', '601', MORAL, catalogos);
    expect(avisos).toEqual([expect.objectContaining({ codigo: 'uso_cfdi_incompatible', sat: 'CFDI40161' })]);
    expect(avisos[0]?.mensaje).toMatch(/persona moral/);
    expect(advertenciasUsoCfdi('D01', '612', FISICA, catalogos)).toEqual([]);
  });

  it('CN01 only goes with 605', () => {
    expect(advertenciasUsoCfdi('CN01', '605', FISICA, catalogos)).toEqual([]);
    expect(advertenciasUsoCfdi('CN01', '612', FISICA, catalogos)).toHaveLength(1);
  });

  it('says nothing about unknown codes: those are errors elsewhere', () => {
    expect(advertenciasUsoCfdi('P01', '612', FISICA, catalogos)).toEqual([]);
    expect(advertenciasUsoCfdi('G03', '999', FISICA, catalogos)).toEqual([]);
  });
});
