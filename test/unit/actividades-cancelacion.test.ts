import { ErrorPacTransitorio } from '../../pac/puerto';
import { archivoSat, CSD_VALIDO } from '../support/certificados';
import { CLIENTE, ORGANIZACION } from '../support/cuentas';
import { alcance, crearContextoActividad, tablaFacturas } from '../support/memoria';
import { crearEntornoActividades } from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;

beforeEach(async () => {
  x = await crearEntornoActividades();
});

/** A stamped invoice whose cancellation the API has just asked for (motivo 02, still `solicitada`). */
async function solicitada() {
  const factura = await x.facturar();
  x.s.cancelador.desenlace('sin_respuesta');
  await x.s.facturas.cancelar(x.a, factura.id, { motivo: '02' });
  return { e: x.entrada(factura.id), factura };
}

const guardada = (id: string) => tablaFacturas(x.m.almacen).buscar(id)!;
const eventos = async () => (await x.s.eventos.listar(x.a, {}, { limite: 100 })).datos;

describe('solicitarCancelacion', () => {
  it('envía la solicitud firmada con el CSD de la organización y los datos del CFDI', async () => {
    const { e, factura } = await solicitada();
    x.pac.alCancelar({ tipo: 'solicitada', estatusCancelacion: 'En proceso' });
    await x.act.solicitarCancelacion(e);
    const [llamada] = x.pac.llamadas;
    expect(llamada?.metodo).toBe('cancelar');
    const s = llamada?.metodo === 'cancelar' ? llamada.solicitud : undefined;
    expect(s).toMatchObject({
      rfcEmisor: ORGANIZACION.rfc,
      rfcReceptor: CLIENTE.rfc,
      uuid: factura.uuid,
      motivo: '02',
      total: factura.total,
    });
    expect(s?.folioSustitucion).toBeUndefined();
    expect(s && 'cer' in s.firma && s.firma.cer.equals(archivoSat(CSD_VALIDO.cer))).toBe(true);
  });

  it('cancelada al instante → cancelada, aceptada, con evento factura.cancelada', async () => {
    const { e } = await solicitada();
    expect(await x.act.solicitarCancelacion(e)).toBe('cancelada');
    const f = guardada(e.facturaId);
    expect(f.estado).toBe('cancelada');
    expect(f.cancelacion).toMatchObject({ estado: 'aceptada', motivo: '02' });
    const tipos = (await eventos()).map((ev) => ev.tipo);
    expect(tipos).toEqual(['factura.cancelada']);
  });

  it('en proceso (espera al receptor) → en_proceso sin evento; repetirlo no reescribe', async () => {
    const { e } = await solicitada();
    x.pac.alCancelar(
      { tipo: 'solicitada', estatusCancelacion: 'En proceso' },
      { tipo: 'solicitada', estatusCancelacion: 'En proceso' },
    );
    expect(await x.act.solicitarCancelacion(e)).toBe('en_proceso');
    expect(guardada(e.facturaId)).toMatchObject({
      estado: 'timbrada',
      cancelacion: { estado: 'en_proceso' },
    });
    const antes = x.m.almacen.volcado();
    expect(await x.act.solicitarCancelacion(e)).toBe('en_proceso');
    expect(x.m.almacen.volcado()).toBe(antes);
    expect(await eventos()).toEqual([]);
  });

  it('el PAC la rechaza → rechazada con su código y evento factura.cancelacion_fallida', async () => {
    const { e } = await solicitada();
    const error = { codigo: '205', mensaje: 'UUID no encontrado.' };
    x.pac.alCancelar({ tipo: 'rechazada', ...error });
    expect(await x.act.solicitarCancelacion(e)).toBe('rechazada');
    expect(guardada(e.facturaId)).toMatchObject({
      estado: 'timbrada',
      cancelacion: { estado: 'rechazada', error },
    });
    const [evento] = await eventos();
    expect(evento).toMatchObject({
      tipo: 'factura.cancelacion_fallida',
      datos: { id: e.facturaId, cancelacion: { estado: 'rechazada', error } },
    });
  });

  it('sin CSD activo → rechazada sin llamar al PAC, con evento', async () => {
    const { e } = await solicitada();
    await x.s.certificados.cambiarActivo(x.a, x.ids.cert!, false);
    expect(await x.act.solicitarCancelacion(e)).toBe('rechazada');
    expect(x.pac.llamadas).toEqual([]);
    expect(guardada(e.facturaId).cancelacion).toMatchObject({
      estado: 'rechazada',
      error: { codigo: 'sin_certificado_activo' },
    });
    expect((await eventos()).map((ev) => ev.tipo)).toEqual(['factura.cancelacion_fallida']);
  });

  it('un error de transporte se propaga sin escribir nada', async () => {
    const { e } = await solicitada();
    x.pac.alCancelar({ tipo: 'caido' });
    const antes = x.m.almacen.volcado();
    await expect(x.act.solicitarCancelacion(e)).rejects.toBeInstanceOf(ErrorPacTransitorio);
    expect(x.m.almacen.volcado()).toBe(antes);
  });

  it('una factura ya cancelada no vuelve al PAC', async () => {
    const { e } = await solicitada();
    await x.act.solicitarCancelacion(e);
    expect(await x.act.solicitarCancelacion(e)).toBe('cancelada');
    expect(x.pac.metodos()).toEqual(['cancelar']);
  });

  it('sin cancelación solicitada es un error del flujo', async () => {
    const factura = await x.facturar();
    await expect(x.act.solicitarCancelacion(x.entrada(factura.id))).rejects.toThrow('sin cancelación');
  });
});

