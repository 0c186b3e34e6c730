import type { WorkflowExecutionInfo } from '@temporalio/client';
import { ATRIBUTOS } from '../../workflows/atributos';
import { clienteHttp, type ClienteHttp } from '../support/cliente-http';
import { CLIENTE, habilitarLive, llaveLiveDirecta, ORGANIZACION } from '../support/cuentas';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { buscar, crearVerificadorPagos, type PagoApi } from '../support/pagos';
import { iniciarPila, type Pila } from '../support/pila';

/** A second receiver of the same organization (payments cover one receiver only). */
const OTRO_CLIENTE = {
  rfc: 'URE180429TM6',
  nombre: 'UNIVERSIDAD ROBOTICA ESPAÑOLA',
  regimen_fiscal: '601',
  domicilio_fiscal: '65000',
  uso_cfdi: 'G03',
};

/** Another organization of the same account: it only issues drafts here (its CSD is not needed). */
const OTRA_ORGANIZACION = {
  rfc: 'XIA190128J61',
  nombre: 'XENON INDUSTRIAL ARTICLES',
  regimen_fiscal: '601',
  codigo_postal: '42501',
};

/** One concept with IVA 16 %: subtotal = valor, total = valor × 1.16. */
const conceptoIva = (valor: string) => ({
  cantidad: '1',
  clave_prod_serv: '80111600',
  clave_unidad: 'E48',
  descripcion: 'Servicio de consultoría',
  valor_unitario: valor,
  objeto_imp: '02',
  impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
});

interface FacturaApi {
  id: string;
  uuid: string | null;
  total: string;
  fecha: string;
  estado: string;
}

const ahora = () => new Date().toISOString();
const diasDesdeHoy = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const INEXISTENTE = 'fac_01kzzzzzzzzzzzzzzzzzzzzzzz';

