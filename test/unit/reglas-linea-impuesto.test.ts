import {
  SAT_LINEA_CONCEPTO,
  validarImpuestos,
  validarLineaImpuesto,
  type LineaImpuestoEntrada,
  type PerfilLineaImpuesto,
} from '../../cfdi/reglas';
import { calcularPagos, type DocumentoPagadoEntrada } from '../../cfdi/pagos';
import { SAT_LINEA_PAGO } from '../../cfdi/pagos/validar';
import { catalogosCsv } from '../support/catalogos-csv';

// One tax-line validator serves invoice concepts and Pagos 2.0 rows. These tests pin what each caller gets
// from its profile, so that the two cannot drift into one another unnoticed.

const catalogos = catalogosCsv('2026-06-01');

const CONCEPTO: PerfilLineaImpuesto = {
  sat: SAT_LINEA_CONCEPTO,
  decimalesTasa: 'exactamente6',
  tasasPermitidas: catalogos.reglasTasaOCuota(),
};
const PAGO: PerfilLineaImpuesto = {
  sat: SAT_LINEA_PAGO,
  decimalesTasa: 'hasta6',
  montos: { importeRequerido: false },
};
const PAGO_PRORRATEADO: PerfilLineaImpuesto = { ...PAGO, montos: { importeRequerido: true } };

const iva = (
  tasa_o_cuota?: string | null,
  extra: Partial<LineaImpuestoEntrada> = {},
): LineaImpuestoEntrada => ({
  impuesto: '002',
  tipo_factor: 'Tasa',
  tasa_o_cuota,
  ...extra,
});
const enPago = (linea: LineaImpuestoEntrada) => ({ base: '1000.00', ...linea });
const resumen = (errores: { codigo: string; parametro: string; sat?: string }[]) =>
  errores.map(({ codigo, parametro, sat }) => ({ codigo, parametro, sat }));

describe('validarLineaImpuesto: concept profile vs payment profile', () => {
  it('a rate with fewer than 6 decimals: refused for concepts, accepted for payments', () => {
    for (const valor of ['0.16', '0.1', '0']) {
      const errores = validarLineaImpuesto(iva(valor), 'traslado', 'l', CONCEPTO);
      expect(resumen(errores)).toEqual([
        { codigo: 'tasa_invalida', parametro: 'l.tasa_o_cuota', sat: undefined },
      ]);
      expect(errores[0]?.mensaje).toContain('exactamente 6 decimales');
      expect(validarLineaImpuesto(enPago(iva(valor)), 'traslado', 'l', PAGO)).toEqual([]);
    }
  });

  it('more than 6 decimals: refused by both, each in its own words', () => {
    const concepto = validarLineaImpuesto(iva('0.1600000'), 'traslado', 'l', CONCEPTO);
    const pago = validarLineaImpuesto(enPago(iva('0.1600000')), 'traslado', 'l', PAGO);
    expect(resumen(concepto)).toEqual(resumen(pago));
    expect(concepto[0]?.mensaje).toContain('exactamente 6 decimales');
    expect(pago[0]?.mensaje).toContain('hasta 6 decimales');
  });

  it('c_TasaOCuota is checked for concepts only', () => {
    // 0.170000 is well written but no IVA traslado rate; 0.500000 is above the IVA retención range.
    expect(resumen(validarLineaImpuesto(iva('0.170000'), 'traslado', 'l', CONCEPTO))).toEqual([
      { codigo: 'tasa_no_permitida', parametro: 'l.tasa_o_cuota', sat: 'CFDI40179' },
    ]);
    expect(resumen(validarLineaImpuesto(iva('0.500000'), 'retencion', 'l', CONCEPTO))).toEqual([
      { codigo: 'tasa_no_permitida', parametro: 'l.tasa_o_cuota', sat: 'CFDI40185' },
    ]);
    expect(validarLineaImpuesto(enPago(iva('0.170000')), 'traslado', 'l', PAGO)).toEqual([]);
    expect(validarLineaImpuesto(enPago(iva('0.500000')), 'retencion', 'l', PAGO)).toEqual([]);
  });

  it("the same broken line carries each profile's SAT codes", () => {
    const casos: [LineaImpuestoEntrada, 'traslado' | 'retencion', string, string][] = [
      [iva('0.160000', { impuesto: '004' }), 'traslado', 'CFDI40175', 'CRP20256'],
      [iva('0.160000', { impuesto: '004' }), 'retencion', 'CFDI40182', 'CRP20250'],
      [iva('0.160000', { tipo_factor: 'tasa' }), 'traslado', 'CFDI40176', 'CRP20257'],
      [iva('0.160000', { tipo_factor: 'tasa' }), 'retencion', 'CFDI40183', 'CRP20251'],
      [iva('0.000000', { tipo_factor: 'Exento' }), 'traslado', 'CFDI40177', 'CRP20258'],
      [iva(undefined, { tipo_factor: 'Exento' }), 'retencion', 'CFDI40184', 'CRP20252'],
    ];
    for (const [linea, clase, concepto, pago] of casos) {
      expect(validarLineaImpuesto(linea, clase, 'l', CONCEPTO).map((v) => v.sat)).toEqual([concepto]);
      expect(validarLineaImpuesto(enPago(linea), clase, 'l', PAGO).map((v) => v.sat)).toEqual([pago]);
    }
  });

  it('a missing rate has a SAT code only in concept traslados', () => {
    expect(validarLineaImpuesto(iva(null), 'traslado', 'l', CONCEPTO).map((v) => v.sat)).toEqual([
      'CFDI40178',
    ]);
    expect(validarLineaImpuesto(iva(null), 'retencion', 'l', CONCEPTO).map((v) => v.sat)).toEqual([
      undefined,
    ]);
    expect(validarLineaImpuesto(enPago(iva(null)), 'traslado', 'l', PAGO).map((v) => v.sat)).toEqual([
      undefined,
    ]);
  });

  it('Base and Importe are read only by the payment profile', () => {
    const sinBase = iva('0.160000', { base: '0', importe: 'x' });
    expect(validarLineaImpuesto(sinBase, 'traslado', 'l', CONCEPTO)).toEqual([]);
    expect(resumen(validarLineaImpuesto(sinBase, 'traslado', 'l', PAGO))).toEqual([
      { codigo: 'base_invalida', parametro: 'l.base', sat: 'CRP20255' },
      { codigo: 'importe_invalido', parametro: 'l.importe', sat: undefined },
    ]);
    expect(resumen(validarLineaImpuesto(enPago(iva('0.160000')), 'traslado', 'l', PAGO_PRORRATEADO))).toEqual(
      [{ codigo: 'importe_requerido', parametro: 'l.importe', sat: undefined }],
    );
  });

  it('an Exento traslado with an Importe is refused only where the Importe is required', () => {
    const exento = enPago({ impuesto: '002', tipo_factor: 'Exento', importe: '10.00' });
    expect(validarLineaImpuesto(exento, 'traslado', 'l', PAGO)).toEqual([]);
    const errores = validarLineaImpuesto(exento, 'traslado', 'l', PAGO_PRORRATEADO);
    expect(resumen(errores)).toEqual([
      { codigo: 'exento_con_tasa', parametro: 'l.importe', sat: 'CRP20258' },
    ]);
    expect(errores[0]?.mensaje).toBe('Un traslado Exento no lleva tasa_o_cuota ni importe.');
    const concepto = validarLineaImpuesto(
      iva('0.000000', { tipo_factor: 'Exento' }),
      'traslado',
      'l',
      CONCEPTO,
    );
    expect(concepto[0]?.mensaje).toBe('Un traslado Exento no lleva tasa_o_cuota.');
  });
});

