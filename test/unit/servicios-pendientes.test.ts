import { aApiError } from '../../api/middleware/manejador-errores';
import type { FilaPendiente } from '../../db/repositorios/pendientes';
import { hora } from '../../presentacion/textos';
import { crearServicioPendientes, type EstadoFlujo, type LectorFlujos } from '../../servicios/pendientes';
import { alcance, tablaEntregas, tablaFacturas } from '../support/memoria';
import {
  crearServiciosEnMemoria,
  errorNegocio,
  sembrar,
  solicitudFactura,
  type ServiciosEnMemoria,
} from '../support/memoria/servicios';

const a = alcance();
let s: ServiciosEnMemoria;
let ids: Awaited<ReturnType<typeof sembrar>>;
/** What the fake Temporal says of each workflow id; absent ones are not found. */
let flujos: Map<string, EstadoFlujo | { error: string }>;
let plazos: number[];

/** Temporal as the pending view reads it, scripted: ids as the real reader builds them. */
const lector: LectorFlujos = {
  idFlujo: (f: FilaPendiente) =>
    f.tipo === 'timbrado' && f.pago_id
      ? `pago:${f.pago_id}`
      : f.tipo === 'entrega'
        ? `entrega:${f.evento_id}:${f.webhook_id}${f.numero ? `:${f.numero}` : ''}`
        : `${{ timbrado: 'timbrado', cancelacion: 'cancelacion', pago: 'pago', correo: 'correo', entrega: 'entrega', reexpedicion: 'reexpedicion' }[f.tipo]}:${f.id}`,
  async describir(lista, plazoMs) {
    plazos.push(plazoMs);
    return new Map(lista.map((id) => [id, flujos.get(id) ?? { estado: 'inexistente', actividad: null }]));
  },
};

const servicio = () =>
  crearServicioPendientes({ pendientes: s.m.pendientes, organizaciones: s.organizaciones, flujos: lector });
const corriendo = (actividad: EstadoFlujo['actividad'] = null): EstadoFlujo => ({
  estado: 'en_curso',
  actividad,
});

beforeEach(async () => {
  s = crearServiciosEnMemoria();
  ids = await sembrar(s, a);
  flujos = new Map();
  plazos = [];
});

/** An invoice whose stamping waits on the PAC: `intentos` sends counted, its transient error written. */
async function timbradoPendiente(intentos: number) {
  s.timbrador.desenlace('pendiente');
  const f = (await s.facturas.crear(a, solicitudFactura(ids))).factura;
  for (let i = 0; i < intentos; i++) await s.m.facturas.contarIntento(a, f.id);
  await s.m.facturas.anotarErrorTransitorio(a, f.id, {
    codigo: 'pac_no_disponible',
    mensaje:
      'El PAC no respondió (stamp: el PAC no respondió en 20000 ms); el timbrado se reintenta con espera creciente.',
    paso: 'pac',
  });
  return f.id;
}

