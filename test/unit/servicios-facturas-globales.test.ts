import type { EntradaReexpedicion } from '../../activities/globales';
import type { FacturaGlobalNueva } from '../../servicios/facturas-globales';
import { crearLogger } from '../../log/logger';
import { crearReanudador } from '../../temporal/reanudador';
import { crearContextoActividad } from '../support/memoria';
import { CLIENTE as COMPRADOR } from '../support/cuentas';
import { crearClienteTemporalEnMemoria } from '../support/memoria/temporal';
import { crearEntornoActividades, errorNegocio, rechazoSinEscrituras } from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;
beforeEach(async () => {
  x = await crearEntornoActividades();
});

const DIA = '2025-05-30';

/** A sale of the seeded product on DIA (a closed day by the fakes' clock, 2025-06-01). */
const vender = async (folio: string, cantidad = 1, forma = '01') =>
  x.s.recibos.crear(x.a, {
    organizacion: x.ids.org,
    fecha: `${DIA}T10:00:00`,
    forma_pago: forma,
    folio,
    conceptos: [{ producto: x.ids.prod, cantidad }],
  } as never);

const global = (o: Partial<FacturaGlobalNueva> = {}) =>
  x.s.facturasGlobales.emitir(x.a, { organizacion: x.ids.org, periodicidad: '01', fecha: DIA, ...o });

const recibo = (id: string) => x.m.recibos.obtener(x.a, id);
const factura = (id: string) => x.m.facturas.obtener(x.a, id);
const enActividad = <T>(f: () => Promise<T>) => crearContextoActividad().ejecutar(f);
const reclamo = (reciboId: string, facturaId: string): EntradaReexpedicion => ({
  reciboId,
  facturaId,
  cuentaId: x.a.cuentaId,
  modo: x.a.modo,
});

/** Each sale in exactly one valid CFDI: its buyer's stamped invoice, or one global not replaced. */
async function ventasUnaVez(recibos: string[]) {
  const vigentes = new Map<string, string[]>();
  for (const id of recibos) {
    const r = (await recibo(id))!;
    const donde: string[] = [];
    if (r.factura_id && (await factura(r.factura_id))?.estado === 'timbrada') donde.push(r.factura_id);
    if (r.factura_global_id) {
      const g = (await x.m.facturasGlobales.obtener(x.a, r.factura_global_id))!;
      const f = (await factura(r.factura_global_id))!;
      if (!g.reemplazada_en && f.estado === 'timbrada') donde.push(r.factura_global_id);
    }
    vigentes.set(id, donde);
  }
  return [...vigentes.values()].map((d) => d.length);
}

