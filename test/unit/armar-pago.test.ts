import { armarPago } from '../../activities/armar-pago';
import { calcularImportes } from '../../cfdi/comprobante/importes';
import type { ComprobanteEntrada } from '../../cfdi/comprobante/tipos';
import type { FilaFactura } from '../../db/repositorios/facturas';
import type { SolicitudPago } from '../../dominio/pago';

const EMISOR = {
  rfc: 'EKU9003173C9',
  nombre: 'ESCUELA KEMPER URGATE',
  regimen_fiscal: '601',
  codigo_postal: '42501',
};
const RECEPTOR = {
  rfc: 'MASO451221PM4',
  nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
  domicilio_fiscal: '80290',
  regimen_fiscal: '612',
  uso_cfdi: 'G03',
};

/** A stamped PPD invoice of `valor` + IVA 16 %, with the instalments already paid. */
function factura(
  id: string,
  valor: string,
  o: { moneda?: string; pagadas?: string[]; metodo?: 'PUE' | 'PPD'; rfc?: string; org?: string } = {},
): FilaFactura {
  const entrada: Omit<ComprobanteEntrada, 'no_certificado'> = {
    tipo: 'I',
    serie: 'A',
    folio: id.slice(-3),
    fecha: '2026-11-01T10:00:00',
    forma_pago: '99',
    metodo_pago: o.metodo ?? 'PPD',
    moneda: o.moneda ?? 'MXN',
    decimales_moneda: 2,
    tipo_cambio: o.moneda && o.moneda !== 'MXN' ? '18.50' : undefined,
    exportacion: '01',
    lugar_expedicion: '42501',
    emisor: EMISOR,
    receptor: { ...RECEPTOR, rfc: o.rfc ?? RECEPTOR.rfc },
    conceptos: [
      {
        clave_prod_serv: '43211914',
        cantidad: '1',
        clave_unidad: 'H87',
        descripcion: 'Equipo',
        valor_unitario: valor,
        objeto_imp: '02',
        impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
      },
    ],
  };
  const importes = calcularImportes({ ...entrada, no_certificado: '' });
  let saldo = Number(importes.total);
  const parcialidades = (o.pagadas ?? []).map((imp, k) => {
    const antes = saldo.toFixed(2);
    saldo -= Number(imp);
    return {
      pago: `pago_${k}`,
      factura_pago: `fac_p${k}`,
      num_parcialidad: k + 1,
      imp_saldo_anterior: antes,
      imp_pagado: imp,
      imp_saldo_insoluto: saldo.toFixed(2),
    };
  });
  return {
    id,
    modo: 'test',
    organizacion_id: o.org ?? 'org_1',
    cliente_id: 'cli_1',
    tipo: 'ingreso',
    estado: 'timbrada',
    documento: {
      entrada,
      productos: [null],
      importes,
      cliente: { id: 'cli_1', ...RECEPTOR, rfc: o.rfc ?? RECEPTOR.rfc },
      huso_horario: 'Tiempo del Centro',
    },
    total: importes.total,
    metodo_pago: o.metodo ?? 'PPD',
    uuid: `${Buffer.from(id).toString('hex').slice(-8).toUpperCase()}-0000-4000-8000-000000000000`,
    fecha_timbrado: '2026-11-01T10:00:05',
    no_certificado: '30001000000500003416',
    no_certificado_sat: '30001000000500003456',
    timbrado_estado: 'timbrada',
    timbrado_intentos: 1,
    timbrado_error: null,
    cancelacion: null,
    parcialidades,
    pago_id: null,
    creado_en: new Date(),
    actualizado_en: new Date(),
  };
}

const solicitud = (
  items: SolicitudPago['facturas_pagadas'],
  o: Partial<SolicitudPago> = {},
): SolicitudPago => ({
  serie: 'P',
  fecha_pago: '2026-11-20T12:00:00',
  forma_pago: '03',
  moneda: 'MXN',
  decimales_moneda: 2,
  tipo_cambio: null,
  monto: items.reduce((s, x) => s + Number(x.imp_pagado), 0).toFixed(2),
  facturas_pagadas: items,
  ...o,
});

