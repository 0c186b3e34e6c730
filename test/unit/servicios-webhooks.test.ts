import type { WebhookNuevo } from '../../servicios/webhooks';
import { aApiError } from '../../api/middleware/manejador-errores';
import type { TipoEvento } from '../../db/repositorios/eventos';
import type { Alcance } from '../../dominio/alcance';
import type { ErrorNegocio } from '../../dominio/errores';
import { alcance, tablaEntregas, tablaWebhooks } from '../support/memoria';
import {
  AHORA,
  crearServiciosEnMemoria,
  errorNegocio,
  rechazoSinEscrituras,
  type ServiciosEnMemoria,
} from '../support/memoria/servicios';

const a = alcance();
const live = alcance('cta_a', 'live');
const HORA = 3600_000;
let s: ServiciosEnMemoria;

beforeEach(() => {
  s = crearServiciosEnMemoria();
});

const nuevo = (
  url = 'https://hooks.ejemplo.mx/cfdi',
  eventos_suscritos: WebhookNuevo['eventos_suscritos'] = ['factura.timbrada'],
) => ({
  url,
  eventos_suscritos,
});

/** The error as the API answers it: status and envelope. */
const respuesta = (e: ErrorNegocio) => {
  const api = aApiError(e);
  return { status: api.status, ...api.toJSON().error };
};

/** The row's secrets, opened with the vault as the signing code does. */
function secretosGuardados(alc: Alcance, id: string) {
  const f = tablaWebhooks(s.m.almacen).buscar(id)!;
  const campos: Record<string, Buffer> = { secreto: f.secreto_cifrado };
  if (f.secreto_anterior_cifrado) campos.secreto_anterior = f.secreto_anterior_cifrado;
  const abiertos = s.boveda.abrir(
    { cuentaId: alc.cuentaId, modo: alc.modo, registroId: id },
    f.dek_cifrada,
    campos,
    f.version_clave,
  );
  return {
    fila: f,
    actual: abiertos.secreto!.toString('utf8'),
    anterior: abiertos.secreto_anterior?.toString('utf8') ?? null,
  };
}

const registrarEvento = (alc: Alcance = a, tipo: TipoEvento = 'factura.timbrada') =>
  s.m.transacciones.ejecutar((tx) => s.m.eventos.registrar(tx, alc, tipo, { id: 'fac_1' }));

/** A webhook with `n` pending deliveries (events dispatched as the reconciler would) and one delivered. */
async function conEntregas(n: number) {
  const w = await s.webhooks.crear(a, nuevo());
  for (let i = 0; i <= n; i++) await registrarEvento();
  await s.m.despachador.despacharPendientes();
  const [entregada, ...pendientes] = s.m.despachador.iniciadas;
  await s.m.entregas.registrarIntento(
    a,
    entregada!.id,
    { numero: 1, iniciado_en: AHORA, status_http: 200, latencia_ms: 5, error: null, respuesta: 'ok' },
    { estado: 'entregada', proximo_intento_en: null },
  );
  return { w, entregada: entregada!, pendientes };
}

/** A delivery's attempt as the activity logs it: failed, the next one scheduled. */
const fallo = (id: string, numero: number) =>
  s.m.entregas.registrarIntento(
    a,
    id,
    {
      numero,
      iniciado_en: new Date(AHORA.getTime() + numero * 1000),
      status_http: 500,
      latencia_ms: 20,
      error: { codigo: 'status_http', mensaje: 'El receptor respondió con HTTP 500.' },
      respuesta: 'no',
    },
    { estado: 'pendiente', proximo_intento_en: new Date(AHORA.getTime() + 300_000) },
  );

/** A delivery ends (its workflow with it). */
async function terminar(id: string, estado: 'entregada' | 'fallida') {
  await s.m.entregas.registrarIntento(
    a,
    id,
    { numero: 1, iniciado_en: AHORA, status_http: 200, latencia_ms: 5, error: null, respuesta: 'ok' },
    { estado, proximo_intento_en: null },
  );
  const e = tablaEntregas(s.m.almacen).buscar(id)!;
  s.m.despachador.cerrar(e);
}

