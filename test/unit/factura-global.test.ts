import type { ConceptoCalculado, ConceptoEntrada } from '../../cfdi/comprobante/tipos';
import {
  conceptosGlobales,
  formaPagoGlobal,
  informacionGlobal,
  periodoDe,
  ultimoPeriodoCerrado,
  type ReciboEnGlobal,
} from '../../dominio/factura-global';

describe('periodos de la factura global', () => {
  it.each([
    ['01', '2026-11-26', '2026-11-26', '2026-11-26'],
    // Thursday 26: Monday 23 to Sunday 29.
    ['02', '2026-11-26', '2026-11-23', '2026-11-29'],
    // The week of Monday 30 November is cut at the month's end, and December's starts on Tuesday 1.
    ['02', '2026-11-30', '2026-11-30', '2026-11-30'],
    ['02', '2026-12-02', '2026-12-01', '2026-12-06'],
    ['03', '2026-02-15', '2026-02-01', '2026-02-15'],
    ['03', '2026-02-16', '2026-02-16', '2026-02-28'],
    ['03', '2028-02-20', '2028-02-16', '2028-02-29'],
    ['04', '2026-11-26', '2026-11-01', '2026-11-30'],
    ['05', '2026-12-10', '2026-11-01', '2026-12-31'],
    ['05', '2026-01-31', '2026-01-01', '2026-02-28'],
  ] as const)('%s que contiene %s: del %s al %s', (p, fecha, desde, hasta) => {
    expect(periodoDe(p, fecha)).toEqual({ periodicidad: p, desde, hasta });
  });

  it.each([
    ['01', '2026-11-27', '2026-11-26', '2026-11-26'],
    ['02', '2026-11-30', '2026-11-23', '2026-11-29'],
    ['02', '2026-11-27', '2026-11-16', '2026-11-22'],
    ['03', '2026-11-16', '2026-11-01', '2026-11-15'],
    ['03', '2026-11-27', '2026-11-01', '2026-11-15'],
    ['04', '2026-12-01', '2026-11-01', '2026-11-30'],
    ['04', '2026-11-27', '2026-10-01', '2026-10-31'],
    ['04', '2027-01-01', '2026-12-01', '2026-12-31'],
    ['05', '2026-11-27', '2026-09-01', '2026-10-31'],
  ] as const)('%s, hoy %s: el último cerrado es del %s al %s', (p, hoy, desde, hasta) => {
    expect(ultimoPeriodoCerrado(p, hoy)).toEqual({ periodicidad: p, desde, hasta });
  });

  it('InformacionGlobal: el mes, o el bimestre 13–18', () => {
    expect(informacionGlobal(periodoDe('01', '2026-03-05'))).toEqual({
      periodicidad: '01',
      meses: '03',
      anio: '2026',
    });
    expect(informacionGlobal(periodoDe('05', '2026-01-10')).meses).toBe('13');
    expect(informacionGlobal(periodoDe('05', '2026-12-10')).meses).toBe('18');
  });
});

const IVA16 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.160000' }] };
const IVA0 = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.000000' }] };

function recibo(
  id: string,
  folio: string | null,
  lineas: { importe: string; descuento?: string; impuestos?: ConceptoEntrada['impuestos'] }[],
  forma = '01',
  total = '0',
): ReciboEnGlobal {
  const conceptos: ConceptoEntrada[] = lineas.map((l) => ({
    clave_prod_serv: '50192100',
    cantidad: '1',
    clave_unidad: 'H87',
    descripcion: 'Torta',
    valor_unitario: l.importe,
    ...(l.descuento ? { descuento: l.descuento } : {}),
    objeto_imp: l.impuestos ? '02' : '01',
    ...(l.impuestos ? { impuestos: l.impuestos } : {}),
  }));
  const calculados = conceptos.map(
    (c) => ({ ...c, importe: c.valor_unitario, traslados: [], retenciones: [] }) as ConceptoCalculado,
  );
  return {
    id,
    folio,
    documento: {
      conceptos,
      forma_pago: forma,
      importes: { conceptos: calculados, subtotal: '0', traslados: [], retenciones: [], total },
    },
  };
}

describe('conceptos de la factura global', () => {
  it('uno por recibo como pide la guía: 01010101, ACT, Venta, su folio, cantidad 1 y su importe', () => {
    const c = conceptosGlobales([
      recibo('rec_a', 'T-1', [
        { importe: '50.000000', impuestos: IVA16 },
        { importe: '25.500000', impuestos: IVA16 },
      ]),
      recibo('rec_b', null, [{ importe: '10.000000', descuento: '1.000000' }]),
    ]);
    expect(c).toEqual([
      {
        clave_prod_serv: '01010101',
        no_identificacion: 'T-1',
        cantidad: '1',
        clave_unidad: 'ACT',
        descripcion: 'Venta',
        valor_unitario: '75.500000',
        objeto_imp: '02',
        impuestos: IVA16,
      },
      {
        clave_prod_serv: '01010101',
        no_identificacion: 'rec_b',
        cantidad: '1',
        clave_unidad: 'ACT',
        descripcion: 'Venta',
        valor_unitario: '10.000000',
        descuento: '1.000000',
        objeto_imp: '01',
      },
    ]);
  });

  it('un recibo con líneas de distinto impuesto da un concepto por tratamiento, con el mismo folio', () => {
    const c = conceptosGlobales([
      recibo('rec_a', 'T-2', [
        { importe: '100.000000', impuestos: IVA16 },
        { importe: '30.000000', impuestos: IVA0 },
        { importe: '20.000000', impuestos: IVA16 },
      ]),
    ]);
    expect(c.map((x) => [x.no_identificacion, x.valor_unitario, x.impuestos])).toEqual([
      ['T-2', '120.000000', IVA16],
      ['T-2', '30.000000', IVA0],
    ]);
  });

  it('FormaPago: la del mayor importe recibido; en empate, la clave menor', () => {
    expect(
      formaPagoGlobal([
        recibo('a', null, [], '01', '100.00'),
        recibo('b', null, [], '04', '80.00'),
        recibo('c', null, [], '04', '30.00'),
      ]),
    ).toBe('04');
    expect(
      formaPagoGlobal([recibo('a', null, [], '28', '50.00'), recibo('b', null, [], '03', '50.00')]),
    ).toBe('03');
  });
});
