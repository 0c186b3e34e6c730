import type { PagoNuevo, RegistradorPagos, ServicioPagos } from '../../servicios/pagos';
import { crearEntornoActividades, errorNegocio, rechazoSinEscrituras } from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;
let llamadas: Parameters<RegistradorPagos['registrar']>[1][];
let servicio: ServicioPagos;
let rechazoPac: { codigo: string; mensaje: string } | undefined;

/**
 * The payment workflow without Temporal: the real ledger activity, then the fake stamping of the CFDI; a
 * rejection goes through the real `registrarRechazo`, as the workflow does.
 */
beforeEach(async () => {
  x = await crearEntornoActividades();
  llamadas = [];
  rechazoPac = undefined;
  servicio = x.servicioPagos({
    async registrar(a, pago) {
      llamadas.push(pago);
      const paso = await x.act.registrarPagoEnLibro({
        pagoId: pago.id,
        cuentaId: a.cuentaId,
        modo: a.modo,
      });
      if (paso.estado !== 'registrado') return;
      if (rechazoPac) {
        await x.act.registrarRechazo(x.entrada(paso.facturaPagoId), rechazoPac);
        return;
      }
      await x.s.timbrador.timbrar(a, { id: paso.facturaPagoId, organizacionId: pago.organizacionId });
    },
  });
});

const ppd = () => x.facturar({ metodo_pago: 'PPD', forma_pago: undefined });
// Invalid values are sent on purpose: a body reaches the service as whatever JSON arrived.
const pago = (factura: string, o: Partial<Record<keyof PagoNuevo, unknown>> = {}): PagoNuevo =>
  ({
    organizacion: x.ids.org,
    fecha_pago: x.reloj.ahora.toISOString(),
    forma_pago: '03',
    monto: '10.00',
    facturas_pagadas: [{ factura, imp_pagado: '10.00' }],
    ...o,
  }) as PagoNuevo;