const estados = () =>
  Object.fromEntries(
    tablaEntregas(s.m.almacen)
      .todas()
      .map((r) => [r.id, r.estado]),
  );

describe('crear', () => {
  it('devuelve el secreto whsec_ una vez y lo guarda sellado; obtener y listar nunca lo muestran', async () => {
    const w = await s.webhooks.crear(a, nuevo());
    expect(w).toEqual({
      id: expect.stringMatching(/^wh_/),
      objeto: 'webhook',
      modo: 'test',
      url: 'https://hooks.ejemplo.mx/cfdi',
      eventos_suscritos: ['factura.timbrada'],
      activo: true,
      secreto_anterior_vence_en: null,
      // A new webhook has made no attempt yet.
      salud: {
        intentos_24h: 0,
        exitosos_24h: 0,
        tasa_exito: null,
        ultimo_exito_en: null,
        fallando_desde: null,
        ultimo_error: null,
      },
      // The database's clock (as events'), not the service's.
      creado_en: expect.any(String),
      actualizado_en: AHORA.toISOString(),
      secreto_firma: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });

    const { fila, actual, anterior } = secretosGuardados(a, w.id);
    const claro = Buffer.from(w.secreto_firma, 'utf8');
    const aleatorio = Buffer.from(w.secreto_firma.slice('whsec_'.length), 'utf8');
    for (const b of [fila.secreto_cifrado, fila.dek_cifrada]) {
      expect(b.includes(claro)).toBe(false);
      expect(b.includes(aleatorio)).toBe(false);
    }
    expect(Object.values(fila).some((v) => v === w.secreto_firma)).toBe(false);
    expect(fila.secreto_anterior_cifrado).toBeNull();
    expect([actual, anterior]).toEqual([w.secreto_firma, null]);

    const { secreto_firma: _s, ...publico } = w;
    const obtenido = await s.webhooks.obtener(a, w.id);
    const lista = await s.webhooks.listar(a, { limite: 10 });
    expect(obtenido).toEqual(publico);
    expect(lista).toEqual({ datos: [publico], hayMas: false });
    expect(JSON.stringify([obtenido, lista])).not.toContain(w.secreto_firma);
  });

  it('cada webhook tiene su propio secreto', async () => {
    const x = await s.webhooks.crear(a, nuevo());
    const y = await s.webhooks.crear(a, nuevo());
    expect(x.secreto_firma).not.toBe(y.secreto_firma);
  });

  it.each([
    'http://127.0.0.1:4000/webhooks',
    'http://localhost:3000/cfdi',
    'http://[::1]:8080/',
    'http://192.168.1.20/x',
  ])('modo test admite http y direcciones locales: %s', async (url) => {
    s.dns.set('localhost', ['127.0.0.1']);
    const w = await s.webhooks.crear(a, nuevo(url));
    expect(w).toMatchObject({ url, modo: 'test', activo: true });
  });

  it('modo test también resuelve el nombre al registrar: uno que no resuelve es url_no_resuelve', async () => {
    const e = await rechazoSinEscrituras(s.m, () => s.webhooks.crear(a, nuevo('http://no-existe.invalid/h')));
    expect(respuesta(e)).toMatchObject({ status: 422, codigo: 'url_no_resuelve', parametro: 'url' });
  });

  it('modo live con http:// → 422 url_no_segura en url, sin escribir', async () => {
    const e = await rechazoSinEscrituras(s.m, () =>
      s.webhooks.crear(live, nuevo('http://hooks.ejemplo.mx/cfdi')),
    );
    expect(respuesta(e)).toMatchObject({
      status: 422,
      tipo: 'regla_de_negocio',
      codigo: 'url_no_segura',
      parametro: 'url',
    });
  });

  it('modo live: un nombre que resuelve a 10.0.0.5 se rechaza; a una dirección pública se acepta', async () => {
    s.dns.set('interno.ejemplo.mx', ['10.0.0.5']);
    s.dns.set('hooks.ejemplo.mx', ['201.175.40.12']);
    const e = await rechazoSinEscrituras(s.m, () =>
      s.webhooks.crear(live, nuevo('https://interno.ejemplo.mx/cfdi')),
    );
    expect(respuesta(e)).toMatchObject({ status: 422, codigo: 'url_no_segura', parametro: 'url' });
    expect(e.message).toContain('10.0.0.5');

    const w = await s.webhooks.crear(live, nuevo('https://hooks.ejemplo.mx/cfdi'));
    expect(w).toMatchObject({ modo: 'live', url: 'https://hooks.ejemplo.mx/cfdi', activo: true });
    expect((await s.webhooks.listar(a, { limite: 10 })).datos).toEqual([]);
  });

  it('modo live: basta una dirección privada entre varias; un nombre que no resuelve es url_no_resuelve', async () => {
    s.dns.set('mixto.ejemplo.mx', ['201.175.40.12', '192.168.0.9']);
    const mixto = await rechazoSinEscrituras(s.m, () =>
      s.webhooks.crear(live, nuevo('https://mixto.ejemplo.mx/')),
    );
    expect([mixto.codigo, mixto.parametro]).toEqual(['url_no_segura', 'url']);
    const nadie = await rechazoSinEscrituras(s.m, () =>
      s.webhooks.crear(live, nuevo('https://nadie.ejemplo.mx/')),
    );
    expect([nadie.codigo, nadie.parametro]).toEqual(['url_no_resuelve', 'url']);
  });

  it('el webhook 21 de la cuenta y modo → 422 limite_de_webhooks; eliminar uno libera el lugar', async () => {
    for (let i = 0; i < 20; i++) await s.webhooks.crear(a, nuevo(`https://hooks.ejemplo.mx/${i}`));
    const e = await rechazoSinEscrituras(s.m, () => s.webhooks.crear(a, nuevo()));
    expect(respuesta(e)).toMatchObject({
      status: 422,
      tipo: 'regla_de_negocio',
      codigo: 'limite_de_webhooks',
    });
    // Other accounts and modes count on their own.
    await s.webhooks.crear(alcance('cta_b'), nuevo());
    const [primero] = (await s.webhooks.listar(a, { limite: 1 })).datos;
    await s.webhooks.eliminar(a, primero!.id);
    await expect(s.webhooks.crear(a, nuevo())).resolves.toMatchObject({ activo: true });
  });

  it('lista del más nuevo al más viejo, por páginas', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push((await s.webhooks.crear(a, nuevo(`https://hooks.ejemplo.mx/${i}`))).id);
    const p1 = await s.webhooks.listar(a, { limite: 2 });
    const p2 = await s.webhooks.listar(a, { limite: 2, despuesDe: p1.datos[1]!.id });
    expect([p1.hayMas, p2.hayMas]).toEqual([true, false]);
    // Ids of one millisecond have no order among them: the walk is by id, newest first.
    expect([...p1.datos, ...p2.datos].map((w) => w.id)).toEqual([...ids].sort().reverse());
  });
});

