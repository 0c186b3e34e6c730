import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { nuevoId } from '../../db/ids';
import { crearRepositorioEventos } from '../../db/repositorios/eventos';
import { crearTransacciones } from '../../db/transacciones';
import { alcanceSistema } from '../../dominio/alcance';
import { crearBoveda } from '../../seguridad/boveda';
import { asegurarProgramaciones, idsProgramaciones } from '../../temporal/programaciones';
import { nuevoSecretoWebhook } from '../../webhooks/firma';
import { reintentarAhora } from '../../workflows/pasos';
import { clienteHttp } from '../support/cliente-http';
import { CLIENTE, habilitarLive, llaveLiveDirecta, nuevaCuenta, ORGANIZACION } from '../support/cuentas';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { receptorWebhooks } from '../support/receptor-webhooks';
import { iniciarPila, type Pila } from '../support/pila';

/** The README's verification snippet, run as the README shows it (a CommonJS block). */
function snippetDelReadme(): {
  verificarFirma(cuerpo: Buffer, encabezados: IncomingHttpHeaders, secreto: string): boolean;
  verificarFirmaSimple(cuerpo: Buffer, encabezados: IncomingHttpHeaders, secreto: string): boolean;
} {
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
  const desde = readme.indexOf('<!-- verificacion-firma');
  const bloque = /```js\n([\s\S]*?)```/.exec(readme.slice(desde))![1]!;
  const modulo = { exports: {} as Record<string, unknown> };
  runInNewContext(bloque, { require, module: modulo, Buffer, Date });
  return modulo.exports as ReturnType<typeof snippetDelReadme>;
}

const PROGRAMA_CORTO = [0, 2, 4, 6, 8];

