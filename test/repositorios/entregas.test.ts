import type { Alcance } from '../../dominio/alcance';
import type { Pagina } from '../../dominio/paginacion';
import type { EstadoEntrega, IntentoEntrega } from '../../dominio/webhook';
import {
  contrato,
  dormir,
  escenario,
  instante,
  nuevoEvento,
  nuevoWebhook,
  paginasEsperadas,
  recorrer,
  type Implementacion,
} from './soporte';

contrato('entregas', (impl) => {
  const ahora = instante('2025-06-01T12:00:00.000Z');

  /** What the dispatcher hands `crearParaEvento`: the event as `paraDespacho` reads it. */
  async function paraDespacho(i: Implementacion, eventoId: string) {
    return (await i.repos.eventos.paraDespacho(eventoId))!;
  }

  async function entregaDe(i: Implementacion, a: Alcance, webhooks = 1) {
    const ws = [];
    for (let k = 0; k < webhooks; k++) ws.push(await nuevoWebhook(i, a, ['factura.timbrada']));
    await dormir(3);
    const evento = await nuevoEvento(i, a, 'factura.timbrada');
    const creadas = await i.repos.entregas.crearParaEvento(await paraDespacho(i, evento));
    return { ws, evento, creadas };
  }

  const intento = (numero: number, o: Partial<IntentoEntrega> = {}): IntentoEntrega => ({
    numero,
    iniciado_en: instante(`2025-06-01T12:0${numero}:00.000Z`),
    status_http: 500,
    latencia_ms: 120,
    error: null,
    respuesta: 'Internal Server Error',
    ...o,
  });

  it('an event gets one delivery per active webhook of its scope subscribed to it and created before it', async () => {
    const { a, live, otra } = await escenario(impl());
    const suscrito = await nuevoWebhook(impl(), a, ['factura.timbrada', 'pago.creado']);
    const otroTipo = await nuevoWebhook(impl(), a, ['pago.creado']);
    const inactivo = await nuevoWebhook(impl(), a, ['factura.timbrada']);
    const eliminado = await nuevoWebhook(impl(), a, ['factura.timbrada']);
    await impl().transacciones.ejecutar(async (tx) => {
      await impl().repos.webhooks.actualizar(tx, a, inactivo, { activo: false }, ahora);
      await impl().repos.webhooks.eliminar(tx, a, eliminado, ahora);
    });
    await nuevoWebhook(impl(), live, ['factura.timbrada']);
    await nuevoWebhook(impl(), otra, ['factura.timbrada']);
    await dormir(3);
    const evento = await nuevoEvento(impl(), a, 'factura.timbrada');
    await dormir(3);
    const tarde = await nuevoWebhook(impl(), a, ['factura.timbrada']);

    const creadas = await impl().repos.entregas.crearParaEvento(await paraDespacho(impl(), evento));
    expect(creadas).toEqual([
      {
        id: expect.stringMatching(/^ent_/),
        cuenta_id: a.cuentaId,
        modo: 'test',
        evento_id: evento,
        webhook_id: suscrito,
        numero: 0,
      },
    ]);
    expect([otroTipo, tarde]).not.toContain(creadas[0]!.webhook_id);
    // Repeating the call creates nothing new and answers the same deliveries.
    expect(await impl().repos.entregas.crearParaEvento(await paraDespacho(impl(), evento))).toEqual(creadas);
    expect((await impl().repos.entregas.listar(a, { eventoId: evento }, { limite: 10 })).datos).toHaveLength(
      1,
    );
  });

  it('reads a delivery with its event type and its attempts, oldest first', async () => {
    const { a } = await escenario(impl());
    const { ws, evento, creadas } = await entregaDe(impl(), a);
    const id = creadas[0]!.id;
    const error = { codigo: 'tiempo_agotado', mensaje: 'Sin respuesta en 10 s' };
    const reintento = instante('2025-06-01T12:05:00.000Z');
    await impl().repos.entregas.registrarIntento(a, id, intento(1, { status_http: null, error }), {
      estado: 'pendiente',
      proximo_intento_en: reintento,
    });
    await impl().repos.entregas.registrarIntento(a, id, intento(2, { status_http: 200, respuesta: 'ok' }), {
      estado: 'entregada',
      proximo_intento_en: null,
    });
    expect(await impl().repos.entregas.obtener(a, id)).toEqual({
      id,
      modo: 'test',
      evento_id: evento,
      tipo_evento: 'factura.timbrada',
      webhook_id: ws[0],
      numero: 0,
      estado: 'entregada',
      proximo_intento_en: null,
      creado_en: expect.any(Date),
      actualizado_en: intento(2).iniciado_en,
      intentos: [intento(1, { status_http: null, error }), intento(2, { status_http: 200, respuesta: 'ok' })],
    });
  });

  it("a webhook's health: attempts of the last 24 h, its current run of failures and its latest failure", async () => {
    const { a, live } = await escenario(impl());
    const [caido, sano, nunca, muerto] = [
      await nuevoWebhook(impl(), a),
      await nuevoWebhook(impl(), a),
      await nuevoWebhook(impl(), a),
      await nuevoWebhook(impl(), a),
    ];
    await dormir(3);
    const ahora = instante('2025-06-10T12:00:00.000Z');
    const hace = (horas: number) => new Date(ahora.getTime() - horas * 3600_000);
    /** One delivery per webhook (an event each) with these attempts: [hours ago, status] (null: no answer). */
    async function entrega(w: string, intentos: [number, number | null][]) {
      const ev = await nuevoEvento(impl(), a, 'factura.timbrada');
      const [e] = (await impl().repos.entregas.crearParaEvento(await paraDespacho(impl(), ev))).filter(
        (x) => x.webhook_id === w,
      );
      for (const [k, [horas, status]] of intentos.entries()) {
        const ok = status !== null && status < 300;
        await impl().repos.entregas.registrarIntento(
          a,
          e!.id,
          intento(k + 1, {
            iniciado_en: hace(horas),
            status_http: status,
            error: status === null ? { codigo: 'tiempo_agotado', mensaje: `sin respuesta ${horas}` } : null,
            respuesta: ok ? 'ok' : 'error',
          }),
          {
            estado: ok ? 'entregada' : k === intentos.length - 1 ? 'fallida' : 'pendiente',
            proximo_intento_en: null,
          },
        );
      }
    }
    // Down since 50 hours ago, after a success three days ago (and failures before it).
    await entrega(caido, [
      [80, 500],
      [72, 200],
    ]);
    await entrega(caido, [
      [50, 503],
      [30, null],
      [5, 500],
    ]);
    await entrega(caido, [[2, null]]);
    // Healthy: a success an hour ago, after a failure two hours ago; a failure of 30 hours ago is too old to show.
    await entrega(sano, [
      [30, 500],
      [29, 200],
    ]);
    await entrega(sano, [
      [2, 502],
      [1, 200],
    ]);
    await entrega(sano, [[3, 200]]);
    // Never succeeded.
    await entrega(muerto, [
      [100, 404],
      [99, 404],
    ]);

    const salud = await impl().repos.entregas.salud(a, [caido, sano, nunca, muerto], ahora);
    expect(salud.get(caido)).toEqual({
      intentos24h: 2,
      exitosos24h: 0,
      ultimoExito: hace(72),
      fallandoDesde: hace(50),
      ultimoFallo: {
        en: hace(2),
        status_http: null,
        error: { codigo: 'tiempo_agotado', mensaje: 'sin respuesta 2' },
      },
    });
    expect(salud.get(sano)).toEqual({
      intentos24h: 3,
      exitosos24h: 2,
      ultimoExito: hace(1),
      fallandoDesde: null,
      ultimoFallo: { en: hace(2), status_http: 502, error: null },
    });
    expect(salud.get(nunca)).toEqual({
      intentos24h: 0,
      exitosos24h: 0,
      ultimoExito: null,
      fallandoDesde: null,
      ultimoFallo: null,
    });
    expect(salud.get(muerto)).toEqual({
      intentos24h: 0,
      exitosos24h: 0,
      ultimoExito: null,
      fallandoDesde: hace(100),
      ultimoFallo: { en: hace(99), status_http: 404, error: null },
    });
    // Another mode sees nothing of them.
    expect((await impl().repos.entregas.salud(live, [caido], ahora)).get(caido)).toMatchObject({
      intentos24h: 0,
      ultimoExito: null,
      ultimoFallo: null,
    });
    expect((await impl().repos.entregas.salud(a, [], ahora)).size).toBe(0);
  });

  it('a retried attempt rewrites its own row; a final delivery keeps its state', async () => {
    const { a } = await escenario(impl());
    const { creadas } = await entregaDe(impl(), a);
    const id = creadas[0]!.id;
    await impl().repos.entregas.registrarIntento(a, id, intento(1), {
      estado: 'pendiente',
      proximo_intento_en: ahora,
    });
    await impl().repos.entregas.registrarIntento(
      a,
      id,
      intento(1, { status_http: 503, respuesta: 'otra vez' }),
      {
        estado: 'pendiente',
        proximo_intento_en: ahora,
      },
    );
    expect((await impl().repos.entregas.obtener(a, id))!.intentos).toEqual([
      intento(1, { status_http: 503, respuesta: 'otra vez' }),
    ]);
    await impl().repos.entregas.registrarIntento(a, id, intento(2), {
      estado: 'fallida',
      proximo_intento_en: null,
    });
    // A late attempt is logged but does not move a delivery already final.
    await impl().repos.entregas.registrarIntento(a, id, intento(3, { status_http: 200 }), {
      estado: 'entregada',
      proximo_intento_en: null,
    });
    const f = await impl().repos.entregas.obtener(a, id);
    expect(f).toMatchObject({ estado: 'fallida', actualizado_en: intento(2).iniciado_en });
    expect(f!.intentos.map((x) => x.numero)).toEqual([1, 2, 3]);
  });

  it('resends are numbered from 1 per event and webhook', async () => {
    const { a } = await escenario(impl());
    const { ws, evento } = await entregaDe(impl(), a, 2);
    const reenvio = (w: string) =>
      impl().transacciones.ejecutar((tx) => impl().repos.entregas.crearReenvio(tx, a, evento, w));
    const r1 = await reenvio(ws[0]!);
    expect(r1).toEqual({
      id: expect.stringMatching(/^ent_/),
      cuenta_id: a.cuentaId,
      modo: 'test',
      evento_id: evento,
      webhook_id: ws[0],
      numero: 1,
    });
    expect((await reenvio(ws[0]!)).numero).toBe(2);
    expect((await reenvio(ws[1]!)).numero).toBe(1);
    // With no delivery of its own to this webhook, a resend is still 1.
    const tarde = await nuevoWebhook(impl(), a, ['factura.timbrada']);
    expect((await reenvio(tarde)).numero).toBe(1);
    expect(await impl().repos.entregas.obtener(a, r1.id)).toMatchObject({
      estado: 'pendiente',
      intentos: [],
      numero: 1,
    });
  });

  it('resends never attempted, across accounts, oldest first', async () => {
    const { a, otra } = await escenario(impl());
    const de = await entregaDe(impl(), a);
    const deOtra = await entregaDe(impl(), otra);
    const reenvio = (x: Alcance, e: { evento: string; ws: string[] }) =>
      impl().transacciones.ejecutar((tx) => impl().repos.entregas.crearReenvio(tx, x, e.evento, e.ws[0]!));
    const r1 = await reenvio(a, de);
    await dormir(5);
    const r2 = await reenvio(otra, deOtra);
    await dormir(5);
    const intentado = await reenvio(a, de);
    await impl().repos.entregas.registrarIntento(a, intentado.id, intento(1), {
      estado: 'pendiente',
      proximo_intento_en: ahora,
    });
    const cancelado = await reenvio(a, de);
    await impl().repos.entregas.cancelar(a, cancelado.id, ahora);
    const mias = [de.creadas[0]!.id, deOtra.creadas[0]!.id, r1.id, r2.id, intentado.id, cancelado.id];
    const sinIniciar = async (antesDe: Date) =>
      (await impl().repos.entregas.sinIniciar(antesDe, 100_000)).filter((e) => mias.includes(e.id));
    expect(await sinIniciar(new Date(Date.now() + 1000))).toEqual([r1, r2]);
    expect(await sinIniciar(new Date(Date.now() - 60_000))).toEqual([]);
  });

  it('lists newest first, page by page, by webhook, event and state', async () => {
    const { a } = await escenario(impl());
    const w1 = await nuevoWebhook(impl(), a, ['factura.timbrada']);
    const w2 = await nuevoWebhook(impl(), a, ['factura.timbrada']);
    await dormir(3);
    const ids: Record<string, string[]> = { [w1]: [], [w2]: [] };
    const eventos = [];
    for (let k = 0; k < 3; k++) {
      const evento = await nuevoEvento(impl(), a, 'factura.timbrada');
      eventos.push(evento);
      for (const e of await impl().repos.entregas.crearParaEvento(await paraDespacho(impl(), evento)))
        ids[e.webhook_id]!.push(e.id);
    }
    const entregada = ids[w2]![0]!;
    await impl().repos.entregas.registrarIntento(a, entregada, intento(1, { status_http: 200 }), {
      estado: 'entregada',
      proximo_intento_en: null,
    });
    const listar =
      (f: { webhookId?: string; eventoId?: string; estado?: EstadoEntrega } = {}) =>
      (p: Pagina) =>
        impl().repos.entregas.listar(a, f, p);
    const todas = [...ids[w1]!, ...ids[w2]!];
    expect(await recorrer(listar(), 4)).toEqual(paginasEsperadas(todas, 4));
    expect(await recorrer(listar({ webhookId: w1 }), 2)).toEqual(paginasEsperadas(ids[w1]!, 2));
    expect((await recorrer(listar({ eventoId: eventos[0] }), 10))[0]!.sort()).toEqual(
      [ids[w1]![0], ids[w2]![0]].sort(),
    );
    expect(await recorrer(listar({ estado: 'entregada' }), 10)).toEqual([[entregada]]);
    expect(await recorrer(listar({ webhookId: w1, estado: 'entregada' }), 10)).toEqual([[]]);
    const [conIntentos] = (await impl().repos.entregas.listar(a, { estado: 'entregada' }, { limite: 1 }))
      .datos;
    expect(conIntentos!.intentos).toHaveLength(1);
  });

  it('cancels the pending deliveries of a webhook, and one pending delivery, never a final one', async () => {
    const { a } = await escenario(impl());
    const { ws, creadas } = await entregaDe(impl(), a, 2);
    const evento2 = await nuevoEvento(impl(), a, 'factura.timbrada');
    const mas = await impl().repos.entregas.crearParaEvento(await paraDespacho(impl(), evento2));
    const deW0 = [...creadas, ...mas].filter((e) => e.webhook_id === ws[0]);
    const entregada = deW0[0]!;
    await impl().repos.entregas.registrarIntento(a, entregada.id, intento(1, { status_http: 200 }), {
      estado: 'entregada',
      proximo_intento_en: null,
    });

    const canceladas = await impl().transacciones.ejecutar((tx) =>
      impl().repos.entregas.cancelarPendientes(tx, a, ws[0]!, ahora),
    );
    expect(canceladas).toEqual([deW0[1]]);
    expect(await impl().repos.entregas.obtener(a, deW0[1]!.id)).toMatchObject({
      estado: 'cancelada',
      proximo_intento_en: null,
      actualizado_en: ahora,
    });
    expect(await impl().repos.entregas.obtener(a, entregada.id)).toMatchObject({ estado: 'entregada' });

    const deW1 = [...creadas, ...mas].filter((e) => e.webhook_id === ws[1]);
    await impl().repos.entregas.cancelar(a, deW1[0]!.id, ahora);
    await impl().repos.entregas.cancelar(a, entregada.id, ahora);
    expect(await impl().repos.entregas.obtener(a, deW1[0]!.id)).toMatchObject({ estado: 'cancelada' });
    expect(await impl().repos.entregas.obtener(a, deW1[1]!.id)).toMatchObject({ estado: 'pendiente' });
    expect(await impl().repos.entregas.obtener(a, entregada.id)).toMatchObject({ estado: 'entregada' });
  });

  it("an invoice's events' deliveries with their attempts and URL, oldest first, a deleted webhook's too", async () => {
    const { a, live, otra } = await escenario(impl());
    const [w1, w2] = [await nuevoWebhook(impl(), a), await nuevoWebhook(impl(), a)];
    await dormir(3);
    const [e1, e2, ajeno] = [
      await nuevoEvento(impl(), a, 'factura.timbrada'),
      await nuevoEvento(impl(), a, 'factura.timbrada'),
      await nuevoEvento(impl(), a, 'factura.timbrada'),
    ];
    for (const e of [e1, e2, ajeno])
      await impl().repos.entregas.crearParaEvento(await paraDespacho(impl(), e));
    const reenvio = await impl().transacciones.ejecutar((tx) =>
      impl().repos.entregas.crearReenvio(tx, a, e1, w1),
    );
    const de1 = (
      await impl().repos.entregas.listar(a, { eventoId: e1, webhookId: w1 }, { limite: 10 })
    ).datos.find((f) => f.numero === 0);
    await impl().repos.entregas.registrarIntento(a, de1!.id, intento(1, { status_http: 200 }), {
      estado: 'entregada',
      proximo_intento_en: null,
    });
    await impl().transacciones.ejecutar((tx) => impl().repos.webhooks.eliminar(tx, a, w2, ahora));

    const filas = await impl().repos.entregas.deEventos(a, [e2, e1]);
    expect(filas.map((f) => f.id)).toEqual(filas.map((f) => f.id).sort());
    expect(filas.map((f) => [f.evento_id, f.webhook_id, f.numero, f.webhook_url]).sort()).toEqual(
      [
        [e1, w1, 0, `https://hooks.ejemplo.mx/${w1}`],
        [e1, w2, 0, `https://hooks.ejemplo.mx/${w2}`],
        [e1, w1, 1, `https://hooks.ejemplo.mx/${w1}`],
        [e2, w1, 0, `https://hooks.ejemplo.mx/${w1}`],
        [e2, w2, 0, `https://hooks.ejemplo.mx/${w2}`],
      ].sort(),
    );
    expect(filas.find((f) => f.id === de1!.id)).toMatchObject({
      estado: 'entregada',
      tipo_evento: 'factura.timbrada',
      intentos: [intento(1, { status_http: 200 })],
    });
    expect(filas.find((f) => f.id === reenvio.id)).toMatchObject({
      numero: 1,
      estado: 'pendiente',
      intentos: [],
    });
    expect(await impl().repos.entregas.deEventos(a, [])).toEqual([]);
    for (const fuera of [live, otra])
      expect(await impl().repos.entregas.deEventos(fuera, [e1, e2])).toEqual([]);
  });

  it('another account or mode never sees, attempts or cancels the delivery', async () => {
    const { a, live, otra } = await escenario(impl());
    const { ws, creadas } = await entregaDe(impl(), a);
    const id = creadas[0]!.id;
    const antes = await impl().repos.entregas.obtener(a, id);
    for (const fuera of [live, otra]) {
      expect(await impl().repos.entregas.obtener(fuera, id)).toBeUndefined();
      expect((await impl().repos.entregas.listar(fuera, {}, { limite: 10 })).datos).toEqual([]);
      await impl().repos.entregas.cancelar(fuera, id, ahora);
      expect(
        await impl().transacciones.ejecutar((tx) =>
          impl().repos.entregas.cancelarPendientes(tx, fuera, ws[0]!, ahora),
        ),
      ).toEqual([]);
      await impl().repos.entregas.registrarIntento(fuera, id, intento(1, { status_http: 200 }), {
        estado: 'entregada',
        proximo_intento_en: null,
      });
    }
    const despues = await impl().repos.entregas.obtener(a, id);
    expect({ ...despues, intentos: [] }).toEqual({ ...antes, intentos: [] });
    // The attempt row is written whatever the scope (keyed by the delivery alone): the state above is what the
    // scope guards. Reported as a gap of the real repository; the fake does the same.
    expect(despues!.intentos.map((x) => x.numero)).toEqual([1]);
  });
});