describe('alcance', () => {
  it('el webhook de otra cuenta o de otro modo es 404 webhook_no_encontrado en todas las operaciones', async () => {
    const w = await s.webhooks.crear(a, nuevo());
    const evt = await registrarEvento();
    for (const otro of [alcance('cta_b'), live]) {
      const operaciones = [
        () => s.webhooks.obtener(otro, w.id),
        () => s.webhooks.actualizar(otro, w.id, { activo: false }),
        () => s.webhooks.eliminar(otro, w.id),
        () => s.webhooks.rotarSecreto(otro, w.id),
        () => s.webhooks.entregasDeWebhook(otro, w.id, {}, { limite: 10 }),
      ];
      for (const op of operaciones) {
        const e = await rechazoSinEscrituras(s.m, op);
        expect(respuesta(e)).toMatchObject({
          status: 404,
          tipo: 'no_encontrado',
          codigo: 'webhook_no_encontrado',
          parametro: 'id',
        });
      }
      expect((await s.webhooks.listar(otro, { limite: 10 })).datos).toEqual([]);
      // The event is not theirs either.
      const e = await rechazoSinEscrituras(s.m, () => s.webhooks.reenviar(otro, w.id, evt));
      expect([e.codigo, e.parametro]).toEqual(['evento_no_encontrado', 'evento']);
    }
    expect(await s.webhooks.obtener(a, w.id)).toMatchObject({ id: w.id, activo: true });
  });
});