describe('factura global: emisión', () => {
  it('un concepto por recibo con su folio, al público en general, con InformacionGlobal; los recibos entran en ella', async () => {
    const rs = [await vender('T-1'), await vender('T-2', 3, '04'), await vender('T-3')];
    const { factura: g, pendiente } = await global();
    expect(pendiente).toBe(false);
    expect(g).toMatchObject({
      estado: 'timbrada',
      tipo: 'ingreso',
      metodo_pago: 'PUE',
      forma_pago: '04',
      cliente: { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL', regimen_fiscal: '616', uso_cfdi: 'S01' },
      factura_global: {
        periodicidad: '01',
        meses: '05',
        anio: '2025',
        desde: DIA,
        hasta: DIA,
        reemplaza: null,
      },
      enviar_correo: false,
    });
    expect(
      g.conceptos.map((c) => [c.no_identificacion, c.clave_prod_serv, c.clave_unidad, c.descripcion]),
    ).toEqual(['T-1', 'T-2', 'T-3'].map((f) => [f, '01010101', 'ACT', 'Venta']));
    // Quantity 1 at each receipt's amount: the global's totals are the receipts' totals.
    const suma = rs.reduce((t, r) => t + Number(r.total), 0);
    expect(Number(g.total)).toBeCloseTo(suma, 2);
    for (const r of rs) {
      expect(await recibo(r.id)).toMatchObject({ estado: 'en_factura_global', factura_global_id: g.id });
    }
    const doc = (await factura(g.id))!.documento.entrada;
    expect(doc.informacion_global).toEqual({ periodicidad: '01', meses: '05', anio: '2025' });
    expect(doc.receptor).toMatchObject({ domicilio_fiscal: doc.lugar_expedicion });
  });

  it('rechaza sin escribir: periodo abierto, sin recibos, bimestral fuera del 621', async () => {
    await vender('T-1');
    expect((await rechazoSinEscrituras(x.m, () => global({ fecha: '2025-06-01' }))).codigo).toBe(
      'periodo_no_cerrado',
    );
    expect((await rechazoSinEscrituras(x.m, () => global({ fecha: '2025-05-29' }))).codigo).toBe(
      'sin_recibos_abiertos',
    );
    expect((await rechazoSinEscrituras(x.m, () => global({ periodicidad: '05' }))).codigo).toBe(
      'periodicidad_regimen',
    );
  });

  it('un recibo entra en una sola global: la segunda solicitud del periodo ya no tiene recibos', async () => {
    await vender('T-1');
    await global();
    expect((await errorNegocio(global())).codigo).toBe('sin_recibos_abiertos');
    // Without fecha: the period that closed last (the day before the clock's 2025-06-01).
    await x.s.recibos.crear(x.a, {
      organizacion: x.ids.org,
      fecha: '2025-05-31T20:00:00',
      forma_pago: '01',
      conceptos: [{ producto: x.ids.prod, cantidad: 1 }],
    } as never);
    const { factura: g } = await x.s.facturasGlobales.emitir(x.a, {
      organizacion: x.ids.org,
      periodicidad: '01',
    });
    expect(g.factura_global).toMatchObject({ desde: '2025-05-31', hasta: '2025-05-31' });
  });

  it('si el PAC la rechaza, sus recibos vuelven a abierto para la siguiente', async () => {
    const r = await vender('T-1');
    x.s.timbrador.desenlace('pendiente');
    const { factura: g } = await global();
    await x.act.registrarRechazo(x.entrada(g.id), { codigo: 'CFDI40999', mensaje: 'rechazo' });
    expect(await recibo(r.id)).toMatchObject({ estado: 'abierto', factura_global_id: null });
    expect((await global()).factura.estado).toBe('timbrada');
  });

  it('programada: solo con la automática encendida, y la programación sigue al ajuste', async () => {
    await vender('T-1');
    expect(await x.s.facturasGlobales.emitirProgramada(x.a, x.ids.org)).toEqual([]);
    await x.s.organizaciones.actualizar(x.a, x.ids.org, {
      factura_global: { automatica: true, periodicidad: '01' },
    });
    expect(x.s.programaciones.at(-1)).toMatchObject({ id: x.ids.org, automatica: true, periodicidad: '01' });
    expect(await x.s.organizaciones.obtener(x.a, x.ids.org)).toMatchObject({
      factura_global: { automatica: true, periodicidad: '01' },
    });
    // The fakes' clock is 2025-06-01: the day that closed last is 2025-05-31, with no receipts.
    expect(await x.s.facturasGlobales.emitirProgramada(x.a, x.ids.org)).toEqual([]);
    await x.s.organizaciones.actualizar(x.a, x.ids.org, { factura_global: { periodicidad: '04' } });
    x.reloj.ahora = new Date('2025-06-02T12:00:00Z');
    expect(await x.s.facturasGlobales.emitirProgramada(x.a, x.ids.org)).toHaveLength(1);
    expect(
      (
        await errorNegocio(
          x.s.organizaciones.actualizar(x.a, x.ids.org, { factura_global: { periodicidad: '05' } }),
        )
      ).codigo,
    ).toBe('periodicidad_regimen');
  });
});

describe('factura global: un recibo reclamado después (motivo 04)', () => {
  it('factura al comprador, reexpide la global sin él (relacionada 04) y cancela la anterior con motivo 04', async () => {
    const rs = [await vender('T-1'), await vender('T-2'), await vender('T-3')];
    const { factura: g } = await global();
    const f = await x.s.recibos.facturar(x.a, rs[1]!.id, COMPRADOR);
    expect(f).toMatchObject({
      nueva: true,
      factura: { estado: 'timbrada', cliente: { rfc: COMPRADOR.rfc } },
    });
    expect(x.s.reexpediciones).toEqual([{ id: rs[1]!.id, facturaId: f.factura.id, globalId: g.id }]);
    expect(await ventasUnaVez(rs.map((r) => r.id))).toEqual([1, 2, 1]);

    const e = reclamo(rs[1]!.id, f.factura.id);
    expect(await enActividad(() => x.act.esperarTimbradoFinal({ ...e }))).toBe('timbrada');
    const hecho = (await x.act.excluirDeGlobal(e))!;
    expect(hecho.anterior).toBe(g.id);
    // Idempotent: a retried step answers the same replacement.
    expect(await x.act.excluirDeGlobal(e)).toEqual(hecho);
    const nueva = (await x.s.facturas.obtener(x.a, hecho.nueva!))!;
    expect(nueva).toMatchObject({
      estado: 'timbrada',
      relaciones: [{ tipo_relacion: '04', uuids: [g.uuid] }],
      factura_global: { desde: DIA, hasta: DIA, reemplaza: g.id },
    });
    expect(nueva.conceptos.map((c) => c.no_identificacion)).toEqual(['T-1', 'T-3']);
    expect(await recibo(rs[1]!.id)).toMatchObject({ estado: 'facturado', factura_global_id: g.id });
    expect((await recibo(rs[1]!.id))!.fuera_de_global_en).not.toBeNull();
    expect(await recibo(rs[0]!.id)).toMatchObject({
      estado: 'en_factura_global',
      factura_global_id: nueva.id,
    });

    await x.act.cancelarGlobalReemplazada(e, g.id);
    await x.act.cancelarGlobalReemplazada(e, g.id);
    expect(await enActividad(() => x.act.esperarCancelacionFinal({ ...e, facturaId: g.id }))).toBe(
      'cancelada',
    );
    expect((await x.s.facturas.obtener(x.a, g.id)).cancelacion).toMatchObject({ motivo: '04' });
    expect(await ventasUnaVez(rs.map((r) => r.id))).toEqual([1, 1, 1]);
  });

  it('dos reclamos de una global: el que aún se timbra pasa a la reexpedición y sale de ella en su turno', async () => {
    const rs = [await vender('T-1'), await vender('T-2'), await vender('T-3')];
    const { factura: g } = await global();
    const f1 = await x.s.recibos.facturar(x.a, rs[0]!.id, COMPRADOR);
    x.s.timbrador.desenlace('pendiente');
    const f2 = await x.s.recibos.facturar(x.a, rs[2]!.id, COMPRADOR);
    expect(f2.pendiente).toBe(true);

    const primero = (await x.act.excluirDeGlobal(reclamo(rs[0]!.id, f1.factura.id)))!;
    const g2 = (await x.s.facturas.obtener(x.a, primero.nueva!))!;
    expect(g2.conceptos.map((c) => c.no_identificacion)).toEqual(['T-2', 'T-3']);
    expect(await recibo(rs[2]!.id)).toMatchObject({ estado: 'facturado', factura_global_id: g2.id });

    // The second buyer's invoice is stamped now: its turn takes it out of the reissue.
    await x.s.timbrador.timbrar(x.a, { id: f2.factura.id, organizacionId: x.ids.org });
    const segundo = (await x.act.excluirDeGlobal(reclamo(rs[2]!.id, f2.factura.id)))!;
    expect(segundo.anterior).toBe(g2.id);
    const g3 = (await x.s.facturas.obtener(x.a, segundo.nueva!))!;
    expect(g3.conceptos.map((c) => c.no_identificacion)).toEqual(['T-2']);
    expect(g3.relaciones).toEqual([{ tipo_relacion: '04', uuids: [g2.uuid] }]);
    await x.act.cancelarGlobalReemplazada(reclamo(rs[0]!.id, f1.factura.id), g.id);
    await x.act.cancelarGlobalReemplazada(reclamo(rs[2]!.id, f2.factura.id), g2.id);
    expect(await ventasUnaVez(rs.map((r) => r.id))).toEqual([1, 1, 1]);
  });

  it('si el PAC rechaza la factura del comprador, la venta se queda en su global y nada más cambia', async () => {
    const rs = [await vender('T-1'), await vender('T-2')];
    const { factura: g } = await global();
    x.s.timbrador.desenlace('pendiente');
    const f = await x.s.recibos.facturar(x.a, rs[0]!.id, COMPRADOR);
    await x.act.registrarRechazo(x.entrada(f.factura.id), {
      codigo: 'CFDI40145',
      mensaje: 'RFC no en la LCO',
    });
    const e = reclamo(rs[0]!.id, f.factura.id);
    expect(await enActividad(() => x.act.esperarTimbradoFinal({ ...e }))).toBe('fallido');
    expect(await x.act.excluirDeGlobal(e)).toBeUndefined();
    expect(await recibo(rs[0]!.id)).toMatchObject({
      estado: 'en_factura_global',
      factura_id: null,
      factura_global_id: g.id,
    });
    expect((await x.m.facturasGlobales.obtener(x.a, g.id))!.reemplazada_en).toBeNull();
    expect(await ventasUnaVez(rs.map((r) => r.id))).toEqual([1, 1]);
  });

  it('una reexpedición rechazada devuelve sus recibos a la global anterior, que sigue vigente', async () => {
    const rs = [await vender('T-1'), await vender('T-2')];
    const { factura: g } = await global();
    const f = await x.s.recibos.facturar(x.a, rs[0]!.id, COMPRADOR);
    x.s.timbrador.desenlace('pendiente');
    const hecho = (await x.act.excluirDeGlobal(reclamo(rs[0]!.id, f.factura.id)))!;
    await x.act.registrarRechazo(x.entrada(hecho.nueva!), { codigo: 'CFDI40999', mensaje: 'rechazo' });
    // A reissue's receipts are not let go by the rejection: the workflow gives them back.
    expect(await recibo(rs[1]!.id)).toMatchObject({
      estado: 'en_factura_global',
      factura_global_id: hecho.nueva,
    });
    await x.act.deshacerReexpedicion(reclamo(rs[0]!.id, f.factura.id), hecho);
    expect(await recibo(rs[1]!.id)).toMatchObject({ estado: 'en_factura_global', factura_global_id: g.id });
    expect((await x.m.facturasGlobales.obtener(x.a, g.id))!.reemplazada_en).toBeNull();
  });

  it('cancelada por su emisor, la global devuelve sus recibos a abierto; reemplazada por motivo 04, no', async () => {
    const rs = [await vender('T-1'), await vender('T-2')];
    const { factura: g } = await global();
    x.s.cancelador.desenlace('sin_respuesta');
    await x.s.facturas.cancelar(x.a, g.id, { motivo: '02' });
    expect(await x.act.solicitarCancelacion(x.entrada(g.id))).toBe('cancelada');
    expect(await recibo(rs[0]!.id)).toMatchObject({ estado: 'abierto', factura_global_id: null });

    const { factura: g2 } = await global();
    const f = await x.s.recibos.facturar(x.a, rs[0]!.id, COMPRADOR);
    const hecho = (await x.act.excluirDeGlobal(reclamo(rs[0]!.id, f.factura.id)))!;
    x.s.cancelador.desenlace('sin_respuesta');
    await x.act.cancelarGlobalReemplazada(reclamo(rs[0]!.id, f.factura.id), g2.id);
    expect(await x.act.solicitarCancelacion(x.entrada(g2.id))).toBe('cancelada');
    expect(await recibo(rs[1]!.id)).toMatchObject({
      estado: 'en_factura_global',
      factura_global_id: hecho.nueva,
    });
    expect(await ventasUnaVez(rs.map((r) => r.id))).toEqual([1, 1]);
  });

  it('mientras la global se timbra, reclamar su recibo es 409 factura_global_en_proceso', async () => {
    const r = await vender('T-1');
    x.s.timbrador.desenlace('pendiente');
    await global();
    expect((await errorNegocio(x.s.recibos.facturar(x.a, r.id, COMPRADOR))).codigo).toBe(
      'factura_global_en_proceso',
    );
  });

  it('el reconciliador inicia el workflow de un reclamo cuyo inicio no llegó a Temporal', async () => {
    const temporal = crearClienteTemporalEnMemoria();
    const r = await vender('T-1');
    await global();
    const f = await x.s.recibos.facturar(x.a, r.id, COMPRADOR);
    // The rows carry the real clock: the reconciler looks a few minutes later.
    const reanudador = crearReanudador({
      cliente: temporal.cliente,
      taskQueue: 'cfdi',
      facturas: x.m.facturas,
      pagos: x.m.pagos,
      recibos: x.m.recibos,
      organizaciones: x.m.organizaciones,
      programador: { sincronizar: async () => undefined },
      cancelacion: { intervaloSondeoMs: 1000, plazoMs: 60_000 },
      logger: crearLogger('prueba', 'silent'),
      ahora: () => new Date(Date.now() + 5 * 60_000),
    });
    await reanudador.reanudarPendientes();
    expect(temporal.inicios.find((i) => i.workflowId === `reexpedicion:${r.id}`)).toMatchObject({
      tipo: 'reexpedirGlobal',
      entrada: reclamo(r.id, f.factura.id),
    });
  });
});