describe('consultarCancelacion', () => {
  /** A cancellation waiting for the receiver. */
  async function enProceso() {
    const r = await solicitada();
    x.pac.alCancelar({ tipo: 'solicitada', estatusCancelacion: 'En proceso' });
    await x.act.solicitarCancelacion(r.e);
    return r.e;
  }

  it.each([
    [
      'estado Cancelado',
      { estado: 'Cancelado' as const, estatusCancelacion: 'Cancelado con aceptación' as const },
    ],
    ['plazo vencido', { estatusCancelacion: 'Plazo vencido' as const }],
  ])('%s → cancelada con evento factura.cancelada', async (_caso, estatus) => {
    const e = await enProceso();
    x.pac.alConsultarEstatus(estatus);
    expect(await x.act.consultarCancelacion(e)).toBe('cancelada');
    expect(guardada(e.facturaId)).toMatchObject({ estado: 'cancelada', cancelacion: { estado: 'aceptada' } });
    expect((await eventos()).map((ev) => ev.tipo)).toEqual(['factura.cancelada']);
  });

  it('el receptor la rechaza → rechazada con solicitud_rechazada y evento', async () => {
    const e = await enProceso();
    x.pac.alConsultarEstatus({ estatusCancelacion: 'Solicitud rechazada' });
    expect(await x.act.consultarCancelacion(e)).toBe('rechazada');
    expect(guardada(e.facturaId)).toMatchObject({
      estado: 'timbrada',
      cancelacion: { estado: 'rechazada', error: { codigo: 'solicitud_rechazada' } },
    });
    expect((await eventos()).map((ev) => ev.tipo)).toEqual(['factura.cancelacion_fallida']);
  });

  it('aún en proceso → en_proceso sin escribir nada', async () => {
    const e = await enProceso();
    const antes = x.m.almacen.volcado();
    expect(await x.act.consultarCancelacion(e)).toBe('en_proceso');
    expect(x.m.almacen.volcado()).toBe(antes);
  });

  it('consulta al SAT con los datos del CFDI', async () => {
    const e = await enProceso();
    await x.act.consultarCancelacion(e);
    const f = guardada(e.facturaId);
    expect(x.pac.llamadas.at(-1)).toEqual({
      metodo: 'estatusSat',
      consulta: {
        rfcEmisor: ORGANIZACION.rfc,
        rfcReceptor: CLIENTE.rfc,
        total: f.documento.importes.total,
        uuid: f.uuid,
      },
    });
  });
});