describe('actualizar', () => {
  it('activo:false cancela las entregas pendientes y detiene sus workflows; las terminadas quedan', async () => {
    const { w, entregada, pendientes } = await conEntregas(2);
    expect(pendientes).toHaveLength(2);
    s.reloj.ahora = new Date(AHORA.getTime() + HORA);

    const r = await s.webhooks.actualizar(a, w.id, { activo: false });
    expect(r).toMatchObject({ id: w.id, activo: false, actualizado_en: s.reloj.ahora.toISOString() });
    expect(s.m.despachador.detenidas.map((e) => e.id).sort()).toEqual(pendientes.map((e) => e.id).sort());
    expect(estados()).toEqual({
      [entregada.id]: 'entregada',
      ...Object.fromEntries(pendientes.map((e) => [e.id, 'cancelada'])),
    });
    const tabla = tablaEntregas(s.m.almacen);
    for (const e of pendientes) expect(tabla.buscar(e.id)!.actualizado_en).toEqual(s.reloj.ahora);

    // Already disabled: nothing more to stop.
    await s.webhooks.actualizar(a, w.id, { activo: false });
    expect(s.m.despachador.detenidas).toHaveLength(2);
  });

  it('cambiar eventos_suscritos no cancela nada; una clave undefined no borra su columna', async () => {
    const { w } = await conEntregas(1);
    const r = await s.webhooks.actualizar(a, w.id, {
      url: undefined,
      activo: undefined,
      eventos_suscritos: ['factura.creada', 'pago.creado'],
    });
    expect(r).toMatchObject({
      url: w.url,
      activo: true,
      eventos_suscritos: ['factura.creada', 'pago.creado'],
    });
    expect(s.m.despachador.detenidas).toEqual([]);
    expect(Object.values(estados()).sort()).toEqual(['entregada', 'pendiente']);
  });

  it('la URL nueva se valida como al crear; una válida se guarda', async () => {
    s.dns.set('hooks.ejemplo.mx', ['201.175.40.12']);
    s.dns.set('interno.ejemplo.mx', ['10.0.0.5']);
    s.dns.set('nuevo.ejemplo.mx', ['201.175.40.13']);
    const w = await s.webhooks.crear(live, nuevo());
    for (const url of [
      'http://hooks.ejemplo.mx/cfdi',
      'https://interno.ejemplo.mx/cfdi',
      'https://127.0.0.1/x',
    ]) {
      const e = await rechazoSinEscrituras(s.m, () => s.webhooks.actualizar(live, w.id, { url }));
      expect(respuesta(e)).toMatchObject({ status: 422, codigo: 'url_no_segura', parametro: 'url' });
    }
    const invalida = await rechazoSinEscrituras(s.m, () =>
      s.webhooks.actualizar(live, w.id, { url: 'no es url' }),
    );
    expect([invalida.codigo, invalida.parametro]).toEqual(['url_invalida', 'url']);
    const r = await s.webhooks.actualizar(live, w.id, { url: 'https://nuevo.ejemplo.mx/cfdi' });
    expect(r.url).toBe('https://nuevo.ejemplo.mx/cfdi');
  });
});

describe('eliminar', () => {
  it('desaparece para la API, cancela sus entregas pendientes, y un segundo DELETE es 404', async () => {
    const { w, entregada, pendientes } = await conEntregas(1);
    expect(await s.webhooks.eliminar(a, w.id)).toEqual({ id: w.id, objeto: 'webhook', eliminado: true });

    const e = await errorNegocio(s.webhooks.obtener(a, w.id));
    expect(respuesta(e)).toMatchObject({ status: 404, codigo: 'webhook_no_encontrado' });
    expect((await s.webhooks.listar(a, { limite: 10 })).datos).toEqual([]);
    expect(await s.m.webhooks.contar(a)).toBe(0);
    expect(estados()).toEqual({ [entregada.id]: 'entregada', [pendientes[0]!.id]: 'cancelada' });
    expect(s.m.despachador.detenidas.map((x) => x.id)).toEqual([pendientes[0]!.id]);

    const otra = await rechazoSinEscrituras(s.m, () => s.webhooks.eliminar(a, w.id));
    expect(respuesta(otra)).toMatchObject({ status: 404, codigo: 'webhook_no_encontrado', parametro: 'id' });
    // The deliveries' log still names it; delivery sees it deleted.
    expect(await s.m.webhooks.conSecretos(a, w.id)).toMatchObject({
      id: w.id,
      activo: false,
      eliminado_en: AHORA,
    });
  });
});

