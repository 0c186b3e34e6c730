import type { EntradaIntento } from '../../activities/entregas';
import type { TipoEvento } from '../../db/repositorios/eventos';
import { verificarFirmaConTiempo, verificarFirmaCuerpo } from '../../webhooks/firma';
import type { ResultadoEnvio } from '../../webhooks/enviar';
import { alcance, tablaEntregas, tablaIntentos, tablaPorDespachar } from '../support/memoria';
import { AHORA, crearEntornoActividades } from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;

beforeEach(async () => {
  x = await crearEntornoActividades();
});

const HORA = 3600_000;
const FALLO_500: ResultadoEnvio = {
  ok: false,
  status: 500,
  latenciaMs: 130,
  error: { codigo: 'status_http', mensaje: 'El receptor respondió con HTTP 500.' },
  respuesta: 'Internal Server Error',
};

const registrarEvento = (
  tipo: TipoEvento = 'factura.timbrada',
  datos: object = { id: 'fac_1', total: '116.00' },
) => x.m.transacciones.ejecutar((tx) => x.m.eventos.registrar(tx, x.a, tipo, datos));

/** A webhook subscribed to `factura.timbrada`, one event, and its delivery as the dispatcher creates it. */
async function entregaPendiente() {
  const w = await x.s.webhooks.crear(x.a, {
    url: 'https://hooks.ejemplo.mx/cfdi',
    eventos_suscritos: ['factura.timbrada'],
  });
  const eventoId = await registrarEvento();
  await x.m.despachador.despacharPendientes();
  const entrega = x.m.despachador.iniciadas.find((e) => e.evento_id === eventoId)!;
  return { w, eventoId, entrega };
}

const intento = (entregaId: string, o: Partial<EntradaIntento> = {}): EntradaIntento => ({
  entregaId,
  cuentaId: x.a.cuentaId,
  modo: x.a.modo,
  numero: 1,
  ultimo: false,
  proximoEn: null,
  ...o,
});

const fila = (id: string) => tablaEntregas(x.m.almacen).buscar(id)!;
const intentos = (id: string) =>
  tablaIntentos(x.m.almacen)
    .todas()
    .filter((i) => i.entrega_id === id);

