import { crearLogger } from '../../log/logger';
import { crearReanudador } from '../../temporal/reanudador';
import { crearContextoActividad } from '../support/memoria';
import { crearEntornoActividades } from '../support/memoria/servicios';
import { crearClienteTemporalEnMemoria } from '../support/memoria/temporal';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;
beforeEach(async () => {
  x = await crearEntornoActividades();
});

const SONDEO = { intervaloSondeoMs: 30_000, plazoMs: 600_000 };

/** The reconciler as the worker wires it, run `minutos` after now (the rows carry the real clock). */
function reanudador(minutos: number, o: { lote?: number } = {}) {
  const temporal = crearClienteTemporalEnMemoria();
  const r = crearReanudador({
    cliente: temporal.cliente,
    taskQueue: 'cfdi',
    facturas: x.m.facturas,
    pagos: x.m.pagos,
    recibos: x.m.recibos,
    organizaciones: x.m.organizaciones,
    programador: { sincronizar: async () => undefined },
    cancelacion: SONDEO,
    logger: crearLogger('prueba', 'silent'),
    ahora: () => new Date(Date.now() + minutos * 60_000),
    lote: o.lote,
  });
  return { ...r, temporal };
}

/** An invoice whose stamping was committed but whose workflow start never reached Temporal. */
async function timbradoPendiente() {
  x.s.timbrador.desenlace('pendiente');
  return x.facturar();
}

async function pagoRegistrando() {
  const f = await x.facturar({ metodo_pago: 'PPD', forma_pago: undefined });
  const id = `pago_${String(Math.random()).slice(2, 12)}`;
  await x.m.pagos.crear(x.a, {
    id,
    organizacion_id: x.ids.org,
    solicitud: {
      serie: 'P',
      fecha_pago: '2025-06-01T10:00:00',
      forma_pago: '03',
      moneda: 'MXN',
      decimales_moneda: 2,
      tipo_cambio: null,
      monto: '100.00',
      facturas_pagadas: [{ factura: f.id, imp_pagado: '100.00', equivalencia: null }],
    },
  });
  return { id, factura: f.id };
}

describe('reanudador de inicios', () => {
  it('inicia el workflow de cada timbrado, cancelación y pago pendiente, con la entrada que daría la API', async () => {
    const pendiente = await timbradoPendiente();
    const timbrada = await x.facturar();
    x.s.cancelador.desenlace('sin_respuesta');
    await x.s.facturas.cancelar(x.a, timbrada.id, { motivo: '02' });
    const pago = await pagoRegistrando();
    await x.facturar({ auto_timbrar: false });

    const r = reanudador(2);
    expect(await r.reanudarPendientes()).toBe(3);
    const porId = Object.fromEntries(r.temporal.inicios.map((i) => [i.workflowId, i]));
    expect(Object.keys(porId).sort()).toEqual(
      [`timbrado:${pendiente.id}`, `cancelacion:${timbrada.id}`, `pago:${pago.id}`].sort(),
    );
    const base = { cuentaId: x.a.cuentaId, modo: x.a.modo };
    expect(porId[`timbrado:${pendiente.id}`]).toMatchObject({
      tipo: 'timbrarFacturaV3',
      taskQueue: 'cfdi',
      entrada: { facturaId: pendiente.id, ...base },
      nuevo: true,
    });
    expect(porId[`cancelacion:${timbrada.id}`]).toMatchObject({
      tipo: 'cancelarFactura',
      entrada: { facturaId: timbrada.id, ...base, intervaloMs: 30_000, plazoMs: 600_000 },
    });
    expect(porId[`pago:${pago.id}`]).toMatchObject({
      tipo: 'registrarPagoV2',
      entrada: { pagoId: pago.id, ...base },
    });
  });

  it('no toca lo que está dentro del margen: eso lo inicia la solicitud que lo pidió', async () => {
    await timbradoPendiente();
    await pagoRegistrando();
    const r = reanudador(0.5);
    expect(await r.reanudarPendientes()).toBe(0);
    expect(r.temporal.inicios).toEqual([]);
    // The activity as the schedule runs it, with the worker's default margin of one minute.
    expect(await x.act.reanudarPendientes()).toBe(0);
    expect(x.temporal.inicios).toEqual([]);
  });

  it('una segunda pasada se une a la ejecución en curso; cerrada, la inicia de nuevo', async () => {
    const f = await timbradoPendiente();
    const r = reanudador(2);
    await r.reanudarPendientes();
    await r.reanudarPendientes();
    expect(r.temporal.inicios.map((i) => i.nuevo)).toEqual([true, false]);
    r.temporal.terminar(`timbrado:${f.id}`);
    await r.reanudarPendientes();
    expect(r.temporal.inicios.map((i) => i.nuevo)).toEqual([true, false, true]);
  });

  it('lo ya timbrado no se reanuda, ni un pago ya registrado ni su CFDI (lo timbra su pago)', async () => {
    const f = await timbradoPendiente();
    const pago = await pagoRegistrando();
    await x.act.registrarPagoEnLibro({ pagoId: pago.id, cuentaId: x.a.cuentaId, modo: x.a.modo });
    await x.act.prepararTimbrado(x.entrada(f.id));
    await crearContextoActividad().ejecutar(() => x.act.enviarAlPac(x.entrada(f.id)));
    expect((await x.m.facturas.obtener(x.a, f.id))?.timbrado_estado).toBe('timbrada');
    const r = reanudador(2);
    expect(await r.reanudarPendientes()).toBe(0);
  });

  it('toma a lo más `lote` de cada clase por pasada, las más antiguas primero', async () => {
    const a = await timbradoPendiente();
    await new Promise((res) => setTimeout(res, 5));
    await timbradoPendiente();
    const r = reanudador(2, { lote: 1 });
    expect(await r.reanudarPendientes()).toBe(1);
    expect(r.temporal.inicios.map((i) => i.workflowId)).toEqual([`timbrado:${a.id}`]);
  });
});
