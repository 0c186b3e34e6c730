import { clienteHttp, type ClienteHttp } from '../support/cliente-http';
import { generarCsd } from '../support/certificados';
import { CLIENTE, habilitarLive, llaveLiveDirecta, ORGANIZACION, PRODUCTO } from '../support/cuentas';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { operaciones } from '../support/fuzz-openapi';
import { iniciarPila, type Pila } from '../support/pila';

/**
 * Isolation sweep generated from openapi.yaml (issue 13, point 6): every operation with an id in its path, called
 * with another account's key and with the owner's key of the other mode on the owner's resource, answers 404 and
 * changes nothing. A new route with an id and no factory here fails the sweep.
 */

type Modo = 'test' | 'live';

interface Duenio {
  cuentaId: string;
  http: Record<Modo, ClienteHttp>;
  org: Record<Modo, string>;
  cli: Record<Modo, string>;
  prod: Record<Modo, string>;
}

/** A resource of the owner per mode (live only where the API can make one without a live PAC or a public URL). */
type Fabrica = (d: Duenio, pila: Pila) => Promise<Partial<Record<Modo, string>>>;

const OTRO_CLIENTE = {
  rfc: 'URE180429TM6',
  nombre: 'UNIVERSIDAD ROBOTICA ESPAÑOLA',
  regimen_fiscal: '601',
  domicilio_fiscal: '86991',
  uso_cfdi: 'G03',
};
const OTRO_PRODUCTO = { ...PRODUCTO, no_identificacion: 'OTRO-01', descripcion: 'Otro servicio' };

const recursoDe = (plantilla: string) => plantilla.split('/')[2]!;
/** An organization's logo: a PNG's first bytes are all the service looks at. */
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('logo de prueba')]);