describe('intentarEntrega', () => {
  it('2xx → entregada, con el intento registrado (status, latencia, respuesta)', async () => {
    const { entrega } = await entregaPendiente();
    expect(await x.act.intentarEntrega(intento(entrega.id))).toBe('entregada');
    expect(fila(entrega.id)).toMatchObject({ estado: 'entregada', intentos: 1, proximo_intento_en: null });
    expect(intentos(entrega.id)).toEqual([
      expect.objectContaining({
        numero: 1,
        iniciado_en: AHORA,
        status_http: 200,
        latencia_ms: 42,
        error: null,
        respuesta: 'ok',
      }),
    ]);
    const [envio] = x.enviador.envios;
    expect(envio).toMatchObject({ url: 'https://hooks.ejemplo.mx/cfdi', modo: 'test', localesEnTest: true });
    expect(envio!.encabezados).toMatchObject({
      'X-Facturacion-Evento': entrega.evento_id,
      'X-Facturacion-Entrega': entrega.id,
      'X-Facturacion-Intento': '1',
    });
  });

  it('un fallo que no es el último → reintentar: sigue pendiente con su próximo intento', async () => {
    const { entrega } = await entregaPendiente();
    x.enviador.responder(FALLO_500);
    const proximo = new Date(AHORA.getTime() + 300_000);
    const r = await x.act.intentarEntrega(intento(entrega.id, { proximoEn: proximo.getTime() }));
    expect(r).toBe('reintentar');
    expect(fila(entrega.id)).toMatchObject({ estado: 'pendiente', intentos: 1, proximo_intento_en: proximo });
    expect(intentos(entrega.id)).toEqual([
      expect.objectContaining({
        numero: 1,
        status_http: 500,
        latencia_ms: 130,
        error: FALLO_500.error,
        respuesta: 'Internal Server Error',
      }),
    ]);
    const dto = await x.s.webhooks.obtenerEntrega(x.a, entrega.id);
    expect(dto).toMatchObject({ estado: 'pendiente', proximo_intento_en: proximo.toISOString() });

    // The next one succeeds: delivered, both attempts in the log.
    x.reloj.ahora = proximo;
    expect(await x.act.intentarEntrega(intento(entrega.id, { numero: 2 }))).toBe('entregada');
    expect(fila(entrega.id)).toMatchObject({ estado: 'entregada', intentos: 2, proximo_intento_en: null });
    expect((await x.s.webhooks.obtenerEntrega(x.a, entrega.id)).intentos.map((i) => i.status_http)).toEqual([
      500, 200,
    ]);
  });

  it('un fallo en el último intento → fallida', async () => {
    const { entrega } = await entregaPendiente();
    x.enviador.responder({
      ...FALLO_500,
      status: null,
      error: { codigo: 'tiempo_agotado', mensaje: 'Sin respuesta.' },
    });
    const r = await x.act.intentarEntrega(intento(entrega.id, { numero: 5, ultimo: true, proximoEn: null }));
    expect(r).toBe('fallida');
    expect(fila(entrega.id)).toMatchObject({ estado: 'fallida', intentos: 5, proximo_intento_en: null });
    expect(intentos(entrega.id)[0]).toMatchObject({ status_http: null, error: { codigo: 'tiempo_agotado' } });
  });

  it('una entrega ya terminada no se vuelve a enviar', async () => {
    const { entrega } = await entregaPendiente();
    await x.act.intentarEntrega(intento(entrega.id));
    const antes = x.m.almacen.volcado();
    expect(await x.act.intentarEntrega(intento(entrega.id))).toBe('entregada');
    expect(await x.act.intentarEntrega(intento(entrega.id, { numero: 2 }))).toBe('entregada');
    expect(x.enviador.envios).toHaveLength(1);
    expect(x.m.almacen.volcado()).toBe(antes);
  });

  it.each([
    ['desactivado', (id: string) => x.s.webhooks.actualizar(x.a, id, { activo: false })],
    ['eliminado', (id: string) => x.s.webhooks.eliminar(x.a, id)],
  ])('webhook %s → cancelada sin enviar', async (_caso, quitar) => {
    const { w, entrega } = await entregaPendiente();
    await quitar(w.id);
    // The service cancels it already; a workflow that was not stopped still finds it final.
    expect(await x.act.intentarEntrega(intento(entrega.id))).toBe('cancelada');
    expect(fila(entrega.id).estado).toBe('cancelada');
    expect(x.enviador.envios).toEqual([]);
  });

  it('webhook desactivado sin pasar por el servicio (la entrega sigue pendiente) → cancelada sin enviar', async () => {
    const { w, entrega } = await entregaPendiente();
    await x.m.transacciones.ejecutar((tx) =>
      x.m.webhooks.actualizar(tx, x.a, w.id, { activo: false }, AHORA),
    );
    expect(fila(entrega.id).estado).toBe('pendiente');
    expect(await x.act.intentarEntrega(intento(entrega.id))).toBe('cancelada');
    expect(fila(entrega.id)).toMatchObject({ estado: 'cancelada', intentos: 0 });
    expect(intentos(entrega.id)).toEqual([]);
    expect(x.enviador.envios).toEqual([]);
  });

  it('el cuerpo es exactamente el JSON del evento y X-Facturacion-Firma verifica con el secreto', async () => {
    const { w, eventoId, entrega } = await entregaPendiente();
    await x.act.intentarEntrega(intento(entrega.id));
    const { cuerpo, encabezados } = x.enviador.envios[0]!;
    const evento = await x.s.eventos.obtener(x.a, eventoId);
    expect(cuerpo.toString('utf8')).toBe(JSON.stringify(evento));
    expect(JSON.parse(cuerpo.toString('utf8'))).toEqual({
      id: eventoId,
      objeto: 'evento',
      modo: 'test',
      tipo: 'factura.timbrada',
      creado_en: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      actor: { tipo: 'llave', id: x.a.llaveId },
      solicitud: null,
      datos: { id: 'fac_1', total: '116.00' },
    });
    expect(Object.keys(JSON.parse(cuerpo.toString('utf8')))).toEqual([
      'id',
      'objeto',
      'modo',
      'tipo',
      'creado_en',
      'actor',
      'solicitud',
      'datos',
    ]);

    const t = Math.floor(AHORA.getTime() / 1000);
    expect(verificarFirmaCuerpo(cuerpo, encabezados['X-Facturacion-Firma']!, w.secreto_firma)).toBe(true);
    expect(encabezados['X-Facturacion-Firma-Tiempo']).toMatch(new RegExp(`^t=${t},v1=[0-9a-f]{64}$`));
    expect(
      verificarFirmaConTiempo(cuerpo, encabezados['X-Facturacion-Firma-Tiempo']!, w.secreto_firma, t),
    ).toBe(true);
    expect(encabezados).not.toHaveProperty('X-Facturacion-Firma-Anterior');
    // Another secret, or another body, does not verify.
    const otro = await x.s.webhooks.crear(x.a, {
      url: 'https://otro.ejemplo.mx/',
      eventos_suscritos: ['pago.creado'],
    });
    expect(verificarFirmaCuerpo(cuerpo, encabezados['X-Facturacion-Firma']!, otro.secreto_firma)).toBe(false);
    expect(
      verificarFirmaCuerpo(Buffer.from(`${cuerpo} `), encabezados['X-Facturacion-Firma']!, w.secreto_firma),
    ).toBe(false);
  });

  it('durante el solape de una rotación firman los dos secretos; después, solo el nuevo', async () => {
    const { w, eventoId, entrega } = await entregaPendiente();
    const r = await x.s.webhooks.rotarSecreto(x.a, w.id);
    x.enviador.responder(FALLO_500);
    await x.act.intentarEntrega(intento(entrega.id, { proximoEn: AHORA.getTime() + 300_000 }));

    const t = Math.floor(AHORA.getTime() / 1000);
    const durante = x.enviador.envios[0]!;
    const h = durante.encabezados;
    expect(verificarFirmaCuerpo(durante.cuerpo, h['X-Facturacion-Firma']!, r.secreto_firma)).toBe(true);
    expect(verificarFirmaCuerpo(durante.cuerpo, h['X-Facturacion-Firma-Anterior']!, w.secreto_firma)).toBe(
      true,
    );
    expect(h['X-Facturacion-Firma-Tiempo']!.match(/v1=/g)).toHaveLength(2);
    for (const secreto of [r.secreto_firma, w.secreto_firma])
      expect(verificarFirmaConTiempo(durante.cuerpo, h['X-Facturacion-Firma-Tiempo']!, secreto, t)).toBe(
        true,
      );

    // After the overlap: the next attempt (and a resend) carry the new secret's signature alone.
    x.reloj.ahora = new Date(AHORA.getTime() + 24 * HORA);
    const t2 = Math.floor(x.reloj.ahora.getTime() / 1000);
    await x.act.intentarEntrega(intento(entrega.id, { numero: 2 }));
    const despues = x.enviador.envios[1]!;
    const h2 = despues.encabezados;
    expect(h2).not.toHaveProperty('X-Facturacion-Firma-Anterior');
    expect(h2['X-Facturacion-Firma-Tiempo']!.match(/v1=/g)).toHaveLength(1);
    expect(verificarFirmaCuerpo(despues.cuerpo, h2['X-Facturacion-Firma']!, r.secreto_firma)).toBe(true);
    expect(
      verificarFirmaConTiempo(despues.cuerpo, h2['X-Facturacion-Firma-Tiempo']!, w.secreto_firma, t2),
    ).toBe(false);
    // Same event, same bytes: only the signatures' time moved.
    expect(despues.cuerpo.equals(durante.cuerpo)).toBe(true);
    expect(JSON.parse(despues.cuerpo.toString('utf8')).id).toBe(eventoId);
  });
});