describe('rotarSecreto', () => {
  it('devuelve un secreto nuevo; el anterior sigue sellado junto a él durante 24 h', async () => {
    const w = await s.webhooks.crear(a, nuevo());
    s.reloj.ahora = new Date(AHORA.getTime() + HORA);
    const vence = new Date(s.reloj.ahora.getTime() + 24 * HORA);

    const r = await s.webhooks.rotarSecreto(a, w.id);
    expect(r.secreto_firma).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(r.secreto_firma).not.toBe(w.secreto_firma);
    expect(r).toMatchObject({
      secreto_anterior_vence_en: vence.toISOString(),
      actualizado_en: s.reloj.ahora.toISOString(),
    });
    const { fila, actual, anterior } = secretosGuardados(a, w.id);
    expect([actual, anterior]).toEqual([r.secreto_firma, w.secreto_firma]);
    expect(fila.secreto_anterior_hasta).toEqual(vence);
    for (const b of [fila.secreto_cifrado, fila.secreto_anterior_cifrado!]) {
      expect(b.includes(Buffer.from(r.secreto_firma))).toBe(false);
      expect(b.includes(Buffer.from(w.secreto_firma))).toBe(false);
    }

    const obtenido = await s.webhooks.obtener(a, w.id);
    expect(obtenido).not.toHaveProperty('secreto_firma');
    expect(obtenido.secreto_anterior_vence_en).toBe(vence.toISOString());
    s.reloj.ahora = new Date(vence.getTime() - 1);
    expect((await s.webhooks.obtener(a, w.id)).secreto_anterior_vence_en).toBe(vence.toISOString());
    s.reloj.ahora = vence;
    expect((await s.webhooks.obtener(a, w.id)).secreto_anterior_vence_en).toBeNull();
  });

  it('rotar otra vez dentro del solape descarta el más viejo', async () => {
    const w = await s.webhooks.crear(a, nuevo());
    const r1 = await s.webhooks.rotarSecreto(a, w.id);
    const r2 = await s.webhooks.rotarSecreto(a, w.id);
    const { actual, anterior } = secretosGuardados(a, w.id);
    expect([actual, anterior]).toEqual([r2.secreto_firma, r1.secreto_firma]);
  });
});

