import type { FacturaDeCuenta, PagoDeCuenta } from '../../db/repositorios/cobranza';
import type { FilaCliente } from '../../db/repositorios/clientes';
import {
  candidatosSerieFolio,
  cubetaAntiguedad,
  cuentaPeriodos,
  diasEntre,
  periodos,
  serieFolio,
} from '../../dominio/cobranza';
import { celdaCsv, csv } from '../../presentacion/csv';
import { armarEstadoDeCuenta, csvEstadoDeCuenta } from '../../presentacion/estado-de-cuenta';
import { dtoSalud } from '../../presentacion/webhook';
import { crearServicioResumen } from '../../servicios/resumen';
import { CLIENTE } from '../support/cuentas';
import { alcance } from '../support/memoria';
import { entornoConOrganizacion, errorNegocio } from '../support/memoria/servicios';

const a = alcance();

describe('antigüedad, periodos y serie-folio', () => {
  it.each([
    [-3, 'de_0_a_30'],
    [0, 'de_0_a_30'],
    [30, 'de_0_a_30'],
    [31, 'de_31_a_60'],
    [60, 'de_31_a_60'],
    [61, 'de_61_a_90'],
    [90, 'de_61_a_90'],
    [91, 'mas_de_90'],
    [4000, 'mas_de_90'],
  ])('%i días → %s', (dias, cubeta) => {
    expect(cubetaAntiguedad(dias)).toBe(cubeta);
  });

  it('cuenta días de calendario, aunque crucen un año bisiesto o traigan hora', () => {
    expect(diasEntre('2024-02-28', '2024-03-01')).toBe(2);
    expect(diasEntre('2025-12-31T23:59:59', '2026-01-01')).toBe(1);
    expect(diasEntre('2026-01-10', '2026-01-10')).toBe(0);
  });

  it('periodos por día y por mes: todos, del rango, con sus días', () => {
    expect(periodos('2026-02-27', '2026-03-01', 'dia').map((p) => p.periodo)).toEqual([
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
    ]);
    expect(periodos('2026-01-15', '2026-03-10', 'mes')).toEqual([
      { periodo: '2026-01', desde: '2026-01-15', hasta: '2026-01-31' },
      { periodo: '2026-02', desde: '2026-02-01', hasta: '2026-02-28' },
      { periodo: '2026-03', desde: '2026-03-01', hasta: '2026-03-10' },
    ]);
    expect(cuentaPeriodos('2025-01-01', '2025-12-31', 'dia')).toBe(365);
    expect(cuentaPeriodos('2025-11-30', '2026-01-01', 'mes')).toBe(3);
  });

  it('serie-folio como lo escribe una persona', () => {
    expect(candidatosSerieFolio('123')).toEqual([{ serie: null, folio: '123' }]);
    expect(candidatosSerieFolio(' A-123 ')).toEqual([
      { serie: null, folio: 'A-123' },
      { serie: 'A', folio: '123' },
    ]);
    expect(candidatosSerieFolio('A123')).toEqual([
      { serie: null, folio: 'A123' },
      { serie: 'A', folio: '123' },
    ]);
    expect(candidatosSerieFolio('FAC-MX-7')).toEqual([
      { serie: null, folio: 'FAC-MX-7' },
      { serie: 'FAC', folio: 'MX-7' },
      { serie: 'FAC-MX', folio: '7' },
    ]);
    expect(candidatosSerieFolio('-7')).toEqual([{ serie: null, folio: '-7' }]);
    expect([serieFolio('A', '1'), serieFolio(null, '1'), serieFolio(null, null)]).toEqual(['A-1', '1', null]);
  });
});

