import { calcularImportes } from '../../cfdi/comprobante/importes';
import { comprobante, concepto, IVA16 } from '../support/comprobantes';

const ISR10 = { impuesto: '001', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.100000' };
const IVA_RET = { impuesto: '002', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.106667' };

describe('importes por las reglas del SAT', () => {
  it('reproduce el CFDI real timbrado: conceptos a 6 decimales, totales redondeados al final', () => {
    const r = calcularImportes(
      comprobante({
        conceptos: [
          concepto({ cantidad: '1.000000', valor_unitario: '8.620690' }),
          concepto({ cantidad: '1.000000', valor_unitario: '853.448276' }),
        ],
      }),
    );
    expect(r.conceptos.map((c) => [c.importe, c.traslados[0]!.importe])).toEqual([
      ['8.620690', '1.379310'],
      ['853.448276', '136.551724'],
    ]);
    expect(r.traslados).toEqual([
      { base: '862.07', impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000', importe: '137.93' },
    ]);
    expect([r.subtotal, r.total_impuestos_trasladados, r.total]).toEqual(['862.07', '137.93', '1000.00']);
    expect(r.descuento).toBeUndefined();
    expect(r.total_impuestos_retenidos).toBeUndefined();
  });

  it('reproduce el ejemplo PPD con IVA trasladado y retenciones de ISR e IVA (dos tercios)', () => {
    const r = calcularImportes(
      comprobante({
        metodo_pago: 'PPD',
        forma_pago: '99',
        conceptos: [
          concepto({
            cantidad: '1.00',
            valor_unitario: '15390.30',
            impuestos: { traslados: [IVA16], retenciones: [ISR10, IVA_RET] },
          }),
        ],
      }),
    );
    expect(r.retenciones).toEqual([
      { impuesto: '001', importe: '1539.03' },
      { impuesto: '002', importe: '1641.64' },
    ]);
    expect(r.total_impuestos_retenidos).toBe('3180.67');
    expect(r.total_impuestos_trasladados).toBe('2462.45');
    expect(r.total).toBe('14672.08');
  });

  it('reproduce el ejemplo en USD con descuentos: la base es importe menos descuento', () => {
    const r = calcularImportes(
      comprobante({
        moneda: 'USD',
        tipo_cambio: '18.9008',
        conceptos: [
          concepto({ cantidad: '4', valor_unitario: '500', descuento: '500' }),
          concepto({ cantidad: '1', valor_unitario: '1000' }),
          concepto({ cantidad: '1', valor_unitario: '300' }),
        ],
      }),
    );
    expect(r.conceptos[0]!.traslados[0]).toMatchObject({ base: '1500.000000', importe: '240.000000' });
    expect(r.conceptos[0]!.descuento).toBe('500.000000');
    expect([r.subtotal, r.descuento, r.total]).toEqual(['3300.00', '500.00', '3248.00']);
    expect(r.traslados[0]).toMatchObject({ base: '2800.00', importe: '448.00' });
  });

  it('agrupa los traslados por impuesto, factor y tasa; el exento lleva solo la base', () => {
    const r = calcularImportes(
      comprobante({
        conceptos: [
          concepto({ valor_unitario: '100' }),
          concepto({
            valor_unitario: '200',
            impuestos: { traslados: [{ ...IVA16, tasa_o_cuota: '0.000000' }] },
          }),
          concepto({
            valor_unitario: '50',
            impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Exento' }] },
          }),
          concepto({ valor_unitario: '10' }),
        ],
      }),
    );
    expect(r.traslados).toEqual([
      { base: '110.00', impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000', importe: '17.60' },
      { base: '200.00', impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.000000', importe: '0.00' },
      { base: '50.00', impuesto: '002', tipo_factor: 'Exento' },
    ]);
    expect(r.total_impuestos_trasladados).toBe('17.60');
    expect(r.total).toBe('377.60');
  });

  it('con solo conceptos exentos omite TotalImpuestosTrasladados', () => {
    const r = calcularImportes(
      comprobante({
        conceptos: [concepto({ impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Exento' }] } })],
      }),
    );
    expect(r.total_impuestos_trasladados).toBeUndefined();
    expect(r.total).toBe('1500.00');
  });

  it('conceptos no objeto de impuesto no generan nodo de impuestos', () => {
    const r = calcularImportes(
      comprobante({ conceptos: [concepto({ objeto_imp: '01', impuestos: undefined })] }),
    );
    expect(r.traslados).toEqual([]);
    expect(r.retenciones).toEqual([]);
    expect(r.total).toBe('1500.00');
  });

  it('usa los decimales de la moneda: JPY sin decimales', () => {
    const r = calcularImportes(
      comprobante({
        moneda: 'JPY',
        decimales_moneda: 0,
        tipo_cambio: '0.12',
        conceptos: [concepto({ valor_unitario: '999.5' })],
      }),
    );
    expect([r.subtotal, r.total_impuestos_trasladados, r.total]).toEqual(['1000', '160', '1160']);
  });

  it('redondea la mitad hacia arriba solo al final: la suma de líneas no se redondea por línea', () => {
    // Three lines of 0.0024 IVA: rounding each line gives 0.00; rounding their sum (0.0072) once gives 0.01.
    const r = calcularImportes(
      comprobante({ conceptos: [1, 2, 3].map(() => concepto({ valor_unitario: '0.015' })) }),
    );
    expect(r.conceptos[0]!.traslados[0]!.importe).toBe('0.002400');
    expect(r.traslados[0]!.importe).toBe('0.01');
    expect(r.subtotal).toBe('0.05');
    expect(r.total).toBe('0.06');
  });

  it('una retención Exento (inválida) no rompe el cálculo: la validación la reporta después', () => {
    const r = calcularImportes(
      comprobante({
        conceptos: [
          concepto({
            impuestos: { traslados: [IVA16], retenciones: [{ impuesto: '001', tipo_factor: 'Exento' }] },
          }),
        ],
      }),
    );
    expect(r.retenciones).toEqual([]);
    expect(r.conceptos[0]!.retenciones).toEqual([
      { base: '1500.000000', impuesto: '001', tipo_factor: 'Exento' },
    ]);
  });
});