describe('reenviar', () => {
  it('un evento inexistente → 404 evento_no_encontrado en evento', async () => {
    const w = await s.webhooks.crear(a, nuevo());
    const e = await rechazoSinEscrituras(s.m, () => s.webhooks.reenviar(a, w.id, 'evt_inexistente'));
    expect(respuesta(e)).toMatchObject({
      status: 404,
      tipo: 'no_encontrado',
      codigo: 'evento_no_encontrado',
      parametro: 'evento',
    });
    expect(s.m.despachador.iniciadas).toEqual([]);
  });

  it('un webhook inexistente → 404; uno inactivo → 409 webhook_inactivo, sin escribir ni iniciar', async () => {
    const evt = await registrarEvento();
    const e404 = await rechazoSinEscrituras(s.m, () => s.webhooks.reenviar(a, 'wh_inexistente', evt));
    expect(respuesta(e404)).toMatchObject({ status: 404, codigo: 'webhook_no_encontrado' });
    const w = await s.webhooks.crear(a, nuevo());
    await s.webhooks.actualizar(a, w.id, { activo: false });
    const e = await rechazoSinEscrituras(s.m, () => s.webhooks.reenviar(a, w.id, evt));
    expect(respuesta(e)).toMatchObject({
      status: 409,
      tipo: 'conflicto',
      codigo: 'webhook_inactivo',
      parametro: 'id',
    });
    expect(s.m.despachador.iniciadas).toEqual([]);
  });

  it('sin entrega pendiente crea una nueva origen reenvio y la inicia; los números crecen después del 0', async () => {
    const w = await s.webhooks.crear(a, nuevo());
    const evt = await registrarEvento();
    await s.m.despachador.despacharPendientes();
    const [original] = s.m.despachador.iniciadas;
    expect(original!.numero).toBe(0);
    await terminar(original!.id, 'entregada');

    const r1 = await s.webhooks.reenviar(a, w.id, evt);
    expect(r1).toMatchObject({
      objeto: 'entrega',
      modo: 'test',
      evento: evt,
      tipo_evento: 'factura.timbrada',
      webhook: w.id,
      origen: 'reenvio',
      estado: 'pendiente',
      intentos: [],
      proximo_intento_en: null,
    });
    await terminar(r1.id, 'fallida');
    const r2 = await s.webhooks.reenviar(a, w.id, evt);
    expect(r2.id).not.toBe(r1.id);
    expect(s.m.despachador.iniciadas.map((e) => [e.id, e.numero])).toEqual([
      [original!.id, 0],
      [r1.id, 1],
      [r2.id, 2],
    ]);
    const deEvento = await s.webhooks.entregasDeEvento(a, evt, {}, { limite: 10 });
    const esperadas: [string, string][] = [
      [r2.id, 'reenvio'],
      [r1.id, 'reenvio'],
      [original!.id, 'evento'],
    ];
    expect(deEvento.datos.map((e) => [e.id, e.origen])).toEqual(
      esperadas.sort(([x], [y]) => (x < y ? 1 : -1)),
    );
  });

  it('con la entrega del evento aún pendiente no crea otra: esa misma intenta ahora y es la respuesta', async () => {
    const w = await s.webhooks.crear(a, nuevo());
    const evt = await registrarEvento();
    await s.m.despachador.despacharPendientes();
    const [original] = s.m.despachador.iniciadas;
    await fallo(original!.id, 1);

    const r = await s.webhooks.reenviar(a, w.id, evt);
    expect(r).toMatchObject({ id: original!.id, origen: 'evento', estado: 'pendiente' });
    expect(r.intentos).toHaveLength(1);
    expect(s.m.despachador.adelantadas.map((e) => e.id)).toEqual([original!.id]);
    // Nothing new: one delivery of the event to the webhook, one workflow.
    expect(s.m.despachador.iniciadas.map((e) => e.id)).toEqual([original!.id]);
    expect((await s.webhooks.entregasDeEvento(a, evt, {}, { limite: 10 })).datos).toHaveLength(1);

    // A resend still pending gets the same: a second resend is not a third delivery.
    await terminar(original!.id, 'fallida');
    const r1 = await s.webhooks.reenviar(a, w.id, evt);
    const r2 = await s.webhooks.reenviar(a, w.id, evt);
    expect(r2.id).toBe(r1.id);
    expect((await s.webhooks.entregasDeEvento(a, evt, {}, { limite: 10 })).datos).toHaveLength(2);
  });

  it('con la pendiente detenida fuera del servicio (su workflow terminado tras intentar): la cancela y crea otra', async () => {
    const w = await s.webhooks.crear(a, nuevo());
    const evt = await registrarEvento();
    await s.m.despachador.despacharPendientes();
    const [original] = s.m.despachador.iniciadas;
    await fallo(original!.id, 1);
    s.m.despachador.cerrar(original!);

    const r = await s.webhooks.reenviar(a, w.id, evt);
    expect(r).toMatchObject({ origen: 'reenvio', estado: 'pendiente' });
    expect(r.id).not.toBe(original!.id);
    expect(estados()[original!.id]).toBe('cancelada');
    expect(s.m.despachador.iniciadas.map((e) => e.id)).toEqual([original!.id, r.id]);
  });

  it('con la pendiente sin workflow y sin intentos (su inicio se perdió): la inicia y la responde', async () => {
    const w = await s.webhooks.crear(a, nuevo());
    const evt = await registrarEvento();
    // The event's delivery row exists but its workflow never started (the process died after the commit).
    const [fila] = await s.m.entregas.crearParaEvento((await s.m.eventos.paraDespacho(evt))!);
    const r = await s.webhooks.reenviar(a, w.id, evt);
    expect(r).toMatchObject({ id: fila!.id, origen: 'evento' });
    expect(s.m.despachador.iniciadas.map((e) => e.id)).toEqual([fila!.id]);
  });

  it('con Temporal caído responde la pendiente, que sigue su calendario: ninguna entrega de más', async () => {
    const w = await s.webhooks.crear(a, nuevo());
    const evt = await registrarEvento();
    await s.m.despachador.despacharPendientes();
    const [original] = s.m.despachador.iniciadas;
    s.m.despachador.responderAdelanto('temporal_caido');
    const r = await s.webhooks.reenviar(a, w.id, evt);
    expect(r.id).toBe(original!.id);
    expect((await s.webhooks.entregasDeEvento(a, evt, {}, { limite: 10 })).datos).toHaveLength(1);
  });

  it('a un webhook sin entrega previa del evento, el primer reenvío es el 1', async () => {
    const evt = await registrarEvento();
    const w = await s.webhooks.crear(a, nuevo('https://hooks.ejemplo.mx/otro', ['pago.creado']));
    await s.webhooks.reenviar(a, w.id, evt);
    expect(s.m.despachador.iniciadas.map((e) => e.numero)).toEqual([1]);
  });
});