describe('despacho de eventos (outbox)', () => {
  it('registrar escribe la cola en la misma transacción y avisa tras confirmar; un rollback no deja nada', async () => {
    const anunciados = x.m.despachador.anunciados.length;
    const id = await registrarEvento();
    expect(x.m.despachador.anunciados.slice(anunciados)).toEqual([[id]]);
    expect(tablaPorDespachar(x.m.almacen).buscar(id)).toBeDefined();

    await expect(
      x.m.transacciones.ejecutar(async (tx) => {
        await x.m.eventos.registrar(tx, x.a, 'factura.creada', {});
        throw new Error('la transición falló');
      }),
    ).rejects.toThrow('la transición falló');
    expect(x.m.despachador.anunciados.slice(anunciados)).toEqual([[id]]);
    expect(
      tablaPorDespachar(x.m.almacen)
        .todas()
        .map((r) => r.id),
    ).toEqual([id]);
    // The reconciler sees only rows older than its cut.
    const creado = (await x.m.eventos.paraDespacho(id))!.creado_en;
    expect(await x.m.eventos.porDespachar(creado, 100)).toEqual([]);
    expect(await x.m.eventos.porDespachar(new Date(creado.getTime() + 1), 100)).toEqual([id]);
  });

  it('despacharPendientes crea una entrega por webhook activo suscrito de la cuenta y modo, y vacía la cola', async () => {
    const w = await x.s.webhooks.crear(x.a, {
      url: 'https://a.ejemplo.mx/',
      eventos_suscritos: ['factura.timbrada'],
    });
    const otroTipo = await x.s.webhooks.crear(x.a, {
      url: 'https://b.ejemplo.mx/',
      eventos_suscritos: ['pago.creado'],
    });
    const inactivo = await x.s.webhooks.crear(x.a, {
      url: 'https://c.ejemplo.mx/',
      eventos_suscritos: ['factura.timbrada'],
    });
    await x.s.webhooks.actualizar(x.a, inactivo.id, { activo: false });
    const ajeno = await x.s.webhooks.crear(alcance('cta_b'), {
      url: 'https://d.ejemplo.mx/',
      eventos_suscritos: ['factura.timbrada'],
    });
    const id = await registrarEvento();

    const n = await x.m.despachador.despacharPendientes();
    expect(n).toBe(1);
    expect(x.m.despachador.iniciadas.filter((e) => e.evento_id === id)).toEqual([
      {
        id: expect.stringMatching(/^ent_/),
        cuenta_id: x.a.cuentaId,
        modo: 'test',
        evento_id: id,
        webhook_id: w.id,
        numero: 0,
      },
    ]);
    expect(tablaPorDespachar(x.m.almacen).todas()).toEqual([]);
    for (const otro of [otroTipo, inactivo, ajeno])
      expect(x.m.despachador.iniciadas.some((e) => e.webhook_id === otro.id)).toBe(false);

    // Idempotent: the same event again creates and starts nothing new.
    const ev = (await x.m.eventos.paraDespacho(id))!;
    expect(ev.cuenta_id).toBe(x.a.cuentaId);
    const otra = await x.m.entregas.crearParaEvento(ev);
    expect(otra.map((e) => e.id)).toEqual(
      x.m.despachador.iniciadas.filter((e) => e.evento_id === id).map((e) => e.id),
    );
    expect(
      tablaEntregas(x.m.almacen)
        .todas()
        .filter((e) => e.evento_id === id),
    ).toHaveLength(1);
    expect(await x.act.despacharPendientes()).toBe(0);
  });

  it('un webhook creado después del evento no lo recibe', async () => {
    const id = await registrarEvento();
    const creado = (await x.m.eventos.paraDespacho(id))!.creado_en;
    x.reloj.ahora = new Date(creado.getTime() + 1);
    // creado_en comes from the database's clock (the fakes': the wall clock, in milliseconds, as NOW(3)): a webhook
    // created within the event's millisecond would count as existing then.
    while (Date.now() <= creado.getTime()) await new Promise((r) => setTimeout(r, 1));
    await x.s.webhooks.crear(x.a, {
      url: 'https://tarde.ejemplo.mx/',
      eventos_suscritos: ['factura.timbrada'],
    });
    await x.act.despacharPendientes();
    expect(x.m.despachador.iniciadas.filter((e) => e.evento_id === id)).toEqual([]);
  });
});
