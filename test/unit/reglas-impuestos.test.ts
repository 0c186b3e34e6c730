import { normalizarTasa, validarImpuestos, type LineaImpuesto } from '../../cfdi/reglas';
import { catalogosCsv } from '../support/catalogos-csv';

const catalogos = catalogosCsv('2026-06-01');

const IVA16: LineaImpuesto = { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' };

/** Errors of a product with objeto_imp 02 and just this traslado or retención. */
const traslado = (linea: LineaImpuesto, cat = catalogos) =>
  validarImpuestos('02', { traslados: [linea] }, cat);
const retencion = (linea: LineaImpuesto, cat = catalogos) =>
  validarImpuestos('02', { traslados: [IVA16], retenciones: [linea] }, cat);
const tasa = (impuesto: string, tipo_factor: string, tasa_o_cuota: string): LineaImpuesto => ({
  impuesto,
  tipo_factor,
  tasa_o_cuota,
});
const codigos = (errores: { codigo: string }[]) => errores.map((e) => e.codigo);

describe('objeto_imp', () => {
  it('accepts 01 to 08 from the catalog', () => {
    expect(validarImpuestos('01', undefined, catalogos)).toEqual([]);
    expect(validarImpuestos('03', { traslados: [], retenciones: [] }, catalogos)).toEqual([]);
    expect(validarImpuestos('04', null, catalogos)).toEqual([]);
    expect(validarImpuestos('08', {}, catalogos)).toEqual([]);
  });

  it('rejects codes outside the catalog', () => {
    for (const objeto of ['00', '09', '2', 'xx']) {
      expect(validarImpuestos(objeto, undefined, catalogos)).toEqual([
        expect.objectContaining({ codigo: 'objeto_imp_invalido', parametro: 'objeto_imp', sat: 'CFDI40170' }),
      ]);
    }
  });

  it('02 requires at least one traslado or retención', () => {
    for (const impuestos of [undefined, null, {}, { traslados: [], retenciones: [] }]) {
      expect(validarImpuestos('02', impuestos, catalogos)).toEqual([
        expect.objectContaining({
          codigo: 'impuestos_requeridos',
          parametro: 'impuestos_default',
          sat: 'CFDI40171',
        }),
      ]);
    }
    expect(validarImpuestos('02', { traslados: [IVA16] }, catalogos)).toEqual([]);
    const isr = tasa('001', 'Tasa', '0.100000');
    expect(validarImpuestos('02', { retenciones: [isr] }, catalogos)).toEqual([]);
  });

  it('01 and 03 forbid taxes', () => {
    for (const objeto of ['01', '03']) {
      expect(validarImpuestos(objeto, { traslados: [IVA16] }, catalogos)).toEqual([
        expect.objectContaining({ codigo: 'impuestos_no_permitidos', sat: 'CFDI40172' }),
      ]);
    }
  });

  it('uses the parameter names given by the caller', () => {
    expect(validarImpuestos('01', { traslados: [IVA16] }, catalogos, 'conceptos[1].impuestos')).toEqual([
      expect.objectContaining({ parametro: 'conceptos[1].impuestos' }),
    ]);
    expect(validarImpuestos('99', undefined, catalogos, 'x', 'conceptos[1].objeto_imp')).toEqual([
      expect.objectContaining({ parametro: 'conceptos[1].objeto_imp' }),
    ]);
  });
});

describe('tax lines', () => {
  it('IVA traslado Tasa 0.160000, 0.080000 and 0.000000 are allowed', () => {
    for (const valor of ['0.160000', '0.080000', '0.000000']) {
      expect(traslado(tasa('002', 'Tasa', valor))).toEqual([]);
    }
  });

  it('IVA traslado Tasa with any other value is not', () => {
    const errores = traslado(tasa('002', 'Tasa', '0.150000'));
    expect(errores).toEqual([
      expect.objectContaining({
        codigo: 'tasa_no_permitida',
        parametro: 'impuestos_default.traslados[0].tasa_o_cuota',
        sat: 'CFDI40179',
      }),
    ]);
    expect(errores[0]?.mensaje).toMatch(/0\.000000, 0\.080000, 0\.160000/);
  });

  it('IVA retención is a range from 0 to 0.160000, both ends included', () => {
    for (const valor of ['0.106667', '0.040000', '0.000000', '0.160000']) {
      expect(retencion(tasa('002', 'Tasa', valor))).toEqual([]);
    }
    expect(retencion(tasa('002', 'Tasa', '0.160001'))).toEqual([
      expect.objectContaining({
        codigo: 'tasa_no_permitida',
        parametro: 'impuestos_default.retenciones[0].tasa_o_cuota',
        sat: 'CFDI40185',
      }),
    ]);
  });

  it('ISR retención Tasa within 0–0.350000 is allowed; above, or as Cuota, is not', () => {
    expect(retencion(tasa('001', 'Tasa', '0.100000'))).toEqual([]);
    expect(retencion(tasa('001', 'Tasa', '0.012500'))).toEqual([]);
    expect(codigos(retencion(tasa('001', 'Tasa', '0.400000')))).toEqual(['tasa_no_permitida']);
    expect(codigos(retencion(tasa('001', 'Cuota', '0.100000')))).toEqual(['tasa_no_permitida']);
  });

  it('ISR cannot be transferred', () => {
    expect(traslado(tasa('001', 'Tasa', '0.100000'))).toEqual([
      expect.objectContaining({
        codigo: 'impuesto_invalido',
        parametro: 'impuestos_default.traslados[0].impuesto',
      }),
    ]);
  });

  it('IEPS Tasa follows the fixed list, some values only for traslados', () => {
    expect(traslado(tasa('003', 'Tasa', '0.265000'))).toEqual([]);
    expect(retencion(tasa('003', 'Tasa', '0.265000'))).toEqual([]);
    expect(traslado(tasa('003', 'Tasa', '1.600000'))).toEqual([]);
    expect(traslado(tasa('003', 'Tasa', '0.030000'))).toEqual([]);
    expect(codigos(retencion(tasa('003', 'Tasa', '0.030000')))).toEqual(['tasa_no_permitida']);
    expect(codigos(traslado(tasa('003', 'Tasa', '0.100000')))).toEqual(['tasa_no_permitida']);
  });

  it('IEPS Cuota is a range 0–72.160500 since 2026', () => {
    expect(traslado(tasa('003', 'Cuota', '6.170000'))).toEqual([]);
    expect(retencion(tasa('003', 'Cuota', '72.160500'))).toEqual([]);
    expect(codigos(traslado(tasa('003', 'Cuota', '72.160501')))).toEqual(['tasa_no_permitida']);
    // Before the row's vigencia_desde, the catalog has no IEPS Cuota rule at all.
    const en2025 = catalogosCsv('2025-12-31');
    const errores = traslado(tasa('003', 'Cuota', '6.170000'), en2025);
    expect(codigos(errores)).toEqual(['tasa_no_permitida']);
    expect(errores[0]?.mensaje).toMatch(/no permite/);
  });

  it('IVA Cuota is not in the catalog', () => {
    expect(codigos(traslado(tasa('002', 'Cuota', '1.000000')))).toEqual(['tasa_no_permitida']);
  });

  it('Exento IVA traslado is allowed without tasa_o_cuota', () => {
    expect(traslado({ impuesto: '002', tipo_factor: 'Exento' })).toEqual([]);
    expect(traslado({ impuesto: '002', tipo_factor: 'Exento', tasa_o_cuota: null })).toEqual([]);
  });

  it('Exento with tasa_o_cuota is rejected', () => {
    expect(traslado(tasa('002', 'Exento', '0.000000'))).toEqual([
      expect.objectContaining({
        codigo: 'exento_con_tasa',
        parametro: 'impuestos_default.traslados[0].tasa_o_cuota',
        sat: 'CFDI40177',
      }),
    ]);
  });

  it('Exento retenciones are rejected', () => {
    expect(retencion({ impuesto: '002', tipo_factor: 'Exento' })).toEqual([
      expect.objectContaining({
        codigo: 'exento_en_retencion',
        parametro: 'impuestos_default.retenciones[0].tipo_factor',
        sat: 'CFDI40184',
      }),
    ]);
  });

  it('rejects impuestos outside c_Impuesto', () => {
    expect(traslado(tasa('004', 'Tasa', '0.160000'))).toEqual([
      expect.objectContaining({ codigo: 'impuesto_invalido', sat: 'CFDI40175' }),
    ]);
    expect(retencion(tasa('IVA', 'Tasa', '0.160000'))).toEqual([
      expect.objectContaining({ codigo: 'impuesto_invalido', sat: 'CFDI40182' }),
    ]);
    expect(codigos(traslado(tasa('toString', 'Tasa', '0.160000')))).toEqual(['impuesto_invalido']);
  });

  it('rejects tipos de factor outside c_TipoFactor', () => {
    expect(traslado(tasa('002', 'tasa', '0.160000'))).toEqual([
      expect.objectContaining({
        codigo: 'tipo_factor_invalido',
        parametro: 'impuestos_default.traslados[0].tipo_factor',
        sat: 'CFDI40176',
      }),
    ]);
    expect(retencion(tasa('002', 'Porcentaje', '0.100000'))).toEqual([
      expect.objectContaining({ codigo: 'tipo_factor_invalido', sat: 'CFDI40183' }),
    ]);
  });

  it('requires tasa_o_cuota with exactly 6 decimals for Tasa and Cuota', () => {
    expect(traslado({ impuesto: '002', tipo_factor: 'Tasa' })).toEqual([
      expect.objectContaining({ codigo: 'tasa_invalida', sat: 'CFDI40178' }),
    ]);
    const sinTasa = retencion({ impuesto: '001', tipo_factor: 'Tasa' });
    expect(codigos(sinTasa)).toEqual(['tasa_invalida']);
    expect(sinTasa[0]?.sat).toBeUndefined();
    for (const valor of ['0.16', '0.1600000', '16%', '-0.160000', '1e-1', '.160000', '00.160000', '']) {
      expect(codigos(traslado(tasa('002', 'Tasa', valor)))).toEqual(['tasa_invalida']);
    }
  });

  it('reports every bad line, under its own index', () => {
    const errores = validarImpuestos(
      '02',
      {
        traslados: [IVA16, tasa('002', 'Tasa', '0.1')],
        retenciones: [tasa('001', 'Tasa', '0.100000'), { impuesto: '002', tipo_factor: 'Exento' }],
      },
      catalogos,
    );
    expect(errores.map((e) => [e.codigo, e.parametro])).toEqual([
      ['tasa_invalida', 'impuestos_default.traslados[1].tasa_o_cuota'],
      ['exento_en_retencion', 'impuestos_default.retenciones[1].tipo_factor'],
      ['impuesto_repetido', 'impuestos_default.traslados[1]'],
    ]);
  });

  it('un impuesto con el mismo tipo_factor dos veces en un concepto se rechaza (se sumaría dos veces)', () => {
    const dos = validarImpuestos('02', { traslados: [IVA16, IVA16] }, catalogos, 'conceptos[0].impuestos');
    expect(dos.map((e) => [e.codigo, e.parametro])).toEqual([
      ['impuesto_repetido', 'conceptos[0].impuestos.traslados[1]'],
    ]);
    const isr = tasa('001', 'Tasa', '0.100000');
    expect(codigos(validarImpuestos('02', { retenciones: [isr, isr] }, catalogos))).toEqual([
      'impuesto_repetido',
    ]);
    // IEPS by rate and by fixed amount on one concept (tobacco) are two different taxes, as are IVA and IEPS.
    const ieps = [tasa('003', 'Tasa', '1.600000'), tasa('003', 'Cuota', '0.350000'), IVA16];
    expect(validarImpuestos('02', { traslados: ieps }, catalogos).map((e) => e.codigo)).not.toContain(
      'impuesto_repetido',
    );
  });
});

describe('normalizarTasa', () => {
  it('writes 6 decimals', () => {
    expect(normalizarTasa('0.16')).toBe('0.160000');
    expect(normalizarTasa('0')).toBe('0.000000');
    expect(normalizarTasa('72.1605')).toBe('72.160500');
    expect(normalizarTasa('0.106667')).toBe('0.106667');
  });

  it('refuses what is not a rate', () => {
    expect(() => normalizarTasa('0.1234567')).toThrow();
    expect(() => normalizarTasa('-0.16')).toThrow();
    expect(() => normalizarTasa('1e-1')).toThrow();
  });
});