describe('pendientes: lo que registra MySQL, completado con Temporal', () => {
  it('un timbrado esperando al PAC: paso, intentos, la causa en una frase y reintentar / abandonar', async () => {
    const id = await timbradoPendiente(3);
    flujos.set(
      `timbrado:${id}`,
      corriendo({
        nombre: 'enviarAlPac',
        intento: 4,
        ultimaFalla: 'stamp: el PAC no respondió en 20000 ms',
        siguienteIntento: new Date('2030-01-01T00:00:08.000Z'),
      }),
    );
    const [p] = (await servicio().listar(a, {}, { limite: 10 })).datos;
    const creada = tablaFacturas(s.m.almacen).buscar(id)!.creado_en;
    expect(p).toEqual({
      id,
      objeto: 'pendiente',
      modo: 'test',
      tipo: 'timbrado',
      organizacion: ids.org,
      recursos: {
        factura: id,
        pago: null,
        correo: null,
        entrega: null,
        evento: null,
        webhook: null,
        recibo: null,
        factura_global: null,
      },
      desde: creada.toISOString(),
      antiguedad_s: expect.any(Number),
      paso: 'pac',
      // The sends MySQL counted; Temporal's counter (4) also counts the local try.
      intentos: 3,
      ultima_causa: {
        codigo: 'pac_no_disponible',
        mensaje: `El PAC no respondió (tiempo agotado) — 3 intentos desde las ${hora(creada, 'Tiempo del Centro', new Date())}`,
      },
      proximo_intento_en: '2030-01-01T00:00:08.000Z',
      flujo: {
        id: `timbrado:${id}`,
        estado: 'en_curso',
        actividad: {
          nombre: 'enviarAlPac',
          intento: 4,
          ultima_falla: 'stamp: el PAC no respondió en 20000 ms',
          siguiente_intento: '2030-01-01T00:00:08.000Z',
        },
        error: null,
      },
      acciones: [
        expect.objectContaining({
          accion: 'reintentar',
          metodo: 'POST',
          ruta: `/v1/facturas/${id}/timbrado/reintentar`,
        }),
        expect.objectContaining({
          accion: 'abandonar',
          metodo: 'POST',
          ruta: `/v1/facturas/${id}/timbrado/abandonar`,
        }),
      ],
    });
    // The wait on Temporal is bounded.
    expect(plazos).toEqual([1500]);
  });

  it('un timbrado cuyo workflow fue terminado: la causa es que nadie lo lleva, y reintentar lo inicia de nuevo', async () => {
    const id = await timbradoPendiente(2);
    flujos.set(`timbrado:${id}`, { estado: 'terminado', actividad: null });
    const [p] = (await servicio().listar(a, {}, { limite: 10 })).datos;
    expect(p!.flujo.estado).toBe('terminado');
    expect(p!.ultima_causa!.codigo).toBe('flujo_detenido');
    expect(p!.ultima_causa!.mensaje).toMatch(
      /^Su workflow está terminado por un operador y la operación sigue pendiente desde las .+ \(última causa: El PAC no respondió \(tiempo agotado\) — 2 intentos desde las .+\); el reanudador la inicia de nuevo en unos minutos, o «reintentar» ahora\.$/,
    );
    expect(p!.acciones[0]!.descripcion).toMatch(/^Inicia de nuevo el timbrado/);
  });

  it('con Temporal caído la lista responde igual: lo de MySQL, y cada elemento dice que Temporal no respondió', async () => {
    const id = await timbradoPendiente(1);
    flujos.set(`timbrado:${id}`, {
      error: 'Temporal no respondió a tiempo: se muestra lo que registra MySQL.',
    });
    const [p] = (await servicio().listar(a, {}, { limite: 10 })).datos;
    expect(p!.flujo).toEqual({
      id: `timbrado:${id}`,
      estado: null,
      actividad: null,
      error: 'Temporal no respondió a tiempo: se muestra lo que registra MySQL.',
    });
    expect(p!.ultima_causa).toMatchObject({ codigo: 'pac_no_disponible' });
    expect(p!.ultima_causa!.mensaje).toMatch(
      /^El PAC no respondió \(tiempo agotado\) — 1 intento desde las /,
    );
  });

  it('una cancelación que espera al receptor, y otra cuyo PAC no responde (su actividad en Temporal)', async () => {
    const f1 = (await s.facturas.crear(a, solicitudFactura(ids))).factura;
    const f2 = (await s.facturas.crear(a, solicitudFactura(ids))).factura;
    s.cancelador.desenlace('en_proceso', 'sin_respuesta');
    await s.facturas.cancelar(a, f1.id, { motivo: '02' });
    await s.facturas.cancelar(a, f2.id, { motivo: '02' });
    flujos.set(`cancelacion:${f1.id}`, corriendo());
    flujos.set(
      `cancelacion:${f2.id}`,
      corriendo({
        nombre: 'solicitarCancelacion',
        intento: 5,
        ultimaFalla: 'cancel_signature: falla de transporte (ECONNREFUSED)',
        siguienteIntento: null,
      }),
    );
    const l = (await servicio().listar(a, { tipo: 'cancelacion' }, { limite: 10 })).datos;
    const de = (id: string) => l.find((x) => x.id === id)!;
    expect(de(f1.id)).toMatchObject({
      paso: 'respuesta_receptor',
      ultima_causa: { codigo: 'esperando_receptor' },
      recursos: { factura: f1.id },
      acciones: [
        expect.objectContaining({
          accion: 'reintentar',
          ruta: `/v1/facturas/${f1.id}/cancelacion/reintentar`,
        }),
      ],
    });
    expect(de(f2.id)).toMatchObject({ paso: 'solicitud', ultima_causa: { codigo: 'pac_no_disponible' } });
    expect(de(f2.id).ultima_causa!.mensaje).toMatch(
      /^El PAC no respondió a la solicitud de cancelación \(falla de conexión\) — 5 intentos desde las /,
    );
  });

  it('una entrega que falla: el status HTTP, sus intentos, el siguiente y «reintentar» la misma entrega', async () => {
    const w = await s.webhooks.crear(a, {
      url: 'https://hooks.ejemplo.mx/cfdi',
      eventos_suscritos: ['factura.creada'],
    });
    await s.facturas.crear(a, solicitudFactura(ids, { auto_timbrar: false }));
    await s.m.despachador.despacharPendientes();
    const [e] = s.m.despachador.iniciadas;
    await s.m.entregas.registrarIntento(
      a,
      e!.id,
      {
        numero: 1,
        iniciado_en: new Date(),
        status_http: 500,
        latencia_ms: 12,
        error: { codigo: 'status_http', mensaje: 'El receptor respondió con HTTP 500.' },
        respuesta: 'no',
      },
      { estado: 'pendiente', proximo_intento_en: new Date(Date.now() + 300_000) },
    );
    flujos.set(`entrega:${e!.evento_id}:${w.id}`, corriendo());
    const [p] = (await servicio().listar(a, { tipo: 'entrega' }, { limite: 10 })).datos;
    expect(p).toMatchObject({
      id: e!.id,
      tipo: 'entrega',
      paso: 'espera_reintento',
      intentos: 1,
      organizacion: ids.org,
      recursos: { entrega: e!.id, evento: e!.evento_id, webhook: w.id },
      proximo_intento_en: tablaEntregas(s.m.almacen).buscar(e!.id)!.proximo_intento_en!.toISOString(),
      acciones: [{ accion: 'reintentar', metodo: 'POST', ruta: `/v1/entregas/${e!.id}/reintentar` }].map(
        (x) => expect.objectContaining(x),
      ),
    });
    expect(p!.ultima_causa!.mensaje).toMatch(
      /^El webhook respondió HTTP 500 — 1 intento desde las .+; el siguiente a las /,
    );
  });

  it('el CFDI de un pago se reintenta en el workflow de su pago y no se abandona solo', async () => {
    const id = await timbradoPendiente(1);
    const f = tablaFacturas(s.m.almacen).buscar(id)!;
    tablaFacturas(s.m.almacen).cambiar(id, {
      documento: { ...f.documento, pago: { id: 'pago_1', complemento: {} as never } },
    });
    const [p] = (await servicio().listar(a, {}, { limite: 10 })).datos;
    expect(p!.flujo.id).toBe('pago:pago_1');
    expect(p!.recursos.pago).toBe('pago_1');
    expect(p!.acciones.map((x) => x.accion)).toEqual(['reintentar']);
  });

  it('contar (el panel de la consola) cuenta hasta un tope sin preguntar a Temporal', async () => {
    for (let i = 0; i < 3; i++) await timbradoPendiente(1);
    expect(await servicio().contar(a, 5)).toEqual({ total: 3, hayMas: false });
    expect(await servicio().contar(a, 2)).toEqual({ total: 2, hayMas: true });
    expect(await servicio().contar({ ...a, modo: 'live' })).toEqual({ total: 0, hayMas: false });
    expect(plazos).toEqual([]);
  });

  it('filtros: una organización desconocida es 404; otra cuenta o modo no ve nada', async () => {
    await timbradoPendiente(1);
    const e = await errorNegocio(servicio().listar(a, { organizacion: 'org_no' }, { limite: 10 }));
    expect([aApiError(e).status, e.codigo, e.parametro]).toEqual([
      404,
      'organizacion_no_encontrada',
      'organizacion',
    ]);
    expect((await servicio().listar(alcance('cta_b'), {}, { limite: 10 })).datos).toEqual([]);
    expect((await servicio().listar(alcance('cta_a', 'live'), {}, { limite: 10 })).datos).toEqual([]);
    expect((await servicio().listar(a, { organizacion: ids.org }, { limite: 10 })).datos).toHaveLength(1);
    // Nothing pending: Temporal is not asked.
    plazos = [];
    await servicio().listar(a, { tipo: 'correo' }, { limite: 10 });
    expect(plazos).toEqual([]);
  });
});

describe('hora: como la lee el emisor', () => {
  it('el mismo día local solo la hora; otro día del año con fecha; otro año con el año', () => {
    const ahora = new Date('2026-11-27T18:00:00.000Z');
    expect(hora(new Date('2026-11-27T16:42:10.000Z'), 'Tiempo del Centro', ahora)).toBe('10:42');
    expect(hora(new Date('2026-11-26T16:42:10.000Z'), 'Tiempo del Centro', ahora)).toBe('26/11 10:42');
    expect(hora(new Date('2025-06-01T16:42:10.000Z'), null, ahora)).toBe('01/06/2025 10:42');
    expect(hora(new Date('2026-11-27T16:42:10.000Z'), 'Tiempo del Noroeste en Frontera', ahora)).toBe(
      '08:42',
    );
  });
});