describe('pagos: reglas del registro, moneda extranjera, varias facturas, lecturas y operación', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  let otraCuenta: Awaited<ReturnType<typeof cuentaLista>>;
  let otraOrg: string;
  let live: ClienteHttp;
  let orgLive: string;
  const f: Record<
    | 'ppd'
    | 'pue'
    | 'borrador'
    | 'cancelada'
    | 'deOtroCliente'
    | 'deOtraOrg'
    | 'deOtraCuenta'
    | 'live'
    | 'mxn'
    | 'usd'
    | 'g'
    | 'h',
    FacturaApi
  > = {} as never;
  const verificador = crearVerificadorPagos(() => c.http);
  /** Every payment registered in this file, with the CFDI already checked. */
  const registrados: PagoApi[] = [];

  const crearFactura = async (
    http: ClienteHttp,
    cuerpo: Record<string, unknown>,
    status = 201,
  ): Promise<FacturaApi> => {
    const r = await http.post('/v1/facturas', cuerpo);
    expect({ status: r.status, error: r.body.error }).toEqual({ status, error: undefined });
    return r.body;
  };
  const ppd = (extra: Record<string, unknown> = {}) =>
    crearFactura(c.http, facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined, ...extra }));

  beforeAll(async () => {
    // The refusal checks read a lot: a roomy rate limit.
    pila = await iniciarPila({ timbradoEsperaMs: 15_000, limite: { porSegundo: 5000, rafaga: 5000 } });
    [c, otraCuenta] = await Promise.all([cuentaLista(pila), cuentaLista(pila)]);
    const [cli2, org2] = await Promise.all([
      c.http.post('/v1/clientes', { ...OTRO_CLIENTE, organizacion: c.org }),
      c.http.post('/v1/organizaciones', OTRA_ORGANIZACION),
    ]);
    expect([cli2.status, org2.status]).toEqual([201, 201]);
    otraOrg = org2.body.id;
    expect((await c.http.post('/v1/clientes', { ...CLIENTE, organizacion: otraOrg })).status).toBe(201);

    // The same account's live mode: a draft there is enough (the test configuration has no live PAC).
    await habilitarLive(pila.db, c.cuentaId);
    live = clienteHttp(pila.url, await llaveLiveDirecta(pila.db, c.cuentaId));
    const creada = await live.post('/v1/organizaciones', ORGANIZACION);
    expect(creada.status).toBe(201);
    orgLive = creada.body.id;
    expect((await live.post('/v1/clientes', { ...CLIENTE, organizacion: orgLive })).status).toBe(201);

    const borradorPpd = { metodo_pago: 'PPD', auto_timbrar: false, conceptos: [conceptoIva('100')] };
    [
      f.ppd,
      f.pue,
      f.borrador,
      f.cancelada,
      f.deOtroCliente,
      f.deOtraOrg,
      f.deOtraCuenta,
      f.live,
      f.mxn,
      f.usd,
      f.g,
      f.h,
    ] = await Promise.all([
      ppd(),
      crearFactura(c.http, facturaNueva(c)),
      crearFactura(c.http, { ...facturaNueva(c, borradorPpd), forma_pago: undefined }),
      ppd(),
      ppd({ cliente: OTRO_CLIENTE.rfc }),
      crearFactura(c.http, {
        ...facturaNueva(c, borradorPpd),
        organizacion: otraOrg,
        forma_pago: undefined,
      }),
      // Content of its own: the sandbox PAC takes the same XML in the same second as a duplicate.
      crearFactura(
        otraCuenta.http,
        facturaNueva(otraCuenta, {
          metodo_pago: 'PPD',
          forma_pago: undefined,
          conceptos: [conceptoIva('777')],
        }),
      ),
      crearFactura(live, {
        ...facturaNueva(c, borradorPpd),
        organizacion: orgLive,
        forma_pago: undefined,
      }),
      ppd({ conceptos: [conceptoIva('5000')] }),
      ppd({ moneda: 'USD', tipo_cambio: '20', conceptos: [conceptoIva('100')] }),
      ppd(),
      // 20000 + 16 % = 23200.00: a payment of 12000.00 has BaseDR 10344.83 and ImporteDR 1655.17.
      ppd({ conceptos: [conceptoIva('20000')] }),
    ]);
    expect([f.borrador.estado, f.deOtraOrg.estado, f.live.estado]).toEqual([
      'borrador',
      'borrador',
      'borrador',
    ]);
    expect(f.h.total).toBe('23200.00');
    const cancelar = await c.http.post(`/v1/facturas/${f.cancelada.id}/cancelar`, { motivo: '02' });
    expect(cancelar.body).toMatchObject({ estado: 'cancelada' });
  });
  afterAll(async () => {
    verificador.borrar();
    await pila?.detener();
  });

  /** Registers a payment that must be stamped (201) and checks its CFDI. */
  const pagar = async (cuerpo: Record<string, unknown>) => {
    const r = await c.http.post('/v1/pagos', { organizacion: c.org, forma_pago: '03', ...cuerpo });
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 201, error: null });
    const pago = r.body as PagoApi;
    registrados.push(pago);
    return { pago, xml: await verificador.comprobar(pago) };
  };

  /** What a refused payment must leave untouched: balances, instalments, payment lists and events. */
  const foto = async () => {
    const propias = [f.ppd, f.pue, f.borrador, f.cancelada, f.deOtroCliente, f.deOtraOrg];
    const [facturas, listas, todos, eventos, ajena] = await Promise.all([
      Promise.all(propias.map((x) => c.http.get(`/v1/facturas/${x.id}`))),
      // The whole list covers every invoice's; the paid one's own list too, as a client reads it.
      Promise.all([f.ppd, f.deOtroCliente].map((x) => c.http.get(`/v1/pagos?factura=${x.id}`))),
      c.http.get('/v1/pagos?paginacion.limite=100'),
      c.http.get('/v1/eventos?tipo=pago.creado&paginacion.limite=100'),
      otraCuenta.http.get(`/v1/facturas/${f.deOtraCuenta.id}`),
    ]);
    return {
      facturas: facturas.map((r) => ({
        id: r.body.id,
        saldo_insoluto: r.body.saldo_insoluto,
        num_parcialidades: r.body.num_parcialidades,
        parcialidades: r.body.parcialidades,
      })),
      listas: listas.map((r) => r.body.datos.map((p: { id: string }) => p.id)),
      todos: todos.body.datos.map((p: { id: string }) => p.id),
      eventos: eventos.body.datos.map((e: { id: string }) => e.id),
      ajena: [ajena.body.saldo_insoluto, ajena.body.num_parcialidades],
    };
  };

  describe('rechazos: nada se escribe', () => {
    const pedido = (facturas: [keyof typeof f | string, string][], extra: Record<string, unknown> = {}) => ({
      organizacion: c.org,
      fecha_pago: ahora(),
      forma_pago: '03',
      monto: facturas.reduce((s, [, imp]) => s + Number(imp), 0).toFixed(2),
      facturas_pagadas: facturas.map(([k, imp]) => ({
        factura: k in f ? f[k as keyof typeof f].id : k,
        imp_pagado: imp,
      })),
      ...extra,
    });
    const casos: [string, () => Record<string, unknown>, number, string, string][] = [
      [
        'una factura PUE',
        () =>
          pedido([
            ['ppd', '100.00'],
            ['pue', '100.00'],
          ]),
        422,
        'factura_no_ppd',
        'facturas_pagadas[1].factura',
      ],
      [
        'una factura en borrador',
        () =>
          pedido([
            ['ppd', '100.00'],
            ['borrador', '10.00'],
          ]),
        409,
        'factura_no_timbrada',
        'facturas_pagadas[1].factura',
      ],
      [
        'una factura cancelada',
        () => pedido([['cancelada', '100.00']]),
        409,
        'factura_no_timbrada',
        'facturas_pagadas[0].factura',
      ],
      [
        'una factura inexistente',
        () =>
          pedido([
            ['ppd', '100.00'],
            [INEXISTENTE, '1.00'],
          ]),
        404,
        'factura_no_encontrada',
        'facturas_pagadas[1].factura',
      ],
      [
        'una factura de otra cuenta',
        () =>
          pedido([
            ['ppd', '100.00'],
            ['deOtraCuenta', '1.00'],
          ]),
        404,
        'factura_no_encontrada',
        'facturas_pagadas[1].factura',
      ],
      [
        'una factura del otro modo (live) de la misma cuenta',
        () =>
          pedido([
            ['ppd', '100.00'],
            ['live', '1.00'],
          ]),
        404,
        'factura_no_encontrada',
        'facturas_pagadas[1].factura',
      ],
      [
        'una factura de otra organización de la cuenta',
        () =>
          pedido([
            ['ppd', '100.00'],
            ['deOtraOrg', '1.00'],
          ]),
        422,
        'factura_de_otra_organizacion',
        'facturas_pagadas[1].factura',
      ],
      [
        'facturas de dos receptores',
        () =>
          pedido([
            ['ppd', '100.00'],
            ['deOtroCliente', '100.00'],
          ]),
        422,
        'receptores_distintos',
        'facturas_pagadas[1].factura',
      ],
      [
        'la misma factura dos veces',
        () =>
          pedido([
            ['ppd', '100.00'],
            ['ppd', '50.00'],
          ]),
        400,
        'factura_repetida',
        'facturas_pagadas[1].factura',
      ],
      [
        'imp_pagado 0',
        () => pedido([['ppd', '0']], { monto: '100.00' }),
        422,
        'importe_invalido',
        'facturas_pagadas[0].imp_pagado',
      ],
      ['monto 0', () => pedido([['ppd', '100.00']], { monto: '0' }), 422, 'importe_invalido', 'monto'],
      [
        'imp_pagado mayor que el saldo',
        () => pedido([['ppd', (Number(f.ppd.total) + 0.01).toFixed(2)]]),
        422,
        'importe_excede_saldo',
        'facturas_pagadas[0].imp_pagado',
      ],
      [
        'monto menor que la suma de imp_pagado',
        () => pedido([['ppd', '100.00']], { monto: '99.99' }),
        422,
        'monto_insuficiente',
        'monto',
      ],
      [
        'moneda USD sin tipo_cambio',
        () => pedido([['ppd', '100.00']], { moneda: 'USD', monto: '5.00' }),
        400,
        'tipo_cambio_requerido',
        'tipo_cambio',
      ],
      [
        'MXN con tipo_cambio distinto de 1',
        () => pedido([['ppd', '100.00']], { tipo_cambio: '17.5' }),
        400,
        'tipo_cambio_no_permitido',
        'tipo_cambio',
      ],
      [
        'moneda fuera de c_Moneda',
        () => pedido([['ppd', '100.00']], { moneda: 'ZZZ', tipo_cambio: '1' }),
        422,
        'moneda_invalida',
        'moneda',
      ],
      [
        'fecha_pago futura',
        () => pedido([['ppd', '100.00']], { fecha_pago: diasDesdeHoy(2) }),
        422,
        'fecha_pago_futura',
        'fecha_pago',
      ],
      [
        'fecha_pago anterior a la factura',
        () => pedido([['ppd', '100.00']], { fecha_pago: diasDesdeHoy(-3) }),
        422,
        'fecha_pago_anterior',
        'fecha_pago',
      ],
      [
        'forma_pago 99',
        () => pedido([['ppd', '100.00']], { forma_pago: '99' }),
        422,
        'forma_pago_invalida',
        'forma_pago',
      ],
      [
        'monto con 3 decimales en MXN',
        () => pedido([['ppd', '10.00']], { monto: '10.001' }),
        422,
        'decimales_excedidos',
        'monto',
      ],
      [
        'imp_pagado con 3 decimales en MXN',
        () => pedido([['ppd', '10.001']], { monto: '10.01' }),
        422,
        'decimales_excedidos',
        'facturas_pagadas[0].imp_pagado',
      ],
      [
        'monto con 7 decimales (esquema)',
        () => pedido([['ppd', '10.00']], { monto: '10.0000001' }),
        400,
        'parametro_invalido',
        'monto',
      ],
      [
        'organización inexistente',
        () => pedido([['ppd', '100.00']], { organizacion: 'org_01kzzzzzzzzzzzzzzzzzzzzzzz' }),
        404,
        'organizacion_no_encontrada',
        'organizacion',
      ],
    ];

    const filas = casos.map(([nombre, cuerpo, status, codigo, parametro]) => ({
      nombre,
      cuerpo,
      status,
      codigo,
      parametro,
    }));
    it.each(filas)('$nombre → $status $codigo', async ({ cuerpo, status, codigo, parametro }) => {
      const antes = await foto();
      const r = await c.http.post('/v1/pagos', cuerpo());
      expect({ status: r.status, codigo: r.body.error?.codigo, parametro: r.body.error?.parametro }).toEqual({
        status,
        codigo,
        parametro,
      });
      const tipo = {
        400: 'solicitud_invalida',
        404: 'no_encontrado',
        409: 'conflicto',
        422: 'regla_de_negocio',
      };
      expect(r.body.error.tipo).toBe(tipo[status as keyof typeof tipo]);
      expect(await foto()).toEqual(antes);
    });

    it('modo live sin PAC configurado: 503 pac_no_disponible y nada registrado', async () => {
      const r = await live.post('/v1/pagos', {
        organizacion: orgLive,
        fecha_pago: ahora(),
        forma_pago: '03',
        monto: '1.00',
        facturas_pagadas: [{ factura: f.live.id, imp_pagado: '1.00' }],
      });
      expect(r.status).toBe(503);
      expect(r.body.error).toMatchObject({ tipo: 'servicio_no_disponible', codigo: 'pac_no_disponible' });
      expect((await live.get('/v1/pagos')).body.datos).toEqual([]);
      expect(await pila.db('pagos').where({ cuenta_id: c.cuentaId, modo: 'live' })).toEqual([]);
    });

    it('los rechazos no tocaron la factura: un pago del saldo completo sigue siendo la parcialidad 1', async () => {
      const { pago } = await pagar({
        fecha_pago: ahora(),
        monto: f.ppd.total,
        facturas_pagadas: [{ factura: f.ppd.id, imp_pagado: f.ppd.total }],
      });
      expect(pago.facturas_pagadas[0]).toMatchObject({
        num_parcialidad: 1,
        imp_saldo_anterior: f.ppd.total,
        imp_saldo_insoluto: '0.00',
      });
    });
  });

  describe('moneda extranjera', () => {
    it('factura MXN pagada en USD: MonedaP USD, TipoCambioP y EquivalenciaDR; saldo en pesos', async () => {
      // 5800.00 MXN; 1725.00 MXN at 17.25 MXN/USD = 100.00 USD.
      expect(f.mxn.total).toBe('5800.00');
      const { pago, xml } = await pagar({
        fecha_pago: ahora(),
        moneda: 'USD',
        tipo_cambio: '17.25',
        monto: '100.00',
        facturas_pagadas: [{ factura: f.mxn.id, imp_pagado: '1725.00', equivalencia: '17.25' }],
      });
      expect(pago).toMatchObject({ moneda: 'USD', tipo_cambio: '17.25', monto: '100.00' });
      expect(pago.facturas_pagadas[0]).toMatchObject({
        moneda: 'MXN',
        equivalencia: '17.25',
        imp_saldo_anterior: '5800.00',
        imp_pagado: '1725.00',
        imp_saldo_insoluto: '4075.00',
      });
      const [p] = buscar(xml, 'pago20:Pago');
      expect(p!.atributos).toMatchObject({ MonedaP: 'USD', TipoCambioP: '17.25', Monto: '100.00' });
      const [dr] = buscar(xml, 'pago20:DoctoRelacionado');
      expect(dr!.atributos).toMatchObject({ MonedaDR: 'MXN', EquivalenciaDR: '17.25' });
      // Totales in pesos: 100.00 USD × 17.25.
      expect(buscar(xml, 'pago20:Totales')[0]!.atributos.MontoTotalPagos).toBe('1725.00');
      const leida = await c.http.get(`/v1/facturas/${f.mxn.id}`);
      expect(leida.body).toMatchObject({ saldo_insoluto: '4075.00', num_parcialidades: 1 });
    });

    it('factura USD pagada en MXN: EquivalenciaDR en dólares por peso; sin equivalencia → 400 equivalencia_requerida', async () => {
      expect(f.usd.total).toBe('116.00');
      const sin = {
        organizacion: c.org,
        fecha_pago: ahora(),
        forma_pago: '03',
        monto: '2320.00',
        facturas_pagadas: [{ factura: f.usd.id, imp_pagado: '116.00' }],
      };
      const antes = await c.http.get(`/v1/facturas/${f.usd.id}`);
      const r = await c.http.post('/v1/pagos', sin);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        tipo: 'solicitud_invalida',
        codigo: 'equivalencia_requerida',
        parametro: 'facturas_pagadas[0].equivalencia',
      });
      expect((await c.http.get(`/v1/facturas/${f.usd.id}`)).body).toEqual(antes.body);
      expect((await c.http.get(`/v1/pagos?factura=${f.usd.id}`)).body.datos).toEqual([]);

      // 0.05 USD per MXN (20 MXN/USD): 58.00 USD = 1160.00 MXN. The organization by its RFC.
      const { pago, xml } = await pagar({
        ...sin,
        organizacion: ORGANIZACION.rfc,
        monto: '1160.00',
        facturas_pagadas: [{ factura: f.usd.id, imp_pagado: '58.00', equivalencia: '0.05' }],
      });
      expect(pago).toMatchObject({ organizacion: c.org, moneda: 'MXN', tipo_cambio: null, monto: '1160.00' });
      expect(pago.facturas_pagadas[0]).toMatchObject({
        moneda: 'USD',
        equivalencia: '0.05',
        imp_saldo_anterior: '116.00',
        imp_saldo_insoluto: '58.00',
      });
      const [p] = buscar(xml, 'pago20:Pago');
      expect(p!.atributos).toMatchObject({ MonedaP: 'MXN', TipoCambioP: '1', Monto: '1160.00' });
      const [dr] = buscar(xml, 'pago20:DoctoRelacionado');
      expect(dr!.atributos).toMatchObject({ MonedaDR: 'USD', EquivalenciaDR: '0.05' });
      // Half of 100 USD base + 16 USD IVA, in pesos.
      expect(buscar(xml, 'pago20:Totales')[0]!.atributos).toEqual({
        TotalTrasladosBaseIVA16: '1000.00',
        TotalTrasladosImpuestoIVA16: '160.00',
        MontoTotalPagos: '1160.00',
      });

      // The rest in dollars: same currency, EquivalenciaDR 1, Totales at 20.50 MXN/USD.
      const resto = await pagar({
        fecha_pago: ahora(),
        moneda: 'USD',
        tipo_cambio: '20.5',
        monto: '58.00',
        facturas_pagadas: [{ factura: f.usd.id, imp_pagado: '58.00' }],
      });
      expect(resto.pago.facturas_pagadas[0]).toMatchObject({
        num_parcialidad: 2,
        equivalencia: null,
        imp_saldo_anterior: '58.00',
        imp_saldo_insoluto: '0.00',
      });
      expect(buscar(resto.xml, 'pago20:Pago')[0]!.atributos).toMatchObject({
        MonedaP: 'USD',
        Monto: '58.00',
      });
      expect(buscar(resto.xml, 'pago20:DoctoRelacionado')[0]!.atributos).toMatchObject({
        MonedaDR: 'USD',
        EquivalenciaDR: '1',
      });
      expect(buscar(resto.xml, 'pago20:Totales')[0]!.atributos).toEqual({
        TotalTrasladosBaseIVA16: '1025.00',
        TotalTrasladosImpuestoIVA16: '164.00',
        MontoTotalPagos: '1189.00',
      });
      expect((await c.http.get(`/v1/facturas/${f.usd.id}`)).body).toMatchObject({
        saldo_insoluto: '0.00',
        num_parcialidades: 2,
      });
    });
  });

  describe('un pago de dos facturas del mismo receptor', () => {
    it('12000.00 de una factura de 23200.00: BaseDR 10344.83 e ImporteDR 1655.17 (cifras a mano)', async () => {
      const { pago, xml } = await pagar({
        fecha_pago: ahora(),
        monto: '12000.00',
        facturas_pagadas: [{ factura: f.h.id, imp_pagado: '12000.00' }],
      });
      expect(pago.facturas_pagadas[0]).toMatchObject({
        num_parcialidad: 1,
        imp_saldo_anterior: '23200.00',
        imp_saldo_insoluto: '11200.00',
        objeto_imp: '02',
      });
      const [traslado] = buscar(xml, 'pago20:TrasladoDR');
      expect(traslado!.atributos).toMatchObject({ ImpuestoDR: '002', TipoFactorDR: 'Tasa' });
      expect(Number(traslado!.atributos.BaseDR).toFixed(2)).toBe('10344.83');
      expect(Number(traslado!.atributos.ImporteDR).toFixed(2)).toBe('1655.17');
      expect(buscar(xml, 'pago20:Totales')[0]!.atributos).toEqual({
        TotalTrasladosBaseIVA16: '10344.83',
        TotalTrasladosImpuestoIVA16: '1655.17',
        MontoTotalPagos: '12000.00',
      });
    });

    it('un DoctoRelacionado por factura, cada uno con su NumParcialidad y sus saldos', async () => {
      const primero = await pagar({
        fecha_pago: ahora(),
        monto: '1000.00',
        facturas_pagadas: [{ factura: f.g.id, imp_pagado: '1000.00' }],
      });
      expect(primero.pago.facturas_pagadas[0]!.num_parcialidad).toBe(1);
      const saldoG = (Number(f.g.total) - 1000).toFixed(2);

      const { pago, xml } = await pagar({
        fecha_pago: ahora(),
        monto: '5200.00',
        facturas_pagadas: [
          { factura: f.h.id, imp_pagado: '4700.00' },
          { factura: f.g.id, imp_pagado: '500.00' },
        ],
      });
      expect(pago.facturas_pagadas).toEqual([
        expect.objectContaining({
          factura: f.h.id,
          uuid: f.h.uuid,
          num_parcialidad: 2,
          imp_saldo_anterior: '11200.00',
          imp_pagado: '4700.00',
          imp_saldo_insoluto: '6500.00',
          vigente: true,
        }),
        expect.objectContaining({
          factura: f.g.id,
          uuid: f.g.uuid,
          num_parcialidad: 2,
          imp_saldo_anterior: saldoG,
          imp_pagado: '500.00',
          imp_saldo_insoluto: (Number(saldoG) - 500).toFixed(2),
          vigente: true,
        }),
      ]);
      const doctos = buscar(xml, 'pago20:DoctoRelacionado');
      expect(doctos.map((x) => [x.atributos.IdDocumento, x.atributos.NumParcialidad])).toEqual([
        [f.h.uuid, '2'],
        [f.g.uuid, '2'],
      ]);
      expect(buscar(xml, 'pago20:Pago')).toHaveLength(1);

      // A third payment of h alone, to make its numbering differ from g's.
      // Amounts without decimals are written with the currency's two.
      const tercero = await pagar({
        fecha_pago: ahora(),
        monto: '500',
        facturas_pagadas: [{ factura: f.h.id, imp_pagado: '500' }],
      });
      expect(tercero.pago).toMatchObject({ monto: '500.00' });
      expect(tercero.pago.facturas_pagadas[0]).toMatchObject({ imp_pagado: '500.00' });
      expect(tercero.pago.facturas_pagadas[0]).toMatchObject({
        num_parcialidad: 3,
        imp_saldo_insoluto: '6000.00',
      });
      const [h, g] = await Promise.all([
        c.http.get(`/v1/facturas/${f.h.id}`),
        c.http.get(`/v1/facturas/${f.g.id}`),
      ]);
      expect(h.body).toMatchObject({ saldo_insoluto: '6000.00', num_parcialidades: 3 });
      expect(g.body).toMatchObject({
        saldo_insoluto: (Number(saldoG) - 500).toFixed(2),
        num_parcialidades: 2,
      });
      expect(h.body.parcialidades.map((p: { pago: string }) => p.pago)).toEqual(
        registrados.filter((p) => p.facturas_pagadas.some((x) => x.factura === f.h.id)).map((p) => p.id),
      );
    });
  });

  describe('pagos simultáneos de una factura', () => {
    it('tres pagos a la vez de 500.00 a una factura de 1160.00: parcialidades 1 y 2 sin huecos y uno rechazado por saldo', async () => {
      const x = await ppd({ conceptos: [conceptoIva('1000')] });
      const cuerpo = {
        organizacion: c.org,
        forma_pago: '03',
        monto: '500.00',
        facturas_pagadas: [{ factura: x.id, imp_pagado: '500.00' }],
      };
      const rs = await Promise.all(
        Array.from({ length: 3 }, () => c.http.post('/v1/pagos', { ...cuerpo, fecha_pago: ahora() })),
      );
      expect(rs.map((r) => r.status).sort()).toEqual([201, 201, 422]);
      expect(rs.find((r) => r.status === 422)!.body.error).toMatchObject({
        codigo: 'importe_excede_saldo',
        parametro: 'facturas_pagadas[0].imp_pagado',
      });
      const pagos = rs
        .filter((r) => r.status === 201)
        .map((r) => r.body as PagoApi)
        .sort((a, b) => a.facturas_pagadas[0]!.num_parcialidad - b.facturas_pagadas[0]!.num_parcialidad);
      for (const p of pagos) registrados.push(p);
      for (const p of pagos) await verificador.comprobar(p);
      expect(pagos.map((p) => p.facturas_pagadas[0]!.num_parcialidad)).toEqual([1, 2]);
      // Each instalment starts from the balance the previous one left.
      expect(
        pagos.map((p) => [
          p.facturas_pagadas[0]!.imp_saldo_anterior,
          p.facturas_pagadas[0]!.imp_saldo_insoluto,
        ]),
      ).toEqual([
        ['1160.00', '660.00'],
        ['660.00', '160.00'],
      ]);
      expect((await c.http.get(`/v1/facturas/${x.id}`)).body).toMatchObject({
        saldo_insoluto: '160.00',
        num_parcialidades: 2,
      });
    });
  });

  describe('lecturas', () => {
    const recorrer = async (ruta: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      let paginas = 0;
      do {
        const sep = ruta.includes('?') ? '&' : '?';
        const r: { status: number; body: any } = await c.http.get(
          `${ruta}${sep}paginacion.limite=1${cursor ? `&paginacion.cursor_inicio=${cursor}` : ''}`,
        );
        expect(r.status).toBe(200);
        expect(r.body.datos.length).toBeLessThanOrEqual(1);
        ids.push(...r.body.datos.map((p: { id: string }) => p.id));
        cursor = r.body.paginacion.hay_mas ? r.body.paginacion.siguiente_cursor : null;
        paginas++;
      } while (cursor && paginas < 50);
      return ids;
    };
    // Ids are time-ordered: newest first is descending id order.
    const masNuevoPrimero = (pagos: PagoApi[]) =>
      pagos
        .map((p) => p.id)
        .sort()
        .reverse();

    it('GET /v1/pagos por organización (id o RFC) y por factura, recorrido de a uno con cursor', async () => {
      expect(registrados.length).toBeGreaterThanOrEqual(5);
      expect(await recorrer(`/v1/pagos?organizacion=${c.org}`)).toEqual(masNuevoPrimero(registrados));
      expect(await recorrer(`/v1/pagos?organizacion=${ORGANIZACION.rfc}`)).toEqual(
        masNuevoPrimero(registrados),
      );
      expect(await recorrer(`/v1/pagos?factura=${f.h.id}`)).toEqual(
        masNuevoPrimero(registrados.filter((p) => p.facturas_pagadas.some((x) => x.factura === f.h.id))),
      );
      const deOtraOrg = await c.http.get(`/v1/pagos?organizacion=${otraOrg}`);
      expect(deOtraOrg.body).toMatchObject({
        datos: [],
        paginacion: { hay_mas: false, siguiente_cursor: null },
      });
      expect((await c.http.get(`/v1/pagos?factura=${f.pue.id}`)).body.datos).toEqual([]);
      const uno = await c.http.get(`/v1/pagos/${registrados[0]!.id}`);
      expect(uno.body).toMatchObject({ id: registrados[0]!.id, estado: 'timbrada', error: null });
      // One pago.creado per registered payment, none for the refused ones.
      const eventos = await c.http.get('/v1/eventos?tipo=pago.creado&paginacion.limite=100');
      expect(eventos.body.datos.map((e: { datos: { id: string } }) => e.datos.id).sort()).toEqual(
        registrados.map((p) => p.id).sort(),
      );
    });

    it('el CFDI de pago es una factura tipo pago sin saldo; pagarlo → 422 factura_no_ppd', async () => {
      const p = registrados[0]!;
      const cfdi = await c.http.get(`/v1/facturas/${p.factura_pago}`);
      expect(cfdi.body).toMatchObject({
        tipo: 'pago',
        estado: 'timbrada',
        uuid: p.uuid,
        pago: p.id,
        moneda: 'XXX',
        total: '0',
        saldo_insoluto: null,
        num_parcialidades: 0,
        parcialidades: [],
      });
      const r = await c.http.post('/v1/pagos', {
        organizacion: c.org,
        fecha_pago: ahora(),
        forma_pago: '03',
        monto: '1.00',
        facturas_pagadas: [{ factura: p.factura_pago, imp_pagado: '1.00' }],
      });
      expect(r.status).toBe(422);
      expect(r.body.error).toMatchObject({
        codigo: 'factura_no_ppd',
        parametro: 'facturas_pagadas[0].factura',
      });
    });

    it('un pago rechazado bajo el bloqueo se lee como rechazado, con su error, y no se lista', async () => {
      const [fila] = await pila
        .db('pagos')
        .where({ cuenta_id: c.cuentaId, modo: 'test', estado: 'rechazado' })
        .orderBy('id')
        .limit(1);
      const r = await c.http.get(`/v1/pagos/${fila.id}`);
      expect(r.body).toMatchObject({
        estado: 'rechazado',
        factura_pago: null,
        uuid: null,
        error: {
          tipo: 'regla_de_negocio',
          codigo: 'factura_no_ppd',
          parametro: 'facturas_pagadas[1].factura',
        },
      });
      expect(r.body.facturas_pagadas[1]).toMatchObject({
        factura: f.pue.id,
        num_parcialidad: null,
        imp_saldo_anterior: null,
        vigente: false,
      });
      const d = await pila.cliente.workflow.getHandle(`pago:${fila.id}`).describe();
      expect(d.typedSearchAttributes.get(ATRIBUTOS.EstadoFactura)).toBe('rechazado');
      expect(d.typedSearchAttributes.get(ATRIBUTOS.FacturaId)).toBeUndefined();
    });

    it('de otra cuenta o inexistente: 404 (pago_no_encontrado, factura_no_encontrada, organizacion_no_encontrada)', async () => {
      const ajeno = await otraCuenta.http.get(`/v1/pagos/${registrados[0]!.id}`);
      expect(ajeno.status).toBe(404);
      expect(ajeno.body.error).toMatchObject({ tipo: 'no_encontrado', codigo: 'pago_no_encontrado' });
      const inexistente = await c.http.get('/v1/pagos/pago_01kzzzzzzzzzzzzzzzzzzzzzzz');
      expect(inexistente.status).toBe(404);
      expect(inexistente.body.error.codigo).toBe('pago_no_encontrado');
      for (const factura of [INEXISTENTE, f.deOtraCuenta.id]) {
        const r = await c.http.get(`/v1/pagos?factura=${factura}`);
        expect(r.status).toBe(404);
        expect(r.body.error).toMatchObject({ codigo: 'factura_no_encontrada', parametro: 'factura' });
      }
      const porFacturaAjena = await otraCuenta.http.get(`/v1/pagos?factura=${f.h.id}`);
      expect(porFacturaAjena.status).toBe(404);
      const org = await c.http.get('/v1/pagos?organizacion=org_01kzzzzzzzzzzzzzzzzzzzzzzz');
      expect(org.status).toBe(404);
      expect(org.body.error.codigo).toBe('organizacion_no_encontrada');
      expect((await otraCuenta.http.get('/v1/pagos')).body.datos).toEqual([]);
    });
  });

  describe('operación (Temporal)', () => {
    it('pago:{id} lleva PagoId, OrganizacionId, FacturasPagadas y FacturaId; FacturasPagadas="fac_…" lo encuentra', async () => {
      const doble = registrados.find((p) => p.facturas_pagadas.length === 2)!;
      const d = await pila.cliente.workflow.getHandle(`pago:${doble.id}`).describe();
      const sa = d.typedSearchAttributes;
      expect(sa.get(ATRIBUTOS.PagoId)).toBe(doble.id);
      expect(sa.get(ATRIBUTOS.OrganizacionId)).toBe(c.org);
      expect(sa.get(ATRIBUTOS.FacturasPagadas)).toEqual([f.h.id, f.g.id]);
      expect(sa.get(ATRIBUTOS.FacturaId)).toBe(doble.factura_pago);
      expect(sa.get(ATRIBUTOS.CuentaId)).toBe(c.cuentaId);
      expect(sa.get(ATRIBUTOS.Modo)).toBe('test');
      expect(sa.get(ATRIBUTOS.EstadoFactura)).toBe('timbrada');

      const deH = registrados
        .filter((p) => p.facturas_pagadas.some((x) => x.factura === f.h.id))
        .map((p) => `pago:${p.id}`)
        .sort();
      // The dev server's visibility lags a little behind.
      const encontrados = await esperar(async () => {
        const ids: string[] = [];
        const lista: AsyncIterable<WorkflowExecutionInfo> = pila.cliente.workflow.list({
          query: `FacturasPagadas = "${f.h.id}"`,
        });
        for await (const w of lista) ids.push(w.workflowId);
        ids.sort();
        return ids.length === deH.length ? ids : undefined;
      }, 10_000);
      expect(encontrados).toEqual(deH);
      const tipos = await esperar(async () => {
        const t: string[] = [];
        for await (const w of pila.cliente.workflow.list({ query: `FacturaId = "${doble.factura_pago}"` }))
          t.push(w.type);
        return t.includes('registrarPagoV2') ? t : undefined;
      }, 10_000);
      expect(tipos).toContain('registrarPagoV2');
    });
  });

  it('cada CFDI de pago del archivo valida contra los esquemas del SAT (xmllint)', () => {
    expect(verificador.validarEsquemas()).toBe(registrados.length);
  });
});