describe('CSV', () => {
  it('cita comas, comillas y saltos; neutraliza fórmulas en texto, no en importes', () => {
    expect(celdaCsv('A,B')).toBe('"A,B"');
    expect(celdaCsv('di "hola"')).toBe('"di ""hola"""');
    expect(celdaCsv('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(celdaCsv('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(celdaCsv('-5', { texto: false })).toBe('-5');
    expect(celdaCsv(null)).toBe('');
    expect(celdaCsv(12)).toBe('12');
  });

  it('documento con BOM, CRLF y encabezado', () => {
    expect(csv(['a', 'b'], [['x', '1.00']], new Set(['b']))).toBe('\uFEFFa,b\r\nx,1.00\r\n');
  });
});

describe('estado de cuenta', () => {
  const x = entornoConOrganizacion();
  const cliente = {
    id: 'cli_1',
    organizacion_id: 'org_1',
    rfc: 'MASO451221PM4',
    nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
  } as FilaCliente;
  const factura = (id: string, o: Partial<FacturaDeCuenta>): FacturaDeCuenta => ({
    id,
    organizacion_id: 'org_1',
    uuid: `UUID-${id}`,
    serie: 'A',
    folio: id.slice(4),
    fecha: '2026-01-01T10:00:00',
    estado: 'timbrada',
    total: '1000.000000',
    moneda: 'MXN',
    metodo_pago: 'PPD',
    ...o,
  });
  const pago = (factura_id: string, o: Partial<PagoDeCuenta>): PagoDeCuenta => ({
    factura_id,
    pago_id: `pago_${factura_id}`,
    factura_pago_id: `fac_p${factura_id}`,
    uuid_pago: 'UUID-P',
    serie_pago: 'P',
    folio_pago: '1',
    fecha_pago: '2026-02-01T12:00:00',
    num_parcialidad: 1,
    imp_saldo_anterior: '1000.000000',
    imp_pagado: '400.000000',
    imp_saldo_insoluto: '600.000000',
    ...o,
  });
  const facturas = [
    factura('fac_1', {}),
    factura('fac_2', { metodo_pago: 'PUE', fecha: '2026-03-01T09:00:00', total: '500.000000' }),
    factura('fac_3', { estado: 'cancelada', total: '300.000000' }),
    factura('fac_4', { fecha: '2026-03-20T09:00:00', total: '200.000000', serie: null }),
    factura('fac_5', { moneda: 'USD', total: '10.000000', fecha: '2025-10-01T00:00:00' }),
    factura('fac_6', { fecha: '2026-04-02T00:00:00' }), // after the cut-off
  ];
  const pagos = [
    pago('fac_1', {}),
    pago('fac_1', {
      pago_id: 'pago_late',
      num_parcialidad: 2,
      fecha_pago: '2026-04-02T00:00:00',
      imp_pagado: '600.000000',
    }),
  ];
  const e = armarEstadoDeCuenta({
    modo: 'test',
    cliente,
    fecha: '2026-04-01',
    facturas,
    pagos,
    decimalesDe: () => 2,
  });

  it('saldo por factura: PPD menos sus pagos a la fecha, PUE pagada, cancelada sin deuda; antigüedad', () => {
    expect(
      e.facturas.map((f) => [f.id, f.serie_folio, f.pagado, f.saldo_pendiente, f.dias, f.antiguedad]),
    ).toEqual([
      ['fac_1', 'A-1', '400.00', '600.00', 90, 'de_61_a_90'],
      ['fac_2', 'A-2', '500.00', '0.00', 31, null],
      ['fac_3', 'A-3', '0.00', '0.00', 90, null],
      ['fac_4', '4', '0.00', '200.00', 12, 'de_0_a_30'],
      ['fac_5', 'A-5', '0.00', '10.00', 182, 'mas_de_90'],
    ]);
    expect(e.pagos).toEqual([
      {
        pago: 'pago_fac_1',
        factura_pago: 'fac_pfac_1',
        uuid: 'UUID-P',
        serie_folio: 'P-1',
        factura: 'fac_1',
        factura_uuid: 'UUID-fac_1',
        fecha_pago: '2026-02-01T12:00:00',
        moneda: 'MXN',
        num_parcialidad: 1,
        imp_saldo_anterior: '1000.00',
        imp_pagado: '400.00',
        imp_saldo_insoluto: '600.00',
      },
    ]);
  });

  it('totales por moneda sin las canceladas, con la antigüedad del saldo', () => {
    expect(e.totales).toEqual([
      {
        moneda: 'MXN',
        facturas: 3,
        facturado: '1700.00',
        cobrado: '900.00',
        saldo: '800.00',
        antiguedad: { de_0_a_30: '200.00', de_31_a_60: '0.00', de_61_a_90: '600.00', mas_de_90: '0.00' },
      },
      {
        moneda: 'USD',
        facturas: 1,
        facturado: '10.00',
        cobrado: '0.00',
        saldo: '10.00',
        antiguedad: { de_0_a_30: '0.00', de_31_a_60: '0.00', de_61_a_90: '0.00', mas_de_90: '10.00' },
      },
    ]);
  });

  it('el CSV: cada factura con sus pagos, y un total por moneda; cargo menos abonos es el saldo', () => {
    const lineas = csvEstadoDeCuenta(e).replace('\uFEFF', '').trimEnd().split('\r\n');
    expect(lineas[0]).toBe(
      'tipo,fecha,uuid,serie_folio,factura_uuid,estado,metodo_pago,moneda,cargo,abono,num_parcialidad,saldo,dias,de_0_a_30,de_31_a_60,de_61_a_90,mas_de_90',
    );
    expect(lineas.slice(1)).toEqual([
      'factura,2026-01-01T10:00:00,UUID-fac_1,A-1,,timbrada,PPD,MXN,1000.00,,,600.00,90,,,,',
      'pago,2026-02-01T12:00:00,UUID-P,P-1,UUID-fac_1,,,MXN,,400.00,1,600.00,,,,,',
      'factura,2026-03-01T09:00:00,UUID-fac_2,A-2,,timbrada,PUE,MXN,500.00,500.00,,0.00,31,,,,',
      'factura,2026-01-01T10:00:00,UUID-fac_3,A-3,,cancelada,PPD,MXN,300.00,300.00,,0.00,90,,,,',
      'factura,2026-03-20T09:00:00,UUID-fac_4,4,,timbrada,PPD,MXN,200.00,,,200.00,12,,,,',
      'factura,2025-10-01T00:00:00,UUID-fac_5,A-5,,timbrada,PPD,USD,10.00,,,10.00,182,,,,',
      'total,2026-04-01,,,,,,MXN,1700.00,900.00,,800.00,,200.00,0.00,600.00,0.00',
      'total,2026-04-01,,,,,,USD,10.00,0.00,,10.00,,0.00,0.00,0.00,10.00',
    ]);
  });

  it('el servicio: 404 cliente_no_encontrado en id, fecha imposible 400 fecha_invalida; por omisión hoy', async () => {
    const c = await x.s.clientes.crear(a, { ...CLIENTE, organizacion: x.org });
    const vacio = await x.s.clientes.estadoDeCuenta(a, c.id);
    expect(vacio).toMatchObject({ objeto: 'estado_de_cuenta', facturas: [], pagos: [], totales: [] });
    expect(vacio.fecha).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const e404 = await errorNegocio(x.s.clientes.estadoDeCuenta(a, 'cli_x'));
    expect([e404.codigo, e404.parametro]).toEqual(['cliente_no_encontrado', 'id']);
    const e400 = await errorNegocio(x.s.clientes.estadoDeCuenta(a, c.id, { fecha: '2026-02-30' }));
    expect([e400.codigo, e400.parametro]).toEqual(['fecha_invalida', 'fecha']);
    const otro = await errorNegocio(x.s.clientes.estadoDeCuenta(alcance('cta_b'), c.id));
    expect(otro.codigo).toBe('cliente_no_encontrado');
    const { archivo, csv: texto } = await x.s.clientes.estadoDeCuentaCsv(a, c.id, { fecha: '2026-11-27' });
    expect(archivo).toBe(`estado-de-cuenta-${CLIENTE.rfc}-2026-11-27.csv`);
    expect(texto.startsWith('\uFEFFtipo,')).toBe(true);
  });
});

describe('resumen de facturación', () => {
  const cobranza = {
    facturadoPorDia: jest.fn(async () => [
      {
        dia: '2026-01-30',
        estado: 'timbrada' as const,
        metodo_pago: 'PUE',
        facturas: 2,
        total: '200.000000',
      },
      { dia: '2026-01-31', estado: 'timbrada' as const, metodo_pago: 'PPD', facturas: 1, total: '50.500000' },
      {
        dia: '2026-02-01',
        estado: 'cancelada' as const,
        metodo_pago: 'PUE',
        facturas: 1,
        total: '10.000000',
      },
    ]),
    cobradoPorDia: jest.fn(async () => [{ dia: '2026-02-02', parcialidades: 3, total: '25.255000' }]),
  };
  const s = crearServicioResumen({
    cobranza,
    organizaciones: { idDeFiltro: async (_a, o) => (o ? 'org_1' : undefined) },
    catalogos: {
      moneda: (c) => (c === 'JPY' ? { clave: 'JPY', descripcion: 'Yen', decimales: 0 } : undefined),
    },
    ahora: () => new Date('2026-02-03T05:00:00Z'), // still 2 Feb in central Mexico
  });

  it('por mes: periodos recortados al rango, cancelado aparte, cobrado PUE al timbrar y PPD al pagar', async () => {
    const r = await s.facturacion(a, {
      desde: '2026-01-15',
      hasta: '2026-02-10',
      agrupacion: 'mes',
      organizacion: 'X',
    });
    expect(cobranza.facturadoPorDia).toHaveBeenLastCalledWith(a, {
      desde: '2026-01-15',
      hasta: '2026-02-10',
      moneda: 'MXN',
      organizacionId: 'org_1',
    });
    expect(r).toMatchObject({ organizacion: 'org_1', moneda: 'MXN', agrupacion: 'mes' });
    expect(r.periodos).toEqual([
      {
        periodo: '2026-01',
        desde: '2026-01-15',
        hasta: '2026-01-31',
        facturas_timbradas: 3,
        importe_facturado: '250.50',
        facturas_canceladas: 0,
        importe_cancelado: '0.00',
        importe_cobrado: '200.00',
        cobrado_pue: '200.00',
        cobrado_ppd: '0.00',
      },
      {
        periodo: '2026-02',
        desde: '2026-02-01',
        hasta: '2026-02-10',
        facturas_timbradas: 0,
        importe_facturado: '0.00',
        facturas_canceladas: 1,
        importe_cancelado: '10.00',
        importe_cobrado: '25.26',
        cobrado_pue: '0.00',
        cobrado_ppd: '25.26',
      },
    ]);
    expect(r.totales).toEqual({
      facturas_timbradas: 3,
      importe_facturado: '250.50',
      facturas_canceladas: 1,
      importe_cancelado: '10.00',
      importe_cobrado: '225.26',
      cobrado_pue: '200.00',
      cobrado_ppd: '25.26',
    });
  });

  it('por omisión: los últimos 30 días hasta hoy en el centro de México, por día, MXN; decimales de la moneda', async () => {
    const r = await s.facturacion(a, { moneda: 'JPY' });
    expect([r.desde, r.hasta, r.agrupacion, r.periodos.length]).toEqual([
      '2026-01-04',
      '2026-02-02',
      'dia',
      30,
    ]);
    expect(r.totales.importe_facturado).toBe('251');
  });

  it('rangos inválidos: 400 parametro_invalido', async () => {
    const alReves = await errorNegocio(s.facturacion(a, { desde: '2026-02-02', hasta: '2026-02-01' }));
    expect([alReves.codigo, alReves.parametro]).toEqual(['parametro_invalido', 'desde']);
    const largo = await errorNegocio(s.facturacion(a, { desde: '2025-01-01', hasta: '2026-01-02' }));
    expect([largo.codigo, largo.parametro]).toEqual(['parametro_invalido', 'hasta']);
    expect(
      (await s.facturacion(a, { desde: '2025-01-01', hasta: '2026-01-02', agrupacion: 'mes' })).periodos,
    ).toHaveLength(13);
    const imposible = await errorNegocio(s.facturacion(a, { hasta: '2026-02-30' }));
    expect([imposible.codigo, imposible.parametro]).toEqual(['fecha_invalida', 'hasta']);
  });
});

describe('salud de un webhook', () => {
  it('sin intentos, tasa nula; con fallas, la tasa con 4 decimales y el motivo en una frase', () => {
    expect(dtoSalud()).toEqual({
      intentos_24h: 0,
      exitosos_24h: 0,
      tasa_exito: null,
      ultimo_exito_en: null,
      fallando_desde: null,
      ultimo_error: null,
    });
    const en = new Date('2026-11-21T08:58:00.000Z');
    expect(
      dtoSalud({
        intentos24h: 3,
        exitosos24h: 2,
        ultimoExito: en,
        fallandoDesde: null,
        ultimoFallo: { en, status_http: 503, error: null },
      }),
    ).toMatchObject({
      tasa_exito: '0.6667',
      ultimo_error: {
        en: en.toISOString(),
        status_http: 503,
        codigo: 'status_http',
        mensaje: 'El webhook respondió HTTP 503',
      },
    });
    expect(
      dtoSalud({
        intentos24h: 1,
        exitosos24h: 0,
        ultimoExito: null,
        fallandoDesde: en,
        ultimoFallo: {
          en,
          status_http: null,
          error: { codigo: 'tiempo_agotado', mensaje: 'Sin respuesta en 10 s' },
        },
      }).ultimo_error,
    ).toEqual({
      en: en.toISOString(),
      status_http: null,
      codigo: 'tiempo_agotado',
      mensaje: 'Sin respuesta en 10 s',
    });
  });
});