describe('entregas', () => {
  it('por webhook, de la más nueva a la más vieja, por páginas y por estado; ajenas no se ven', async () => {
    const { w, entregada, pendientes } = await conEntregas(2);
    const p1 = await s.webhooks.entregasDeWebhook(a, w.id, {}, { limite: 2 });
    const p2 = await s.webhooks.entregasDeWebhook(a, w.id, {}, { limite: 2, despuesDe: p1.datos[1]!.id });
    const todas = [entregada, ...pendientes]
      .map((e) => e.id)
      .sort()
      .reverse();
    expect([p1.hayMas, p2.hayMas]).toEqual([true, false]);
    expect([...p1.datos, ...p2.datos].map((e) => e.id)).toEqual(todas);
    const hechas = await s.webhooks.entregasDeWebhook(a, w.id, { estado: 'entregada' }, { limite: 10 });
    expect(hechas.datos).toEqual([
      expect.objectContaining({
        id: entregada.id,
        estado: 'entregada',
        intentos: [
          {
            numero: 1,
            iniciado_en: AHORA.toISOString(),
            status_http: 200,
            latencia_ms: 5,
            error: null,
            respuesta: 'ok',
          },
        ],
      }),
    ]);
    const ajena = await errorNegocio(s.webhooks.obtenerEntrega(alcance('cta_b'), entregada.id));
    expect([ajena.codigo, aApiError(ajena).status]).toEqual(['entrega_no_encontrada', 404]);
    expect((await s.webhooks.obtenerEntrega(a, entregada.id)).estado).toBe('entregada');
  });
});