describe('the callers keep their profiles', () => {
  const documento = (linea: LineaImpuestoEntrada): DocumentoPagadoEntrada => ({
    uuid: '6DE9442D-ED57-5320-B2BA-F73E15079FA3',
    moneda: 'MXN',
    decimales_moneda: 2,
    num_parcialidad: 1,
    imp_saldo_anterior: '1160.00',
    imp_pagado: '1160.00',
    objeto_imp: '02',
    total_factura: '1160.00',
    impuestos_factura: { traslados: [{ base: '1000.00', ...linea }] },
  });
  const pagar = (linea: LineaImpuestoEntrada) =>
    calcularPagos({
      pagos: [
        {
          fecha_pago: '2024-03-15',
          forma_pago: '03',
          moneda: 'MXN',
          decimales_moneda: 2,
          documentos: [documento(linea)],
        },
      ],
    });

  it('validarImpuestos (products, invoice concepts): exactly 6 decimals and c_TasaOCuota', () => {
    expect(validarImpuestos('02', { traslados: [iva('0.16')] }, catalogos).map((v) => v.codigo)).toEqual([
      'tasa_invalida',
    ]);
    expect(validarImpuestos('02', { traslados: [iva('0.170000')] }, catalogos).map((v) => v.sat)).toEqual([
      'CFDI40179',
    ]);
  });

  it('calcularPagos: up to 6 decimals, no c_TasaOCuota', () => {
    const corta = pagar(iva('0.16'));
    expect(corta.ok && corta.complemento.pagos[0]?.documentos[0]?.impuestos?.traslados[0]?.tasa_o_cuota).toBe(
      '0.160000',
    );
    expect(pagar(iva('0.170000')).ok).toBe(true);
    const larga = pagar(iva('0.1600000'));
    expect(!larga.ok && larga.violaciones.map((v) => v.codigo)).toEqual(['tasa_invalida']);
  });
});