describe('servicio de pagos', () => {
  it('registrado y timbrado: no pendiente, con sus parcialidades', async () => {
    const f = await ppd();
    const r = await servicio.crear(x.a, pago(f.id));
    expect(r.pendiente).toBe(false);
    expect(r.pago).toMatchObject({
      estado: 'timbrada',
      facturas_pagadas: [{ num_parcialidad: 1, vigente: true }],
    });
    expect(llamadas).toEqual([{ id: r.pago.id, organizacionId: x.ids.org, facturas: [f.id] }]);
  });

  it('timbrado en curso tras la espera: pendiente con el CFDI en borrador', async () => {
    const f = await ppd();
    x.s.timbrador.desenlace('pendiente');
    const r = await servicio.crear(x.a, pago(f.id));
    expect(r).toMatchObject({ pendiente: true, pago: { estado: 'borrador' } });
  });

  it('el PAC rechaza el CFDI de pago: timbrado_rechazado con la factura y el pago, y los saldos vuelven', async () => {
    const f = await ppd();
    rechazoPac = { codigo: 'CFDI40145', mensaje: 'rechazado' };
    const e = await errorNegocio(servicio.crear(x.a, pago(f.id)));
    expect(e).toMatchObject({ tipo: 'regla_de_negocio', codigo: 'timbrado_rechazado' });
    expect(e.message).toContain('CFDI40145');
    expect(e.detalle.pago).toMatch(/^pago_/);
    expect(e.detalle.factura).toMatch(/^fac_/);
    expect(await x.s.facturas.obtener(x.a, f.id)).toMatchObject({
      num_parcialidades: 0,
      saldo_insoluto: f.total,
    });
    const rechazado = await servicio.obtener(x.a, e.detalle.pago!);
    expect(rechazado).toMatchObject({
      estado: 'rechazado',
      error: { codigo: 'timbrado_rechazado' },
      facturas_pagadas: [{ factura: f.id, num_parcialidad: 1, vigente: false }],
    });
    // The refused CFDI cannot be stamped: its payment no longer counts.
    await expect(x.s.facturas.timbrar(x.a, e.detalle.factura!)).rejects.toMatchObject({
      codigo: 'cfdi_de_pago_rechazado',
    });
    // The instalment number is free again.
    rechazoPac = undefined;
    const otro = await servicio.crear(x.a, pago(f.id));
    expect(otro.pago.facturas_pagadas[0]).toMatchObject({ num_parcialidad: 1, vigente: true });
  });

  it('un pago a una factura con cancelación en curso: 409 cancelacion_en_curso', async () => {
    const f = await ppd();
    x.s.cancelador.desenlace('en_proceso');
    await x.s.facturas.cancelar(x.a, f.id, { motivo: '02' });
    const e = await errorNegocio(servicio.crear(x.a, pago(f.id)));
    expect(e).toMatchObject({ tipo: 'conflicto', codigo: 'cancelacion_en_curso' });
  });

  it('fecha_pago de hoy sin hora, antes del mediodía: la hora es este momento, no un mediodía futuro', async () => {
    const f = await ppd();
    // 09:30 in Tiempo del Centro (UTC−6).
    const dia = x.reloj.ahora.toISOString().slice(0, 10);
    x.reloj.ahora = new Date(`${dia}T15:30:00Z`);
    const r = await servicio.crear(x.a, pago(f.id, { fecha_pago: dia }));
    expect(r.pago.fecha_pago).toBe(`${dia}T09:30:00`);
  });

  it('una regla del libro se responde con su error y el pago queda rechazado fuera de las listas', async () => {
    const f = await ppd();
    const e = await errorNegocio(
      servicio.crear(
        x.a,
        pago(f.id, { monto: '999999.00', facturas_pagadas: [{ factura: f.id, imp_pagado: '999999.00' }] }),
      ),
    );
    expect(e).toMatchObject({ codigo: 'importe_excede_saldo', parametro: 'facturas_pagadas[0].imp_pagado' });
    const rechazo = await errorNegocio(servicio.crear(x.a, pago('fac_inexistente')));
    expect(rechazo).toMatchObject({ tipo: 'no_encontrado', codigo: 'factura_no_encontrada' });
    expect((await servicio.listar(x.a, {}, { limite: 10 })).datos).toEqual([]);
  });

  it.each([
    ['forma_pago_invalida', { forma_pago: '99' }],
    ['forma_pago_invalida', { forma_pago: '77' }],
    ['moneda_invalida', { moneda: 'XXX' }],
    ['tipo_cambio_requerido', { moneda: 'USD' }],
    ['tipo_cambio_no_permitido', { tipo_cambio: '17.50' }],
    ['importe_invalido', { monto: '0' }],
    ['decimales_excedidos', { monto: '10.001' }],
    ['fecha_pago_futura', { fecha_pago: '2099-01-01' }],
    ['fecha_invalida', { fecha_pago: '2025-02-30' }],
    ['fecha_invalida', { fecha_pago: '2025-06-01T25:00' }],
  ] as const)('%s: nada se escribe ni se inicia (%j)', async (codigo, cambio) => {
    const f = await ppd();
    const e = await rechazoSinEscrituras(x.m, () => servicio.crear(x.a, pago(f.id, cambio)));
    expect(e.codigo).toBe(codigo);
    expect(llamadas).toEqual([]);
  });

  it('la misma factura dos veces: 400 factura_repetida nombrando la segunda', async () => {
    const f = await ppd();
    const repetida = pago(f.id, {
      facturas_pagadas: [
        { factura: f.id, imp_pagado: '5.00' },
        { factura: f.id, imp_pagado: '5.00' },
      ],
    });
    const e = await rechazoSinEscrituras(x.m, () => servicio.crear(x.a, repetida));
    expect(e).toMatchObject({
      tipo: 'solicitud_invalida',
      codigo: 'factura_repetida',
      parametro: 'facturas_pagadas[1].factura',
    });
  });

  it('fecha_pago: solo la fecha es mediodía; con zona se pasa a la hora local del lugar de expedición', async () => {
    const f = await ppd();
    // The invoice was issued at the clock's time; the money arrives the next day.
    const dia = new Date(x.reloj.ahora.getTime() + 86_400_000).toISOString().slice(0, 10);
    x.reloj.ahora = new Date(x.reloj.ahora.getTime() + 2 * 86_400_000);
    const a = await servicio.crear(x.a, pago(f.id, { fecha_pago: `${dia}T06:00:00Z` }));
    // The seeded organization is in Tiempo del Centro (UTC−6 all year since 2022).
    expect(a.pago.fecha_pago).toBe(`${dia}T00:00:00`);
    const b = await servicio.crear(x.a, pago(f.id, { fecha_pago: dia }));
    expect(b.pago.fecha_pago).toBe(`${dia}T12:00:00`);
  });
});