describe('vencerCancelacion y estados finales', () => {
  it('el plazo vence → vencida con evento; la factura sigue timbrada y puede pedirse otra vez', async () => {
    const { e } = await solicitada();
    expect(await x.act.vencerCancelacion(e)).toBe('vencida');
    expect(guardada(e.facturaId)).toMatchObject({
      estado: 'timbrada',
      cancelacion: { estado: 'vencida', error: { codigo: 'cancelacion_vencida' } },
    });
    expect((await eventos()).map((ev) => ev.tipo)).toEqual(['factura.cancelacion_fallida']);
    const r = await x.s.facturas.cancelar(x.a, e.facturaId, { motivo: '02' });
    expect(r.factura.estado).toBe('cancelada');
  });

  it('un estado final no se sobrescribe con otro', async () => {
    const aceptada = (await solicitada()).e;
    await x.act.solicitarCancelacion(aceptada);
    const rechazada = (await solicitada()).e;
    x.pac.alCancelar({ tipo: 'rechazada', codigo: '205', mensaje: 'UUID no encontrado.' });
    await x.act.solicitarCancelacion(rechazada);
    const vencida = (await solicitada()).e;
    await x.act.vencerCancelacion(vencida);

    const antes = x.m.almacen.volcado();
    await x.act.vencerCancelacion(aceptada);
    x.pac.alConsultarEstatus({ estado: 'Cancelado' });
    await x.act.consultarCancelacion(rechazada);
    x.pac.alConsultarEstatus({ estatusCancelacion: 'Solicitud rechazada' });
    await x.act.consultarCancelacion(vencida);
    await x.act.vencerCancelacion(rechazada);
    expect(x.m.almacen.volcado()).toBe(antes);
  });
});