const armar = (s: SolicitudPago, facturas: FilaFactura[]) =>
  armarPago({
    pagoId: 'pago_x',
    solicitud: s,
    organizacionId: 'org_1',
    emisor: EMISOR,
    husoHorario: 'Tiempo del Centro',
    facturas,
    fecha: '2026-11-20T12:30:00',
  });

describe('armarPago: el libro de saldos de un pago', () => {
  it('primera parcialidad: saldo anterior = total, impuestos prorrateados como el SAT (12000.00 → base 10344.83)', () => {
    const f = factura('fac_001', '20000.00'); // total 23200.00
    const r = armar(solicitud([{ factura: f.id, imp_pagado: '12000.00', equivalencia: null }]), [f]);
    if (!r.ok) throw new Error(r.rechazo.mensaje);
    expect(r.parcialidades).toEqual([
      expect.objectContaining({
        num_parcialidad: 1,
        imp_saldo_anterior: '23200.00',
        imp_pagado: '12000.00',
        imp_saldo_insoluto: '11200.00',
        objeto_imp: '02',
      }),
    ]);
    const dr = r.documento.pago!.complemento.pagos[0]!.documentos[0]!;
    expect(dr.impuestos!.traslados[0]).toMatchObject({ base: '10344.827586', importe: '1655.172414' });
    expect(r.documento.pago!.complemento.totales).toMatchObject({
      total_traslados_base_iva16: '10344.83',
      total_traslados_impuesto_iva16: '1655.17',
      monto_total_pagos: '12000.00',
    });
    expect(r.documento.entrada).toMatchObject({ tipo: 'P', moneda: 'XXX', serie: 'P' });
    expect(r.documento.entrada.receptor.uso_cfdi).toBe('CP01');
  });

  it('la siguiente parcialidad parte del saldo que dejan las vigentes', () => {
    const f = factura('fac_002', '1000.00', { pagadas: ['500.00', '160.00'] }); // total 1160.00
    const r = armar(solicitud([{ factura: f.id, imp_pagado: '500.00', equivalencia: null }]), [f]);
    if (!r.ok) throw new Error(r.rechazo.mensaje);
    expect(r.parcialidades[0]).toMatchObject({
      num_parcialidad: 3,
      imp_saldo_anterior: '500.00',
      imp_saldo_insoluto: '0.00',
    });
  });

  it('un pago a dos facturas: un DoctoRelacionado por factura, en el orden pedido', () => {
    const a = factura('fac_00b', '100.00');
    const b = factura('fac_00a', '200.00', { pagadas: ['10.00'] });
    const r = armar(
      solicitud([
        { factura: a.id, imp_pagado: '116.00', equivalencia: null },
        { factura: b.id, imp_pagado: '20.00', equivalencia: null },
      ]),
      [b, a],
    );
    if (!r.ok) throw new Error(r.rechazo.mensaje);
    expect(r.parcialidades.map((p) => [p.factura, p.num_parcialidad])).toEqual([
      ['fac_00b', 1],
      ['fac_00a', 2],
    ]);
    expect(r.documento.pago!.complemento.pagos[0]!.documentos.map((x) => x.uuid)).toEqual([a.uuid, b.uuid]);
  });

  it('moneda distinta: exige equivalencia; con ella, el mínimo de monto es Σ ImpPagado / EquivalenciaDR', () => {
    const f = factura('fac_003', '1000.00'); // 1160.00 MXN
    const sin = armar(
      solicitud([{ factura: f.id, imp_pagado: '925.00', equivalencia: null }], {
        moneda: 'USD',
        tipo_cambio: '18.50',
        monto: '50.00',
      }),
      [f],
    );
    expect(sin).toMatchObject({ ok: false, rechazo: { codigo: 'equivalencia_requerida' } });
    const corto = armar(
      solicitud([{ factura: f.id, imp_pagado: '925.00', equivalencia: '18.50' }], {
        moneda: 'USD',
        tipo_cambio: '18.50',
        monto: '49.99',
      }),
      [f],
    );
    expect(corto).toMatchObject({ ok: false, rechazo: { codigo: 'monto_insuficiente', parametro: 'monto' } });
    const justo = armar(
      solicitud([{ factura: f.id, imp_pagado: '925.00', equivalencia: '18.50' }], {
        moneda: 'USD',
        tipo_cambio: '18.50',
        monto: '50.00',
      }),
      [f],
    );
    expect(justo.ok).toBe(true);
  });

  it.each([
    ['factura_no_encontrada', 'no_encontrado', (f: FilaFactura) => ({ facturas: [], items: [f.id] })],
    [
      'factura_no_ppd',
      'regla_de_negocio',
      () => ({ factura: factura('fac_010', '100.00', { metodo: 'PUE' }) }),
    ],
    [
      'factura_no_timbrada',
      'conflicto',
      () => ({ factura: { ...factura('fac_011', '100.00'), estado: 'cancelada' as const } }),
    ],
    [
      'factura_de_otra_organizacion',
      'regla_de_negocio',
      () => ({ factura: factura('fac_012', '100.00', { org: 'org_2' }) }),
    ],
  ])('%s', (codigo, tipo, caso) => {
    const base = factura('fac_013', '100.00');
    const c = caso(base) as { facturas?: FilaFactura[]; items?: string[]; factura?: FilaFactura };
    const f = c.factura ?? base;
    const r = armar(
      solicitud((c.items ?? [f.id]).map((id) => ({ factura: id, imp_pagado: '10.00', equivalencia: null }))),
      c.facturas ?? [f],
    );
    expect(r).toMatchObject({
      ok: false,
      rechazo: { codigo, tipo, parametro: 'facturas_pagadas[0].factura' },
    });
  });

  it('una violación del cálculo nombra el campo de la solicitud (monto_invalido → monto)', () => {
    const f = factura('fac_030', '100.00');
    const item = { factura: f.id, imp_pagado: '10.00', equivalencia: null };
    // 19 integer digits: the schema's pattern lets it through, the SAT's Importe does not.
    expect(armar(solicitud([item], { monto: '1000000000000000000.00' }), [f])).toMatchObject({
      ok: false,
      rechazo: { codigo: 'monto_invalido', parametro: 'monto' },
    });
  });

  it('tipo de cambio y equivalencia absurdos (0.000001 y 999999999999999999.999999): 422 con su campo', () => {
    const f = factura('fac_031', '1000.00'); // 1160.00 MXN
    const usd = (equivalencia: string, tipo_cambio: string, monto: string) =>
      armar(
        solicitud([{ factura: f.id, imp_pagado: '925.00', equivalencia }], {
          moneda: 'USD',
          tipo_cambio,
          monto,
        }),
        [f],
      );
    expect(usd('999999999999999999.999999', '0.000001', '0.01')).toMatchObject({
      ok: false,
      rechazo: { tipo: 'regla_de_negocio', codigo: 'tipo_cambio_fuera_de_rango', parametro: 'tipo_cambio' },
    });
    expect(usd('999999999999999999.999999', '18.50', '50.00')).toMatchObject({
      ok: false,
      rechazo: { codigo: 'equivalencia_incoherente', parametro: 'facturas_pagadas[0].equivalencia' },
    });
    expect(usd('18.50', '18.50', '50.00').ok).toBe(true);
  });

  it('receptores distintos, importe mayor que el saldo, decimales de más y fecha anterior a la factura', () => {
    const a = factura('fac_020', '100.00');
    const b = factura('fac_021', '100.00', { rfc: 'XAXX010101000' });
    const item = (f: FilaFactura, imp: string) => ({ factura: f.id, imp_pagado: imp, equivalencia: null });
    expect(armar(solicitud([item(a, '1.00'), item(b, '1.00')]), [a, b])).toMatchObject({
      ok: false,
      rechazo: { codigo: 'receptores_distintos', parametro: 'facturas_pagadas[1].factura' },
    });
    expect(armar(solicitud([item(a, '116.01')]), [a])).toMatchObject({
      ok: false,
      rechazo: { codigo: 'importe_excede_saldo', parametro: 'facturas_pagadas[0].imp_pagado' },
    });
    expect(armar(solicitud([item(a, '1.001')], { monto: '2.00' }), [a])).toMatchObject({
      ok: false,
      rechazo: { codigo: 'decimales_excedidos' },
    });
    expect(armar(solicitud([item(a, '1.00')], { fecha_pago: '2026-10-31T23:59:59' }), [a])).toMatchObject({
      ok: false,
      rechazo: { codigo: 'fecha_pago_anterior', parametro: 'fecha_pago' },
    });
  });
});
