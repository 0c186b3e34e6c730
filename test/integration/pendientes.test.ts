import { fallasPac } from '../support/fallas';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';
import { receptorWebhooks } from '../support/receptor-webhooks';

/**
 * The ops friction of issue 28, on the real stack: a stuck cancellation, a terminated stamping and a failing
 * delivery each appear in `GET /v1/pendientes` with their cause, and each is acted on through the API: the
 * terminated stamping retried (stamped once), a stamping stuck on a sandbox fault abandoned (fallido, with its
 * event and actor), the delivery retried in place (delivered, one delivery). What the pieces do alone is shown
 * at cheaper tiers (test/unit/servicios-pendientes, servicios-webhooks, actividades-timbrado; test/flujos).
 */
describe('pendientes: encontrar y actuar desde la API', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  let llave: string;
  // A delivery waits 5 minutes for its second attempt: only a retry-now makes it sooner.
  const PROGRAMA = [0, 300, 600, 900, 1200];

  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 1500, programaEntregasS: PROGRAMA, graciaDespachoMs: 0 });
    c = await cuentaLista(pila);
    llave = (await c.http.get('/v1/llaves_api')).body.datos[0].id;
  });
  afterAll(async () => {
    await fallasPac(pila, 'normal');
    await pila.detener();
  });

  const pendientes = async (q = '') => {
    const r = await c.http.get(`/v1/pendientes?paginacion.limite=100${q}`);
    expect(r.status).toBe(200);
    return r.body.datos as any[];
  };
  const item = (lista: any[], tipo: string, id: string) => lista.find((x) => x.tipo === tipo && x.id === id);

  it('una cancelación atorada y un timbrado terminado aparecen con su causa; se reintentan: cancelada, y timbrada una vez', async () => {
    const timbrada = await c.http.post('/v1/facturas', facturaNueva(c));
    expect(timbrada.status).toBe(201);

    await fallasPac(pila, 'caido');
    const cancelacion = await c.http.post(`/v1/facturas/${timbrada.body.id}/cancelar`, { motivo: '02' });
    expect(cancelacion.status).toBe(202);
    const creada = await c.http.post('/v1/facturas', facturaNueva(c));
    expect(creada.status).toBe(202);
    const id = creada.body.id as string;
    // An operator terminates its stamping while the PAC is down: MySQL still holds it pending, nobody runs it.
    await esperar(async () =>
      (await c.http.get(`/v1/facturas/${id}`)).body.timbrado.intentos >= 1 ? 1 : undefined,
    );
    await pila.cliente.workflow.getHandle(`timbrado:${id}`).terminate('prueba de pendientes');

    // The cancellation's PAC call retrying shows from Temporal (MySQL records no error for it).
    const lista = await esperar(async () => {
      const l = await pendientes();
      return item(l, 'cancelacion', timbrada.body.id)?.flujo.actividad?.intento >= 2 ? l : undefined;
    });
    const c1 = item(lista, 'cancelacion', timbrada.body.id);
    expect(c1).toMatchObject({
      paso: 'solicitud',
      flujo: {
        id: `cancelacion:${timbrada.body.id}`,
        estado: 'en_curso',
        actividad: { nombre: 'solicitarCancelacion' },
      },
      ultima_causa: { codigo: 'pac_no_disponible' },
    });
    expect(c1.ultima_causa.mensaje).toMatch(
      /^El PAC no respondió a la solicitud de cancelación \(.+\) — \d+ intentos desde las \d{2}:\d{2}$/,
    );
    const t = item(lista, 'timbrado', id);
    expect(t).toMatchObject({
      paso: 'pac',
      flujo: { id: `timbrado:${id}`, estado: 'terminado' },
      ultima_causa: { codigo: 'flujo_detenido' },
    });
    expect(t.ultima_causa.mensaje).toMatch(
      /^Su workflow está terminado por un operador y la operación sigue pendiente/,
    );
    expect(t.acciones.map((a: any) => a.accion)).toEqual(['reintentar', 'abandonar']);

    expect(c1.acciones.map((a: any) => a.ruta)).toEqual([
      `/v1/facturas/${timbrada.body.id}/cancelacion/reintentar`,
    ]);

    await fallasPac(pila, 'normal');
    // The listed actions, as a console would take them: the cancellation asks the PAC now, not at its next retry.
    const cancelada = await c.http.post(c1.acciones[0].ruta);
    expect(cancelada.status).toBe(200);
    expect(cancelada.body).toMatchObject({ estado: 'cancelada', cancelacion: { estado: 'aceptada' } });
    const accion = t.acciones[0];
    const r = await c.http.post(accion.ruta);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ estado: 'timbrada' });
    const timbres = await pila
      .db('pac_sandbox_timbres')
      .where('xml_timbrado', 'like', `%Serie="${c.serie}"%`)
      .andWhere('xml_timbrado', 'like', `%Folio="${r.body.folio}"%`);
    expect(timbres.map((x) => String(x.uuid).toUpperCase())).toEqual([r.body.uuid]);
    // Neither is pending any more.
    await esperar(async () => {
      const l = await pendientes();
      return !item(l, 'cancelacion', timbrada.body.id) && !item(l, 'timbrado', id) ? true : undefined;
    });
  });

  it('un timbrado atorado en una falla del sandbox se abandona: fallido timbrado_abandonado, con su evento y su actor', async () => {
    const creada = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { condiciones_pago: 'SANDBOX:ERROR_500' }),
    );
    expect(creada.status).toBe(202);
    const id = creada.body.id as string;
    const t = await esperar(async () => {
      const x = item(await pendientes('&tipo=timbrado'), 'timbrado', id);
      return x?.intentos >= 1 && x.ultima_causa ? x : undefined;
    });
    expect(t.ultima_causa).toMatchObject({ codigo: 'pac_no_disponible' });
    expect(t.ultima_causa.mensaje).toMatch(
      /^El PAC no respondió \(respondió HTTP 500\) — \d+ intentos? desde las /,
    );
    const abandonar = t.acciones.find((a: any) => a.accion === 'abandonar');

    const r = await c.http.post(abandonar.ruta);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      estado: 'borrador',
      uuid: null,
      timbrado: { estado: 'fallido', ultimo_error: { codigo: 'timbrado_abandonado' } },
    });
    const eventos = await c.http.get(`/v1/eventos?factura=${id}&tipo=factura.timbrado_fallido`);
    expect(eventos.body.datos).toHaveLength(1);
    expect(eventos.body.datos[0].actor).toEqual({ tipo: 'llave', id: llave });
    expect(item(await pendientes(), 'timbrado', id)).toBeUndefined();
    // The history tells it: the PAC's failures and who abandoned it.
    const h = await c.http.get(`/v1/facturas/${id}/historia`);
    expect(h.status).toBe(200);
    expect(h.body.temporal).toEqual({ leido: true, error: null });
    const tipos = h.body.pasos.map((p: any) => p.tipo);
    expect(tipos).toEqual(
      expect.arrayContaining(['creada', 'sellada', 'intentos_pac', 'timbrado_abandonado']),
    );
    expect(h.body.pasos.find((p: any) => p.tipo === 'intentos_pac').texto).toMatch(
      /el PAC no respondió \(respondió HTTP 500\)/,
    );
    // Abandoned, not pending: a second abandon has nothing to do.
    const otra = await c.http.post(abandonar.ruta);
    expect([otra.status, otra.body.error.codigo]).toEqual([409, 'timbrado_no_pendiente']);
  });

  it('una entrega que falla aparece con su status HTTP; reintentarla la entrega en la misma entrega', async () => {
    const receptor = await receptorWebhooks((n) => (n === 1 ? 500 : 200));
    try {
      const wh = await c.http.post('/v1/webhooks', {
        url: receptor.url,
        eventos_suscritos: ['factura.creada'],
      });
      expect(wh.status).toBe(201);
      const borrador = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
      expect(borrador.status).toBe(201);
      const e = await esperar(async () => {
        const x = (await pendientes('&tipo=entrega')).find((p) => p.recursos.webhook === wh.body.id);
        return x?.intentos === 1 ? x : undefined;
      });
      expect(e).toMatchObject({
        paso: 'espera_reintento',
        organizacion: c.org,
        ultima_causa: { codigo: 'status_http' },
        acciones: [{ accion: 'reintentar', metodo: 'POST', ruta: `/v1/entregas/${e.id}/reintentar` }],
      });
      expect(e.ultima_causa.mensaje).toMatch(
        /^El webhook respondió HTTP 500 — 1 intento desde las \d{2}:\d{2}; el siguiente a las \d{2}:\d{2}$/,
      );
      // Account-wide, by state, across webhooks.
      const fallando = await c.http.get(`/v1/entregas?estado=pendiente&webhook=${wh.body.id}`);
      expect(fallando.body.datos.map((x: any) => x.id)).toEqual([e.id]);

      const r = await c.http.post(e.acciones[0].ruta);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: e.id, estado: 'entregada' });
      expect(r.body.intentos.map((i: any) => i.status_http)).toEqual([500, 200]);
      // One delivery, two requests: the receiver got the event once more, not twice more.
      expect(receptor.recibidas).toHaveLength(2);
      expect(new Set(receptor.recibidas.map((x) => x.encabezados['x-facturacion-entrega']))).toEqual(
        new Set([e.id]),
      );
      const delEvento = await c.http.get(`/v1/eventos/${e.recursos.evento}/entregas`);
      expect(delEvento.body.datos).toHaveLength(1);
      const otra = await c.http.post(e.acciones[0].ruta);
      expect([otra.status, otra.body.error.codigo]).toEqual([409, 'entrega_no_pendiente']);
    } finally {
      await receptor.cerrar();
    }
  });
});