describe('aislamiento generado desde openapi.yaml: ids de otra cuenta y de otro modo', () => {
  let pila: Pila;
  let duenio: Duenio;
  let intrusa: ClienteHttp;
  let receptorUrl: string;
  const cerrar: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    pila = await iniciarPila({ programaEntregasS: [0, 2, 4, 6, 8], graciaDespachoMs: 0 });
    const { createServer } = await import('node:http');
    const servidor = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')));
    await new Promise<void>((r) => servidor.listen(0, '127.0.0.1', r));
    receptorUrl = `http://127.0.0.1:${(servidor.address() as { port: number }).port}/hook`;
    cerrar.push(() => new Promise((r) => servidor.close(() => r())));

    const a = await cuentaLista(pila);
    await habilitarLive(pila.db, a.cuentaId);
    const live = clienteHttp(pila.url, await llaveLiveDirecta(pila.db, a.cuentaId));
    const orgLive = await live.post('/v1/organizaciones', ORGANIZACION);
    expect(orgLive.status).toBe(201);
    const cliLive = await live.post('/v1/clientes', { ...CLIENTE, organizacion: orgLive.body.id });
    const prodLive = await live.post('/v1/productos', { ...PRODUCTO, organizacion: orgLive.body.id });
    duenio = {
      cuentaId: a.cuentaId,
      http: { test: a.http, live },
      org: { test: a.org, live: orgLive.body.id },
      cli: { test: a.cli, live: cliLive.body.id },
      prod: { test: a.prod, live: prodLive.body.id },
    };
    // The intruder has the same shapes of data (same RFCs), so only the scope can tell them apart.
    intrusa = (await cuentaLista(pila)).http;
  }, 120_000);

  afterAll(async () => {
    for (const c of cerrar) await c();
    await pila.detener();
  });

  const creado = (r: { status: number; body: any }, status = 201) => {
    expect(r.status).toBe(status);
    return r.body.id as string;
  };

  const webhook = async (d: Duenio) =>
    creado(
      await d.http.test.post('/v1/webhooks', { url: receptorUrl, eventos_suscritos: ['factura.creada'] }),
    );

  /** The owner's event (a draft's `factura.creada`) and its delivery to a webhook of the owner. */
  const entrega = async (d: Duenio) => {
    const wh = await webhook(d);
    const f = creado(await d.http.test.post('/v1/facturas', facturaNueva(dTest(d), { auto_timbrar: false })));
    return esperar(async () => {
      const r = await d.http.test.get(`/v1/webhooks/${wh}/entregas`);
      const e = r.body.datos.find((x: any) => x.estado !== 'pendiente' && x.evento);
      return e ? { wh, f, evt: e.evento as string, ent: e.id as string } : undefined;
    });
  };
  const dTest = (d: Duenio) => ({ org: d.org.test, prod: d.prod.test });

  const FABRICAS: Record<string, Fabrica> = {
    facturas: async (d) => ({
      test: creado(await d.http.test.post('/v1/facturas', facturaNueva(dTest(d)))),
      live: creado(
        await d.http.live.post(
          '/v1/facturas',
          facturaNueva({ org: d.org.live, prod: d.prod.live }, { auto_timbrar: false }),
        ),
      ),
    }),
    clientes: async (d) => ({
      test: creado(await d.http.test.post('/v1/clientes', { ...OTRO_CLIENTE, organizacion: d.org.test })),
      live: creado(await d.http.live.post('/v1/clientes', { ...OTRO_CLIENTE, organizacion: d.org.live })),
    }),
    productos: async (d) => ({
      test: creado(await d.http.test.post('/v1/productos', { ...OTRO_PRODUCTO, organizacion: d.org.test })),
      live: creado(await d.http.live.post('/v1/productos', { ...OTRO_PRODUCTO, organizacion: d.org.live })),
    }),
    // With a logo in each mode, so that reading, replacing or deleting it from elsewhere would show.
    organizaciones: async (d) => {
      for (const modo of ['test', 'live'] as const)
        expect(
          (await d.http[modo].put(`/v1/organizaciones/${d.org[modo]}/logo`, PNG, 'image/png')).status,
        ).toBe(200);
      return { test: d.org.test, live: d.org.live };
    },
    certificados: async (d) => {
      const prod = generarCsd({ emisor: 'produccion' });
      return {
        test: (await d.http.test.get('/v1/certificados')).body.datos[0].id,
        live: creado(
          await d.http.live.post('/v1/certificados', {
            organizacion: d.org.live,
            cer: prod.cer.toString('base64'),
            llave: prod.llave.toString('base64'),
            contrasena: prod.contrasena,
          }),
        ),
      };
    },
    pagos: async (d) => {
      const f = await d.http.test.post(
        '/v1/facturas',
        facturaNueva(dTest(d), { metodo_pago: 'PPD', forma_pago: undefined }),
      );
      expect(f.status).toBe(201);
      const pago = await d.http.test.post('/v1/pagos', {
        organizacion: d.org.test,
        fecha_pago: new Date().toISOString(),
        forma_pago: '03',
        monto: '10.00',
        facturas_pagadas: [{ factura: f.body.id, imp_pagado: '10.00' }],
      });
      return { test: creado(pago) };
    },
    webhooks: async (d) => ({ test: await webhook(d) }),
    eventos: async (d) => ({ test: (await entrega(d)).evt }),
    entregas: async (d) => ({ test: (await entrega(d)).ent }),
    correos: async (d) => {
      const f = creado(await d.http.test.post('/v1/facturas', facturaNueva(dTest(d))));
      const r = await d.http.test.post(`/v1/facturas/${f}/correo`, { destinatarios: ['duenio@ejemplo.mx'] });
      expect(r.status).toBe(202);
      return { test: r.body.id as string };
    },
    // A receipt needs no PAC nor CSD: one in each mode.
    recibos: async (d) => {
      const recibo = (org: string, prod: string) => ({
        organizacion: org,
        forma_pago: '01',
        conceptos: [{ producto: prod, cantidad: 1 }],
      });
      return {
        test: creado(await d.http.test.post('/v1/recibos', recibo(d.org.test, d.prod.test))),
        live: creado(await d.http.live.post('/v1/recibos', recibo(d.org.live, d.prod.live))),
      };
    },
    llaves_api: async (d, p) => {
      // A live key of its own: if a test key could revoke it, the owner's working live key survives.
      await llaveLiveDirecta(p.db, d.cuentaId);
      const live = await p
        .db('llaves_api')
        .where({ cuenta_id: d.cuentaId, modo: 'live' })
        .orderBy('id', 'desc')
        .first();
      return {
        test: creado(await d.http.test.post('/v1/llaves_api', { nombre: 'de A', modo: 'test' })),
        live: live.id as string,
      };
    },
  };

  /** A body the operation accepts, so that a 404 cannot be a 400 in disguise. */
  const CUERPOS: Record<string, (d: Duenio) => Promise<unknown> | unknown> = {
    cancelarFactura: () => ({ motivo: '02' }),
    actualizarCliente: () => ({ nombre: 'CAMBIADO POR OTRA CUENTA' }),
    actualizarProducto: () => ({ descripcion: 'Cambiado por otra cuenta' }),
    actualizarOrganizacion: () => ({ nombre: 'CAMBIADO POR OTRA CUENTA' }),
    actualizarCertificado: () => ({ activo: false }),
    actualizarWebhook: () => ({ activo: false }),
    rotarSecretoWebhook: () => ({}),
    enviarCorreoFactura: () => ({ destinatarios: ['intruso@ejemplo.mx'] }),
    facturarRecibo: () => OTRO_CLIENTE,
    reenviarEvento: async (d) => ({ evento: (await d.http.test.get('/v1/eventos')).body.datos[0].id }),
    subirLogoOrganizacion: () => PNG,
  };

  /** What the owner sees of a resource: must be the same after the intruders tried. */
  async function foto(d: Duenio, modo: Modo, recurso: string, id: string) {
    if (recurso === 'llaves_api') {
      const r = await d.http[modo].get('/v1/llaves_api?paginacion.limite=100');
      return r.body.datos.find((l: any) => l.id === id);
    }
    const r = await d.http[modo].get(`/v1/${recurso}/${id}`);
    expect(r.status).toBe(200);
    if (recurso === 'organizaciones') {
      const logo = await d.http[modo].binario(`/v1/organizaciones/${id}/logo`);
      return { ...r.body, logo: [logo.status, logo.body.toString('base64')] };
    }
    if (recurso === 'webhooks') {
      const entregas = await d.http.test.get(`/v1/webhooks/${id}/entregas`);
      return { ...r.body, entregas: entregas.body.datos.length };
    }
    if (recurso === 'eventos') {
      const entregas = await d.http.test.get(`/v1/eventos/${id}/entregas`);
      return { ...r.body, entregas: entregas.body.datos.length };
    }
    if (recurso === 'entregas')
      return { id: r.body.id, estado: r.body.estado, intentos: r.body.intentos.length };
    // Its attempts go on meanwhile (this stack's SMTP server is a closed port): what an intruder could change.
    if (recurso === 'correos')
      return { id: r.body.id, factura: r.body.factura, destinatarios: r.body.destinatarios };
    return r.body;
  }

  it('toda operación con id en la ruta tiene fábrica y cuerpo de prueba', () => {
    const conId = operaciones().filter((o) => o.parametros.some((p) => p.en === 'path'));
    expect(conId.length).toBeGreaterThan(20);
    expect(
      conId.filter((o) => !FABRICAS[recursoDe(o.plantilla)]).map((o) => `${o.metodo} ${o.plantilla}`),
    ).toEqual([]);
    expect(
      conId
        .filter((o) => Object.keys(o.cuerpos).length && !CUERPOS[o.id])
        .map((o) => `${o.id} ${o.plantilla}`),
    ).toEqual([]);
  });

  it('con la llave de otra cuenta o del otro modo, toda operación con id responde 404 y no cambia nada', async () => {
    const conId = operaciones().filter((o) => o.parametros.some((p) => p.en === 'path'));
    const porRecurso = new Map<string, typeof conId>();
    for (const o of conId)
      porRecurso.set(recursoDe(o.plantilla), [...(porRecurso.get(recursoDe(o.plantilla)) ?? []), o]);
    const fallas: string[] = [];
    let intentos = 0;
    for (const [recurso, ops] of porRecurso) {
      const ids = await FABRICAS[recurso]!(duenio, pila);
      for (const [modo, id] of Object.entries(ids) as [Modo, string | undefined][]) {
        if (!id) continue;
        const antes = await foto(duenio, modo, recurso, id);
        const otroModo: Modo = modo === 'test' ? 'live' : 'test';
        const intrusos: [string, ClienteHttp][] = [
          ['otra cuenta', intrusa],
          [`la misma cuenta en ${otroModo}`, duenio.http[otroModo]],
        ];
        // Keys belong to the account: only a key of the other mode must not reach them (a live key from test).
        if (recurso === 'llaves_api' && modo === 'test') intrusos.pop();
        for (const o of ops) {
          const ruta = o.plantilla.replace(/\{[^}]+\}/g, id);
          const cuerpo = CUERPOS[o.id] ? await CUERPOS[o.id]!(duenio) : undefined;
          for (const [quien, http] of intrusos) {
            intentos += 1;
            const r =
              o.metodo === 'GET'
                ? await http.get(ruta)
                : o.metodo === 'DELETE'
                  ? await http.delete(ruta)
                  : o.metodo === 'PATCH'
                    ? await http.patch(ruta, cuerpo)
                    : o.metodo === 'PUT'
                      ? await http.put(ruta, cuerpo as Uint8Array, Object.keys(o.cuerpos)[0]!)
                      : await http.post(ruta, cuerpo ?? {});
            if (r.status !== 404)
              fallas.push(
                `${o.metodo} ${ruta} (${modo}) con ${quien}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`,
              );
          }
        }
        const despues = await foto(duenio, modo, recurso, id);
        if (JSON.stringify(despues) !== JSON.stringify(antes))
          fallas.push(`${recurso} ${id} (${modo}) cambió`);
      }
    }
    process.stderr.write(
      `\naislamiento operaciones=${conId.length} intentos=${intentos} fallas=${fallas.length}\n`,
    );
    expect(intentos).toBeGreaterThan(50);
    expect(fallas).toEqual([]);
  }, 300_000);

  it('el resumen de facturación con la organización del dueño, desde otra cuenta o del otro modo, responde 404', async () => {
    const intrusos: [string, ClienteHttp, Modo][] = [
      ['otra cuenta', intrusa, 'test'],
      ['la misma cuenta en live', duenio.http.live, 'test'],
      ['la misma cuenta en test', duenio.http.test, 'live'],
    ];
    for (const [quien, http, ajeno] of intrusos) {
      const r = await http.get(`/v1/resumen?organizacion=${duenio.org[ajeno]}`);
      expect([quien, r.status, r.body.error?.codigo]).toEqual([quien, 404, 'organizacion_no_encontrada']);
    }
    expect((await duenio.http.test.get(`/v1/resumen?organizacion=${duenio.org.test}`)).status).toBe(200);
  });

  it('las listas y sus filtros con la llave de otra cuenta o del otro modo no muestran ids del dueño', async () => {
    const listas = operaciones().filter(
      (o) =>
        o.metodo === 'GET' &&
        !o.parametros.some((p) => p.en === 'path') &&
        o.parametros.some((p) => p.nombre === 'paginacion.limite') &&
        o.plantilla.startsWith('/v1/') &&
        !o.plantilla.startsWith('/v1/catalogos'),
    );
    // Everything the owner can list, per mode.
    const propios: Record<Modo, Set<string>> = { test: new Set(), live: new Set() };
    for (const o of listas)
      for (const modo of ['test', 'live'] as Modo[]) {
        const r = await duenio.http[modo].get(`${o.plantilla}?paginacion.limite=100`);
        if (Array.isArray(r.body?.datos)) for (const x of r.body.datos) propios[modo].add(x.id);
      }
    expect(propios.test.size).toBeGreaterThan(10);
    expect(propios.live.size).toBeGreaterThan(3);
    const fallas: string[] = [];
    let consultadas = 0;
    // Who asks, and which of the owner's ids (the mode) it must never see.
    const intrusos: [string, ClienteHttp, Modo][] = [
      ['otra cuenta', intrusa, 'test'],
      ['la misma cuenta en live', duenio.http.live, 'test'],
      ['la misma cuenta en test', duenio.http.test, 'live'],
    ];
    // The filter naming one of the owner's resources of the mode the intruder must not see (none: not tried).
    const PREFIJOS: Record<string, string> = { factura: 'fac_', pago: 'pago_' };
    const valorFiltro = (nombre: string, modo: Modo): string | undefined => {
      if (nombre === 'organizacion') return duenio.org[modo];
      if (nombre === 'cliente') return duenio.cli[modo];
      return [...propios[modo]].find((id) => id.startsWith(PREFIJOS[nombre]!));
    };
    for (const o of listas) {
      const filtros = o.parametros.filter(
        (p) => p.en === 'query' && ['organizacion', 'cliente', 'factura', 'pago'].includes(p.nombre),
      );
      for (const [quien, http, ajeno] of intrusos) {
        // Keys belong to the account: its two modes share them.
        if (o.plantilla === '/v1/llaves_api' && quien !== 'otra cuenta') continue;
        const consultas = [
          'paginacion.limite=100',
          ...filtros
            .map((p) => [p.nombre, valorFiltro(p.nombre, ajeno)])
            .filter(([, v]) => v !== undefined)
            .map(([n, v]) => `${n}=${v}`),
        ];
        for (const q of consultas) {
          const r = await http.get(`${o.plantilla}?${q}`);
          consultadas += 1;
          const vistos: string[] = Array.isArray(r.body?.datos) ? r.body.datos.map((x: any) => x.id) : [];
          const fuga = vistos.filter((id) => propios[ajeno].has(id));
          if (fuga.length) fallas.push(`${o.plantilla}?${q} con ${quien}: ve ${fuga.join(', ')}`);
          // A filter naming someone else's organization, client, invoice or payment is a missing one: 404.
          if (q !== 'paginacion.limite=100' && r.status !== 404)
            fallas.push(`${o.plantilla}?${q} con ${quien}: ${r.status} (${vistos.length} elementos)`);
        }
      }
    }
    process.stderr.write(
      `\naislamiento listas=${listas.length} consultas=${consultadas} fallas=${fallas.length}\n`,
    );
    expect(fallas).toEqual([]);
  }, 120_000);
});