describe('webhooks: entregas durables, firmadas y registradas', () => {
  let pila: Pila;
  const readme = snippetDelReadme();
  beforeAll(async () => {
    pila = await iniciarPila({ programaEntregasS: PROGRAMA_CORTO, graciaDespachoMs: 0 });
  });
  afterAll(() => pila.detener());

  async function conWebhook(url: string, eventos = ['factura.creada']) {
    const c = await cuentaLista(pila);
    const w = await c.http.post('/v1/webhooks', { url, eventos_suscritos: eventos });
    expect(w.status).toBe(201);
    return { c, w: w.body as { id: string; secreto_firma: string } };
  }
  /** A draft: its `factura.creada` event is the one delivered. */
  async function borrador(c: Awaited<ReturnType<typeof cuentaLista>>) {
    const f = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
    expect(f.status).toBe(201);
    const ev = await c.http.get('/v1/eventos?tipo=factura.creada');
    return ev.body.datos.find((e: { datos: { id: string } }) => e.datos.id === f.body.id) as { id: string };
  }
  const entregasDe = async (c: { http: ReturnType<typeof clienteHttp> }, evento: string) =>
    (await c.http.get(`/v1/eventos/${evento}/entregas`)).body.datos;
  const final = (c: { http: ReturnType<typeof clienteHttp> }, evento: string, estado: string, ms = 40_000) =>
    esperar(async () => {
      const [e] = await entregasDe(c, evento);
      return e?.estado === estado ? e : undefined;
    }, ms);

  it('falla 4 veces y responde 200 a la 5.ª: exactamente 5 intentos a los tiempos del programa, todos en el registro', async () => {
    const r = await receptorWebhooks((n) => (n < 5 ? 500 : 200));
    try {
      const { c, w } = await conWebhook(r.url);
      const ev = await borrador(c);
      const e = await final(c, ev.id, 'entregada');
      expect(r.recibidas).toHaveLength(5);
      expect(e).toMatchObject({ evento: ev.id, webhook: w.id, origen: 'evento', proximo_intento_en: null });
      expect(e.intentos.map((i: { status_http: number }) => i.status_http)).toEqual([
        500, 500, 500, 500, 200,
      ]);
      expect(e.intentos.map((i: { numero: number }) => i.numero)).toEqual([1, 2, 3, 4, 5]);
      expect(e.intentos[0].error).toMatchObject({ codigo: 'status_http' });
      expect(e.intentos[4].error).toBeNull();
      expect(e.intentos[0].respuesta).toBe('respuesta 500');
      // Attempt n starts PROGRAMA_CORTO[n] seconds after the delivery's start (durable timers), whenever the first
      // attempt (its setup can take seconds on a loaded machine) arrived: measured from the workflow's start.
      const inicio = (await pila.cliente.workflow.getHandle(`entrega:${ev.id}:${w.id}`).describe()).startTime;
      const desplazamientos = r.recibidas.map((x) => (x.en - inicio.getTime()) / 1000);
      desplazamientos.forEach((d, i) => {
        expect(d).toBeGreaterThanOrEqual(PROGRAMA_CORTO[i]! - 0.1);
        // The first attempt is not behind a timer: only its setup bounds it.
        expect(d).toBeLessThan(PROGRAMA_CORTO[i]! + (i === 0 ? 5 : 1.5));
      });
      // Same event, same bytes every time; headers say which attempt it is.
      expect(new Set(r.recibidas.map((x) => x.cuerpo.toString('utf8'))).size).toBe(1);
      expect(r.recibidas.map((x) => x.encabezados['x-facturacion-intento'])).toEqual([
        '1',
        '2',
        '3',
        '4',
        '5',
      ]);
      expect(r.recibidas.every((x) => x.encabezados['x-facturacion-evento'] === ev.id)).toBe(true);
      expect(r.recibidas.every((x) => x.encabezados['x-facturacion-entrega'] === e.id)).toBe(true);
      const cuerpo = JSON.parse(r.recibidas[0]!.cuerpo.toString('utf8'));
      expect(cuerpo).toEqual((await c.http.get(`/v1/eventos/${ev.id}`)).body);
      expect(Object.keys(cuerpo)).toEqual([
        'id',
        'objeto',
        'modo',
        'tipo',
        'creado_en',
        'actor',
        'solicitud',
        'datos',
      ]);
      // The README's snippet accepts every real delivery, and refuses a changed byte or another secret.
      for (const x of r.recibidas) {
        expect(readme.verificarFirma(x.cuerpo, x.encabezados, w.secreto_firma)).toBe(true);
        expect(readme.verificarFirmaSimple(x.cuerpo, x.encabezados, w.secreto_firma)).toBe(true);
      }
      const alterado = Buffer.from(r.recibidas[0]!.cuerpo.toString('utf8').replace('"test"', '"live"'));
      expect(readme.verificarFirma(alterado, r.recibidas[0]!.encabezados, w.secreto_firma)).toBe(false);
      // A forged header of 64 non-ASCII characters is refused, not a crash of the receiver.
      const forjado = {
        'x-facturacion-firma': 'é'.repeat(64),
        'x-facturacion-firma-tiempo': `t=${Math.floor(Date.now() / 1000)},v1=${'é'.repeat(64)}`,
      };
      expect(readme.verificarFirma(r.recibidas[0]!.cuerpo, forjado, w.secreto_firma)).toBe(false);
      expect(readme.verificarFirmaSimple(r.recibidas[0]!.cuerpo, forjado, w.secreto_firma)).toBe(false);
      expect(readme.verificarFirmaSimple(alterado, r.recibidas[0]!.encabezados, w.secreto_firma)).toBe(false);
      expect(
        readme.verificarFirma(r.recibidas[0]!.cuerpo, r.recibidas[0]!.encabezados, nuevoSecretoWebhook()),
      ).toBe(false);
      // The same delivery from the webhook's side and by id.
      const porWebhook = (await c.http.get(`/v1/webhooks/${w.id}/entregas`)).body.datos;
      expect(porWebhook.map((x: { id: string }) => x.id)).toEqual([e.id]);
      // A cursor walks only the list that issued it, even between two lists of deliveries.
      const otro = await borrador(c);
      await final(c, otro.id, 'entregada');
      const pagina = await c.http.get(`/v1/webhooks/${w.id}/entregas?paginacion.limite=1`);
      const cursor = pagina.body.paginacion.siguiente_cursor;
      expect(cursor).toEqual(expect.any(String));
      expect(
        (await c.http.get(`/v1/webhooks/${w.id}/entregas?paginacion.cursor_inicio=${cursor}`)).body.datos,
      ).toHaveLength(1);
      const ajeno = await c.http.get(`/v1/eventos/${otro.id}/entregas?paginacion.cursor_inicio=${cursor}`);
      expect(ajeno.status).toBe(400);
      expect(ajeno.body.error).toMatchObject({
        codigo: 'cursor_invalido',
        parametro: 'paginacion.cursor_inicio',
      });
      // Nor does one event's list take another event's cursor (a second webhook gives the event two deliveries).
      await c.http.post('/v1/webhooks', { url: r.url, eventos_suscritos: ['factura.creada'] });
      const tercero = await borrador(c);
      await esperar(async () => ((await entregasDe(c, tercero.id)).length === 2 ? true : undefined));
      const deEvento = await c.http.get(`/v1/eventos/${tercero.id}/entregas?paginacion.limite=1`);
      const cursorEvento = deEvento.body.paginacion.siguiente_cursor;
      const siguiente = await c.http.get(
        `/v1/eventos/${tercero.id}/entregas?paginacion.cursor_inicio=${cursorEvento}`,
      );
      expect(siguiente.body.datos).toHaveLength(1);
      const otroEvento = await c.http.get(
        `/v1/eventos/${otro.id}/entregas?paginacion.cursor_inicio=${cursorEvento}`,
      );
      expect(otroEvento.status).toBe(400);
      expect(otroEvento.body.error.codigo).toBe('cursor_invalido');
      expect((await c.http.get(`/v1/entregas/${e.id}`)).body).toEqual(e);
      // The secret is never shown again.
      expect((await c.http.get(`/v1/webhooks/${w.id}`)).body.secreto_firma).toBeUndefined();
    } finally {
      await r.cerrar();
    }
  });

  it('siempre falla: fallida tras el 5.º intento, y su workflow termina Failed con los atributos de búsqueda', async () => {
    const r = await receptorWebhooks(() => 503);
    try {
      const { c, w } = await conWebhook(r.url);
      const ev = await borrador(c);
      const e = await final(c, ev.id, 'fallida');
      expect(e.intentos).toHaveLength(5);
      expect(r.recibidas).toHaveLength(5);
      const h = pila.cliente.workflow.getHandle(`entrega:${ev.id}:${w.id}`);
      await expect(h.result()).rejects.toThrow();
      const d = await h.describe();
      expect(d.status.name).toBe('FAILED');
      expect(d.searchAttributes).toMatchObject({
        EventoId: [ev.id],
        WebhookId: [w.id],
        TipoEvento: ['factura.creada'],
        CuentaId: [c.cuentaId],
        Modo: ['test'],
        IntentosEntrega: [5],
        OrganizacionId: [c.org],
      });
      expect(
        ((await c.http.get(`/v1/webhooks/${w.id}/entregas?estado=fallida`)).body.datos as unknown[]).length,
      ).toBe(1);
      expect(
        ((await c.http.get(`/v1/webhooks/${w.id}/entregas?estado=entregada`)).body.datos as unknown[]).length,
      ).toBe(0);
    } finally {
      await r.cerrar();
    }
  });

  it('un receptor que responde a los 11 s cuenta como fallo (plazo de 10 s para todo el intercambio)', async () => {
    const r = await receptorWebhooks(async (n) => {
      if (n === 1) await new Promise((res) => setTimeout(res, 11_000));
      return 200;
    });
    try {
      const { c } = await conWebhook(r.url);
      const ev = await borrador(c);
      const e = await final(c, ev.id, 'entregada', 60_000);
      expect(e.intentos).toHaveLength(2);
      expect(e.intentos[0]).toMatchObject({ status_http: null, error: { codigo: 'tiempo_agotado' } });
      expect(e.intentos[0].latencia_ms).toBeGreaterThanOrEqual(9_900);
      expect(e.intentos[0].latencia_ms).toBeLessThan(11_000);
      expect(e.intentos[1]).toMatchObject({ status_http: 200, error: null });
    } finally {
      await r.cerrar();
    }
  }, 90_000);

  it('ningún webhook de otra cuenta ni de otro modo recibe el evento', async () => {
    const propio = await receptorWebhooks();
    const ajeno = await receptorWebhooks();
    try {
      const { c, w } = await conWebhook(propio.url);
      const otra = await cuentaLista(pila);
      const wOtra = await otra.http.post('/v1/webhooks', {
        url: ajeno.url,
        eventos_suscritos: ['factura.creada'],
      });
      expect(wOtra.status).toBe(201);
      // A live webhook of the same account (written directly: live registration refuses loopback).
      await habilitarLive(pila.db, c.cuentaId);
      const wLive = await webhookLiveDirecto(c.cuentaId, ajeno.url);
      const ev = await borrador(c);
      await final(c, ev.id, 'entregada');
      // Another event in the other account reaches only its own webhook.
      const evOtra = await borrador(otra);
      await final(otra, evOtra.id, 'entregada');
      expect(propio.recibidas.map((x) => x.encabezados['x-facturacion-evento'])).toEqual([ev.id]);
      expect(ajeno.recibidas.map((x) => x.encabezados['x-facturacion-evento'])).toEqual([evOtra.id]);
      expect(
        await pila.db('entregas').whereIn('webhook_id', [wLive, wOtra.body.id]).where({ evento_id: ev.id }),
      ).toEqual([]);
      // And nobody reads another's webhook or its deliveries.
      expect((await otra.http.get(`/v1/webhooks/${w.id}`)).status).toBe(404);
      expect((await otra.http.get(`/v1/webhooks/${w.id}/entregas`)).status).toBe(404);
      expect((await otra.http.get(`/v1/eventos/${ev.id}/entregas`)).status).toBe(404);
      expect((await otra.http.post(`/v1/webhooks/${wOtra.body.id}/entregas`, { evento: ev.id })).status).toBe(
        404,
      );
    } finally {
      await Promise.all([propio.cerrar(), ajeno.cerrar()]);
    }
  });

  /** Writes a live webhook straight to the database, sealed as the service would seal it. */
  async function webhookLiveDirecto(cuentaId: string, url: string): Promise<string> {
    const id = nuevoId('wh');
    const sellado = crearBoveda(pila.config.claveMaestra).sellar(
      { cuentaId, modo: 'live', registroId: id },
      { secreto: Buffer.from(nuevoSecretoWebhook()) },
    );
    await pila.db('webhooks').insert({
      id,
      cuenta_id: cuentaId,
      modo: 'live',
      url,
      eventos_suscritos: JSON.stringify(['factura.creada']),
      activo: true,
      secreto_cifrado: sellado.campos.secreto,
      dek_cifrada: sellado.dekCifrada,
      version_clave: sellado.version,
    });
    return id;
  }

  it('modo live: refusa al registrar http, loopback, privadas, metadatos, CGNAT y formas numéricas; modo test admite loopback', async () => {
    const c = await nuevaCuenta(pila.db, pila.url);
    await habilitarLive(pila.db, c.cuentaId);
    const live = clienteHttp(pila.url, await llaveLiveDirecta(pila.db, c.cuentaId));
    const rechazos = [
      'http://hooks.example.mx/x',
      'https://127.0.0.1/x',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://2130706433/x',
      'https://0x7f.1/x',
      'https://10.1.2.3/x',
      'https://192.168.0.10/x',
      'https://172.16.5.4/x',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/x',
      'https://0.0.0.0/x',
      'https://localhost/x',
    ];
    for (const url of rechazos) {
      const r = await live.post('/v1/webhooks', { url, eventos_suscritos: ['factura.timbrada'] });
      expect({
        url,
        status: r.status,
        codigo: r.body.error?.codigo,
        parametro: r.body.error?.parametro,
      }).toEqual({
        url,
        status: 422,
        codigo: 'url_no_segura',
        parametro: 'url',
      });
    }
    const credenciales = await live.post('/v1/webhooks', {
      url: 'https://usuario:clave@hooks.example.mx/x',
      eventos_suscritos: ['factura.timbrada'],
    });
    expect(credenciales.body.error).toMatchObject({ codigo: 'url_invalida', parametro: 'url' });
    expect(await pila.db('webhooks').where({ cuenta_id: c.cuentaId })).toHaveLength(0);

    // Test mode, for local development: http and loopback yes, cloud metadata never.
    expect(
      (await c.http.post('/v1/webhooks', { url: 'http://127.0.0.1:9/x', eventos_suscritos: ['pago.creado'] }))
        .status,
    ).toBe(201);
    const metadatos = await c.http.post('/v1/webhooks', {
      url: 'http://169.254.169.254/latest',
      eventos_suscritos: ['pago.creado'],
    });
    expect(metadatos.status).toBe(422);
    expect(metadatos.body.error.codigo).toBe('url_no_segura');
    // A PATCH is checked the same way.
    const w = (await c.http.get('/v1/webhooks')).body.datos[0];
    const cambio = await c.http.patch(`/v1/webhooks/${w.id}`, { url: 'http://[fd00:ec2::254]/x' });
    expect(cambio.body.error).toMatchObject({ codigo: 'url_no_segura', parametro: 'url' });
    expect((await live.get('/v1/webhooks')).body.datos).toEqual([]);
  });

  it('modo live: cada intento revisa la dirección resuelta; un webhook que hoy apunta a loopback no recibe nada', async () => {
    const r = await receptorWebhooks();
    try {
      const c = await nuevaCuenta(pila.db, pila.url);
      await habilitarLive(pila.db, c.cuentaId);
      const live = clienteHttp(pila.url, await llaveLiveDirecta(pila.db, c.cuentaId));
      const org = (await live.post('/v1/organizaciones', ORGANIZACION)).body.id;
      expect((await live.post('/v1/clientes', { ...CLIENTE, organizacion: org })).status).toBe(201);
      // As if its name resolved to a public address at registration and to loopback now.
      const wh = await webhookLiveDirecto(c.cuentaId, r.url.replace('http:', 'https:'));
      const f = await live.post('/v1/facturas', {
        ...facturaNueva({ org, prod: 'x' }),
        auto_timbrar: false,
        conceptos: [
          {
            cantidad: '1',
            clave_prod_serv: '80111600',
            clave_unidad: 'E48',
            descripcion: 'Servicio',
            valor_unitario: '100',
            objeto_imp: '01',
          },
        ],
      });
      expect(f.status).toBe(201);
      const ev = (await live.get('/v1/eventos?tipo=factura.creada')).body.datos[0];
      const e = await esperar(async () => {
        const [x] = (await live.get(`/v1/eventos/${ev.id}/entregas`)).body.datos;
        return x?.intentos.length >= 2 ? x : undefined;
      });
      expect(e.webhook).toBe(wh);
      expect(e.intentos[0]).toMatchObject({ status_http: null, error: { codigo: 'url_no_segura' } });
      expect(r.recibidas).toHaveLength(0);
    } finally {
      await r.cerrar();
    }
  });

  it('un evento escrito con el worker detenido se entrega cuando vuelve', async () => {
    const r = await receptorWebhooks();
    try {
      const { c } = await conWebhook(r.url);
      await pila.detenerWorker();
      let eventos: { id: string }[];
      try {
        eventos = [await borrador(c), await borrador(c), await borrador(c)];
        await new Promise((res) => setTimeout(res, 1000));
        expect(r.recibidas).toHaveLength(0);
      } finally {
        await pila.arrancarWorker();
      }
      for (const ev of eventos) await final(c, ev.id, 'entregada');
      expect(new Set(r.recibidas.map((x) => x.encabezados['x-facturacion-evento']))).toEqual(
        new Set(eventos.map((e) => e.id)),
      );
      expect(r.recibidas).toHaveLength(3);
    } finally {
      await r.cerrar();
    }
  });

  it('un evento que nadie despachó (Temporal caído al confirmar) lo entrega el reconciliador de la Temporal Schedule', async () => {
    const r = await receptorWebhooks();
    const prefijo = `prueba-${nuevoId('x')}`;
    try {
      const { c } = await conWebhook(r.url, ['pago.creado']);
      // Written as the service writes events, but with no after-commit dispatch: only the outbox row remains.
      const eventos = crearRepositorioEventos(pila.db);
      const id = await crearTransacciones(pila.db).ejecutar((tx) =>
        eventos.registrar(tx, alcanceSistema({ cuentaId: c.cuentaId, modo: 'test' }), 'pago.creado', {
          id: 'pago_x',
          objeto: 'pago',
        }),
      );
      await new Promise((res) => setTimeout(res, 500));
      expect(await pila.db('eventos_por_despachar').where({ evento_id: id })).toHaveLength(1);
      expect(await pila.db('entregas').where({ evento_id: id })).toHaveLength(0);

      await asegurarProgramaciones(pila.cliente, {
        taskQueue: pila.taskQueue,
        prefijo,
        solo: ['reconciliar'],
      });
      await pila.cliente.schedule.getHandle(idsProgramaciones(prefijo).reconciliar).trigger();
      const e = await final(c, id, 'entregada');
      expect(e.intentos).toHaveLength(1);
      expect(await pila.db('eventos_por_despachar').where({ evento_id: id })).toHaveLength(0);
      expect(r.recibidas.map((x) => x.encabezados['x-facturacion-evento'])).toEqual([id]);
      // Once more changes nothing: the delivery's workflow id refuses a second run.
      await pila.cliente.schedule.getHandle(idsProgramaciones(prefijo).reconciliar).trigger();
      await new Promise((res) => setTimeout(res, 1500));
      expect(r.recibidas).toHaveLength(1);
    } finally {
      for (const s of Object.values(idsProgramaciones(prefijo))) {
        await pila.cliente.schedule
          .getHandle(s)
          .delete()
          .catch(() => undefined);
      }
      await r.cerrar();
    }
  });

  it('reenvío: una entrega nueva del mismo evento, también a un webhook creado después', async () => {
    const r = await receptorWebhooks();
    try {
      const c = await cuentaLista(pila);
      const ev = await borrador(c);
      const w = (await c.http.post('/v1/webhooks', { url: r.url, eventos_suscritos: ['pago.creado'] })).body;
      const nueva = await c.http.post(`/v1/webhooks/${w.id}/entregas`, { evento: ev.id });
      expect(nueva.status).toBe(202);
      expect(nueva.body).toMatchObject({
        evento: ev.id,
        webhook: w.id,
        origen: 'reenvio',
        tipo_evento: 'factura.creada',
      });
      await final(c, ev.id, 'entregada');
      const otra = await c.http.post(`/v1/webhooks/${w.id}/entregas`, { evento: ev.id });
      expect(otra.body.id).not.toBe(nueva.body.id);
      await esperar(async () => (r.recibidas.length === 2 ? true : undefined));
      expect(r.recibidas.map((x) => x.encabezados['x-facturacion-evento'])).toEqual([ev.id, ev.id]);
      expect(r.recibidas.map((x) => x.encabezados['x-facturacion-entrega'])).toEqual([
        nueva.body.id,
        otra.body.id,
      ]);
      expect(
        (await c.http.post(`/v1/webhooks/${w.id}/entregas`, { evento: 'evt_inexistente' })).body.error,
      ).toMatchObject({ codigo: 'evento_no_encontrado', parametro: 'evento' });
      await c.http.patch(`/v1/webhooks/${w.id}`, { activo: false });
      const inactivo = await c.http.post(`/v1/webhooks/${w.id}/entregas`, { evento: ev.id });
      expect(inactivo.status).toBe(409);
      expect(inactivo.body.error.codigo).toBe('webhook_inactivo');
    } finally {
      await r.cerrar();
    }
  });

  it('desactivar o eliminar un webhook detiene sus entregas pendientes', async () => {
    const r = await receptorWebhooks(() => 500);
    try {
      for (const detener of ['desactivar', 'eliminar'] as const) {
        const { c, w } = await conWebhook(r.url);
        const ev = await borrador(c);
        await esperar(async () => {
          const [e] = await entregasDe(c, ev.id);
          return e?.intentos.length === 1 ? e : undefined;
        });
        const antes = r.recibidas.length;
        const resp =
          detener === 'desactivar'
            ? await c.http.patch(`/v1/webhooks/${w.id}`, { activo: false })
            : await c.http.delete(`/v1/webhooks/${w.id}`);
        expect(resp.status).toBe(200);
        const [e] = await entregasDe(c, ev.id);
        expect(e).toMatchObject({ estado: 'cancelada', proximo_intento_en: null });
        const h = pila.cliente.workflow.getHandle(`entrega:${ev.id}:${w.id}`);
        await esperar(async () => ((await h.describe()).status.name === 'CANCELLED' ? true : undefined));
        await new Promise((res) => setTimeout(res, 2500));
        expect(r.recibidas.length).toBe(antes);
        if (detener === 'eliminar') {
          expect((await c.http.get(`/v1/webhooks/${w.id}`)).status).toBe(404);
          expect((await c.http.delete(`/v1/webhooks/${w.id}`)).status).toBe(404);
        }
      }
    } finally {
      await r.cerrar();
    }
  });

  it('rotar el secreto: durante el solape firman los dos; el nuevo se muestra una sola vez', async () => {
    const r = await receptorWebhooks();
    try {
      const { c, w } = await conWebhook(r.url);
      const conCuerpo = await c.http.post(`/v1/webhooks/${w.id}/rotar_secreto`, { x: 1 });
      expect(conCuerpo.status).toBe(400);
      const rotado = await c.http.post(`/v1/webhooks/${w.id}/rotar_secreto`);
      expect(rotado.status).toBe(200);
      expect(rotado.body.secreto_firma).toMatch(/^whsec_/);
      expect(rotado.body.secreto_firma).not.toBe(w.secreto_firma);
      const vence = Date.parse(rotado.body.secreto_anterior_vence_en) - Date.now();
      expect(vence).toBeGreaterThan(23.9 * 3600_000);
      expect(vence).toBeLessThanOrEqual(24 * 3600_000);
      expect((await c.http.get(`/v1/webhooks/${w.id}`)).body).not.toHaveProperty('secreto_firma');
      const ev = await borrador(c);
      await final(c, ev.id, 'entregada');
      const [x] = r.recibidas;
      expect(x!.encabezados['x-facturacion-firma-tiempo']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      for (const secreto of [rotado.body.secreto_firma, w.secreto_firma]) {
        expect(readme.verificarFirma(x!.cuerpo, x!.encabezados, secreto)).toBe(true);
        expect(readme.verificarFirmaSimple(x!.cuerpo, x!.encabezados, secreto)).toBe(true);
      }
    } finally {
      await r.cerrar();
    }
  });
});

describe('webhooks: el programa por defecto de la especificación', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila();
  });
  afterAll(() => pila.detener());

  it('la historia registrada programa los intentos a 300, 1800, 7200 y 86400 s del primero', async () => {
    const r = await receptorWebhooks(() => 500);
    try {
      const c = await cuentaLista(pila);
      const w = (await c.http.post('/v1/webhooks', { url: r.url, eventos_suscritos: ['factura.creada'] }))
        .body;
      await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
      const ev = (await c.http.get('/v1/eventos?tipo=factura.creada')).body.datos[0];
      const h = pila.cliente.workflow.getHandle(`entrega:${ev.id}:${w.id}`);
      // The dispatcher starts the workflow just after the draft's commit: until then it does not exist.
      const timers = async () =>
        ((await h.fetchHistory().catch(() => undefined))?.events ?? []).filter(
          (e) => e.timerStartedEventAttributes,
        ).length;
      // Each wait is a real durable timer; ops' "retry now" update lets the test go on without waiting a day.
      for (let n = 1; n <= 4; n++) {
        await esperar(async () => ((await timers()) === n ? true : undefined));
        expect(await h.executeUpdate(reintentarAhora)).toBe(true);
      }
      await expect(h.result()).rejects.toThrow();
      expect(r.recibidas).toHaveLength(5);

      const eventos = (await h.fetchHistory()).events!;
      const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
        Number(t!.seconds) * 1000 + Math.floor((t!.nanos ?? 0) / 1e6);
      // The workflow's clock when it started each timer is the start of the workflow task that started it.
      const inicioTarea = (i: number) =>
        ms(
          eventos
            .slice(0, i)
            .reverse()
            .find((e) => e.workflowTaskStartedEventAttributes)!.eventTime,
        );
      // `inicio` is the workflow's clock at its first activation, before the first attempt.
      const inicio = ms(eventos.find((e) => e.workflowTaskStartedEventAttributes)!.eventTime);
      const programados = eventos
        .map((e, i) => ({ e, i }))
        .filter(({ e }) => e.timerStartedEventAttributes)
        .map(
          ({ e, i }) =>
            (inicioTarea(i) + ms(e.timerStartedEventAttributes!.startToFireTimeout) - inicio) / 1000,
        );
      expect(programados.map(Math.round)).toEqual([300, 1800, 7200, 86_400]);
      programados.forEach((s, i) => expect(Math.abs(s - [300, 1800, 7200, 86_400][i]!)).toBeLessThan(1));
      expect(eventos.filter((e) => e.timerCanceledEventAttributes)).toHaveLength(4);
      expect((await c.http.get(`/v1/eventos/${ev.id}/entregas`)).body.datos[0]).toMatchObject({
        estado: 'fallida',
      });
    } finally {
      await r.cerrar();
    }
  });
});
