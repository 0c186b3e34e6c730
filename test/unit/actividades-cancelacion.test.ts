import { ErrorPacTransitorio } from '../../pac/puerto';
import { archivoSat, CSD_VALIDO } from '../support/certificados';
import { CLIENTE, ORGANIZACION } from '../support/cuentas';
import { tablaFacturas } from '../support/memoria';
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