describe('acuse de cancelación', () => {
  const acuse = (uuid: string, estatus: '201' | '202', fecha: string) =>
    `<Acuse Fecha="${fecha}"><Folios><UUID>${uuid}</UUID><EstatusUUID>${estatus}</EstatusUUID></Folios></Acuse>`;
  const leido = (id: string) => ({
    acuse: guardada(id).acuse_cancelacion,
    fecha: guardada(id).acuse_cancelacion_fecha,
  });
  /** What GET …/acuse answers: the XML, or the refusal's code. */
  const servido = (id: string) =>
    x.s.facturas.acuse(x.a, id).catch((e: { tipo: string; codigo: string }) => `${e.tipo} ${e.codigo}`);

  it('cancelada al instante: el acuse del PAC se guarda con su fecha y se sirve byte por byte', async () => {
    const { e, factura } = await solicitada();
    const xml = `${acuse(factura.uuid!, '201', '2025-06-01T06:10:00')}\n<!-- ñ -->`;
    x.pac.alCancelar({
      tipo: 'solicitada',
      estatusCancelacion: 'Cancelado sin aceptación',
      acuse: xml,
      fecha: '2025-06-01T06:10:00',
    });
    expect(await x.act.solicitarCancelacion(e)).toBe('cancelada');
    expect(leido(e.facturaId)).toEqual({ acuse: xml, fecha: '2025-06-01T06:10:00' });
    expect(await x.s.facturas.acuse(x.a, e.facturaId)).toBe(xml);
  });

  it('en proceso: guardado con el estado, pero 409 factura_no_cancelada hasta que la cancelación es final', async () => {
    const { e, factura } = await solicitada();
    expect(await servido(e.facturaId)).toBe('conflicto factura_no_cancelada');
    const primero = acuse(factura.uuid!, '201', '2025-06-01T06:10:00');
    x.pac.alCancelar({ tipo: 'solicitada', estatusCancelacion: 'En proceso', acuse: primero });
    expect(await x.act.solicitarCancelacion(e)).toBe('en_proceso');
    expect(leido(e.facturaId).acuse).toBe(primero);
    expect(await servido(e.facturaId)).toBe('conflicto factura_no_cancelada');
    x.pac.alConsultarEstatus({ estado: 'Cancelado', estatusCancelacion: 'Cancelado con aceptación' });
    expect(await x.act.consultarCancelacion(e)).toBe('cancelada');
    expect(await servido(e.facturaId)).toBe(primero);
  });

  it('una solicitud repetida que el SAT responde 202 no reemplaza el primer acuse', async () => {
    const { e, factura } = await solicitada();
    const primero = acuse(factura.uuid!, '201', '2025-06-01T06:10:00');
    x.pac.alCancelar({ tipo: 'solicitada', estatusCancelacion: 'En proceso', acuse: primero });
    await x.act.solicitarCancelacion(e);
    // The service's window ran out with the receiver silent; asked again, the SAT still has it pending.
    await x.act.vencerCancelacion(e);
    expect(await servido(e.facturaId)).toBe('conflicto factura_no_cancelada');
    x.s.cancelador.desenlace('sin_respuesta');
    await x.s.facturas.cancelar(x.a, e.facturaId, { motivo: '02' });
    x.pac.alCancelar({
      tipo: 'solicitada',
      estatusCancelacion: 'Cancelado con aceptación',
      estatusUuid: '202',
      acuse: acuse(factura.uuid!, '202', '2025-06-04T09:00:00'),
      fecha: '2025-06-04T09:00:00',
    });
    expect(await x.act.solicitarCancelacion(e)).toBe('cancelada');
    expect(leido(e.facturaId)).toEqual({ acuse: primero, fecha: '2025-06-01T06:10:00' });
    expect(await servido(e.facturaId)).toBe(primero);
  });

  it('tras un rechazo, la nueva solicitud que el SAT toma como nueva (201) trae el acuse que vale', async () => {
    const { e, factura } = await solicitada();
    x.pac.alCancelar({
      tipo: 'solicitada',
      estatusCancelacion: 'En proceso',
      acuse: acuse(factura.uuid!, '201', '2025-06-01T06:10:00'),
    });
    await x.act.solicitarCancelacion(e);
    x.pac.alConsultarEstatus({ estatusCancelacion: 'Solicitud rechazada' });
    expect(await x.act.consultarCancelacion(e)).toBe('rechazada');
    expect(await servido(e.facturaId)).toBe('conflicto factura_no_cancelada');
    x.s.cancelador.desenlace('sin_respuesta');
    await x.s.facturas.cancelar(x.a, e.facturaId, { motivo: '02' });
    const segundo = acuse(factura.uuid!, '201', '2025-06-05T10:00:00');
    x.pac.alCancelar({
      tipo: 'solicitada',
      estatusCancelacion: 'Cancelado sin aceptación',
      acuse: segundo,
      fecha: '2025-06-05T10:00:00',
    });
    expect(await x.act.solicitarCancelacion(e)).toBe('cancelada');
    expect(leido(e.facturaId)).toEqual({ acuse: segundo, fecha: '2025-06-05T10:00:00' });
  });

  it('el PAC no entregó acuse: cancelada sin guardar nada, 409 acuse_no_disponible', async () => {
    const { e } = await solicitada();
    x.pac.alCancelar({ tipo: 'solicitada', estatusCancelacion: 'Cancelado sin aceptación', acuse: ' ' });
    expect(await x.act.solicitarCancelacion(e)).toBe('cancelada');
    expect(leido(e.facturaId)).toEqual({ acuse: null, fecha: null });
    expect(await servido(e.facturaId)).toBe('conflicto acuse_no_disponible');
  });

  it('un rechazo del PAC no guarda acuse', async () => {
    const { e } = await solicitada();
    x.pac.alCancelar({ tipo: 'rechazada', codigo: '205', mensaje: 'UUID no encontrado.' });
    await x.act.solicitarCancelacion(e);
    expect(leido(e.facturaId)).toEqual({ acuse: null, fecha: null });
  });

  it('también de un CFDI de pago, y de otra cuenta o modo es 404', async () => {
    const f = await x.facturar({ metodo_pago: 'PPD', forma_pago: undefined });
    const entrada = await x.pedirPago([{ factura: f.id, imp_pagado: '10.00' }]);
    const paso = await x.act.registrarPagoEnLibro(entrada);
    if (paso.estado !== 'registrado') throw new Error(JSON.stringify(paso));
    const cfdi = x.entrada(paso.facturaPagoId);
    await x.act.prepararTimbrado(cfdi);
    await crearContextoActividad().ejecutar(() => x.act.enviarAlPac(cfdi));
    x.s.cancelador.desenlace('sin_respuesta');
    await x.s.facturas.cancelar(x.a, cfdi.facturaId, { motivo: '02' });
    expect(await x.act.solicitarCancelacion(cfdi)).toBe('cancelada');
    expect(guardada(cfdi.facturaId).tipo).toBe('pago');
    expect(await servido(cfdi.facturaId)).toMatch(/^<Acuse UUID="[0-9A-F-]{36}" EstatusUUID="201"\/>$/);
    for (const otro of [alcance('cta_b'), alcance(x.a.cuentaId, 'live')]) {
      await expect(x.s.facturas.acuse(otro, cfdi.facturaId)).rejects.toMatchObject({
        tipo: 'no_encontrado',
        codigo: 'factura_no_encontrada',
      });
    }
  });
});