describe('reintentarEntrega', () => {
  it('una pendiente que espera su siguiente intento lo hace ahora, en su mismo workflow; responde la entrega', async () => {
    const { pendientes } = await conEntregas(1);
    const e = pendientes[0]!;
    await fallo(e.id, 1);
    const r = await s.webhooks.reintentarEntrega(a, e.id);
    expect(r).toMatchObject({ pendiente: true, entrega: { id: e.id, estado: 'pendiente' } });
    expect(s.m.despachador.adelantadas.map((x) => x.id)).toEqual([e.id]);
    // The same delivery: no new row, no new workflow.
    expect(s.m.despachador.iniciadas).toHaveLength(2);
  });

  it('una que ya terminó → 409 entrega_no_pendiente, que dice cómo reenviar; ajena → 404', async () => {
    const { w, entregada } = await conEntregas(0);
    const e = await rechazoSinEscrituras(s.m, () => s.webhooks.reintentarEntrega(a, entregada.id));
    expect(respuesta(e)).toMatchObject({ status: 409, codigo: 'entrega_no_pendiente', parametro: 'id' });
    expect(e.message).toContain(`POST /v1/webhooks/${w.id}/entregas`);
    for (const otro of [alcance('cta_b'), live]) {
      const x = await rechazoSinEscrituras(s.m, () => s.webhooks.reintentarEntrega(otro, entregada.id));
      expect(respuesta(x)).toMatchObject({ status: 404, codigo: 'entrega_no_encontrada' });
    }
    expect(s.m.despachador.adelantadas).toEqual([]);
  });

  it('con su workflow terminado tras intentar → 409 entrega_detenida (la arregla un reenvío); sin intentos, la inicia', async () => {
    const { pendientes } = await conEntregas(2);
    const [detenida, perdida] = pendientes;
    await fallo(detenida!.id, 1);
    s.m.despachador.cerrar(detenida!);
    const e = await rechazoSinEscrituras(s.m, () => s.webhooks.reintentarEntrega(a, detenida!.id));
    expect(respuesta(e)).toMatchObject({ status: 409, codigo: 'entrega_detenida' });

    // Its workflow never ran (a lost start): started now, the same delivery.
    s.m.despachador.cerrar(perdida!);
    tablaEntregas(s.m.almacen).cambiar(perdida!.id, { intentos: 0 });
    const antes = s.m.despachador.iniciadas.length;
    const r = await s.webhooks.reintentarEntrega(a, perdida!.id);
    expect(r.entrega.id).toBe(perdida!.id);
    expect(s.m.despachador.iniciadas).toHaveLength(antes);
  });

  it('con Temporal caído → 503 temporal_no_disponible con Retry-After, sin cambiar nada', async () => {
    const { pendientes } = await conEntregas(1);
    s.m.despachador.responderAdelanto('temporal_caido');
    const e = await rechazoSinEscrituras(s.m, () => s.webhooks.reintentarEntrega(a, pendientes[0]!.id));
    expect(respuesta(e)).toMatchObject({ status: 503, codigo: 'temporal_no_disponible' });
  });
});

describe('listarEntregas', () => {
  it('todas las de la cuenta y el modo, de todos los webhooks, por estado, webhook y evento', async () => {
    const { w, entregada, pendientes } = await conEntregas(1);
    const otro = await s.webhooks.crear(a, nuevo('https://otro.ejemplo.mx/x'));
    const evt = await registrarEvento();
    await s.m.despachador.despacharPendientes();
    const delEvento = s.m.despachador.iniciadas.filter((e) => e.evento_id === evt);
    expect(delEvento.map((e) => e.webhook_id).sort()).toEqual([w.id, otro.id].sort());
    const ids = (l: { datos: { id: string }[] }) => l.datos.map((e) => e.id);
    const nuevas = (x: string[]) => [...x].sort().reverse();

    const todas = await s.webhooks.listarEntregas(a, {}, { limite: 10 });
    expect(ids(todas)).toEqual(
      nuevas([entregada.id, ...pendientes.map((e) => e.id), ...delEvento.map((e) => e.id)]),
    );
    const pendientesDeW = await s.webhooks.listarEntregas(
      a,
      { estado: 'pendiente', webhook: w.id },
      { limite: 10 },
    );
    expect(ids(pendientesDeW)).toEqual(
      nuevas([
        ...pendientes.map((e) => e.id),
        ...delEvento.filter((e) => e.webhook_id === w.id).map((e) => e.id),
      ]),
    );
    expect(ids(await s.webhooks.listarEntregas(a, { evento: evt }, { limite: 10 }))).toEqual(
      nuevas(delEvento.map((e) => e.id)),
    );
    expect(ids(await s.webhooks.listarEntregas(a, { estado: 'entregada' }, { limite: 10 }))).toEqual([
      entregada.id,
    ]);
    expect((await s.webhooks.listarEntregas(alcance('cta_b'), {}, { limite: 10 })).datos).toEqual([]);
    const sinWebhook = await errorNegocio(s.webhooks.listarEntregas(a, { webhook: 'wh_no' }, { limite: 1 }));
    expect([sinWebhook.codigo, sinWebhook.parametro]).toEqual(['webhook_no_encontrado', 'webhook']);
    const sinEvento = await errorNegocio(s.webhooks.listarEntregas(a, { evento: 'evt_no' }, { limite: 1 }));
    expect([sinEvento.codigo, sinEvento.parametro]).toEqual(['evento_no_encontrado', 'evento']);
  });
});
