import { createPrivateKey, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { Writable } from 'node:stream';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { crearLogger } from '../../log/logger';
import { generarCsd } from '../support/certificados';
import { CLIENTE, habilitarLive, nuevaCuenta, ORGANIZACION, PRODUCTO } from '../support/cuentas';
import { esperar, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';
import { receptorWebhooks } from '../support/receptor-webhooks';

/**
 * Secrets audit (issue 13, point 7): a full run of the real stack, then every place a secret could end up
 * (log lines, process output, answers after the one that created the secret, every table, every decoded
 * payload of every Temporal history, the deliveries a receiver got) searched for every secret in its plain,
 * base64, hex and URL-encoded forms.
 */

/** Where text or bytes were seen; `excluye` names the secrets this source may legitimately carry. */
interface Fuente {
  nombre: string;
  datos: Buffer;
  excluye?: Set<string>;
}

interface Secreto {
  nombre: string;
  formas: { forma: string; aguja: Buffer }[];
}

// --- needles ------------------------------------------------------------------------------------

/**
 * The base64 characters that depend only on `b` when it sits at byte offset `k` (0–2) of a longer base64
 * stream: finds the bytes inside a bigger encoded blob, not only encoded on their own.
 */
function base64Alineado(b: Buffer, k: number): string {
  const texto = Buffer.concat([Buffer.alloc(k), b, Buffer.alloc(3)]).toString('base64');
  const desde = Math.ceil((8 * k) / 6);
  const hasta = Math.floor((8 * (k + b.length)) / 6);
  return texto.slice(desde, hasta);
}

/** Plain, base64 (standard and URL alphabet, three alignments), hex (both cases), URL-encoded. */
function formasDe(nombre: string, valor: Buffer): Secreto['formas'] {
  const formas = new Map<string, Buffer>();
  const agregar = (forma: string, aguja: string | Buffer) => {
    const b = typeof aguja === 'string' ? Buffer.from(aguja, 'latin1') : aguja;
    // Shorter needles would match by chance in megabytes of catalog rows.
    if (b.length >= 8 && ![...formas.values()].some((x) => x.equals(b))) formas.set(forma, b);
  };
  agregar('plano', valor);
  const standalone = valor.toString('base64');
  agregar('base64', standalone);
  agregar('base64url', valor.toString('base64url'));
  for (const k of [0, 1, 2]) {
    const b64 = base64Alineado(valor, k);
    agregar(`base64+${k}`, b64);
    agregar(`base64url+${k}`, b64.replace(/\+/g, '-').replace(/\//g, '_'));
    agregar(`base64+${k} url-codificado`, encodeURIComponent(b64));
  }
  agregar('base64 url-codificado', encodeURIComponent(standalone));
  agregar('hex', valor.toString('hex'));
  agregar('HEX', valor.toString('hex').toUpperCase());
  const texto = valor.toString('utf8');
  if (Buffer.from(texto, 'utf8').equals(valor)) {
    agregar('url-codificado', encodeURIComponent(texto));
    agregar('formulario', new URLSearchParams({ x: texto }).toString().slice(2));
    agregar('json', JSON.stringify(texto).slice(1, -1));
  }
  if (formas.size === 0) throw new Error(`${nombre}: secreto demasiado corto para buscarlo`);
  return [...formas].map(([forma, aguja]) => ({ forma, aguja }));
}

const secretoTexto = (nombre: string, valor: string): Secreto => ({
  nombre,
  formas: formasDe(nombre, Buffer.from(valor, 'utf8')),
});

/**
 * Key material: the whole blob, plus 48-byte windows at multiples of 48 (each one's base64 is exactly a PEM
 * line), so a partial copy or a PEM with line breaks is found too. Windows found in `publico` (the
 * certificate: a private key's DER starts with the public modulus) are left out.
 */
function secretoBinario(nombre: string, valor: Buffer, publico: Buffer[] = []): Secreto[] {
  const r: Secreto[] = [{ nombre, formas: formasDe(nombre, valor) }];
  const ventanas = Array.from({ length: Math.floor(valor.length / 48) }, (_, i) => i).filter(
    (i) => !publico.some((p) => p.includes(valor.subarray(i * 48, i * 48 + 48))),
  );
  const elegidas = new Set(
    [1, Math.floor(ventanas.length / 2), ventanas.length - 1]
      .map((i) => ventanas[i])
      .filter((i) => i !== undefined),
  );
  for (const i of elegidas) {
    const v = valor.subarray(i * 48, i * 48 + 48);
    r.push({ nombre: `${nombre} [bytes ${i * 48}–${i * 48 + 47}]`, formas: formasDe(nombre, v) });
  }
  return r;
}

// --- sources ------------------------------------------------------------------------------------

/** Payloads decoded so far by `volcar`. */
let cargasDecodificadas = 0;

/** Every string and byte array of a value, and every Temporal payload decoded, depth first. */
function volcar(v: unknown, acc: Buffer[], vistos = new Set<unknown>()): Buffer[] {
  if (v === null || v === undefined) return acc;
  if (v instanceof Uint8Array) acc.push(Buffer.from(v));
  else if (typeof v === 'string') acc.push(Buffer.from(v, 'utf8'));
  else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean')
    acc.push(Buffer.from(String(v)));
  else if (typeof v === 'object') {
    if (vistos.has(v)) return acc;
    vistos.add(v);
    const o = v as Record<string, unknown>;
    if (o.metadata && typeof o.metadata === 'object' && 'encoding' in (o.metadata as object)) {
      try {
        const decodificado = defaultPayloadConverter.fromPayload(o as Payload);
        cargasDecodificadas++;
        acc.push(Buffer.from(JSON.stringify(decodificado, reemplazoBytes) ?? 'undefined', 'utf8'));
        volcar(decodificado, acc, vistos);
      } catch (e) {
        acc.push(Buffer.from(`[carga no decodificable: ${(e as Error).message}]`));
      }
    }
    // Long values of protobufjs: their fields are numbers, walked as such.
    for (const x of Array.isArray(v) ? v : Object.values(o)) volcar(x, acc, vistos);
  }
  return acc;
}

const reemplazoBytes = (_k: string, x: unknown) =>
  x instanceof Uint8Array ? Buffer.from(x).toString('latin1') : x;

const unir = (partes: Buffer[]) => Buffer.concat(partes.flatMap((p) => [p, Buffer.from('\n')]));

/** A row as bytes: binary columns raw, the rest as text. */
function fila(f: Record<string, unknown>): Buffer {
  return unir(
    Object.entries(f).map(([k, x]) =>
      Buffer.concat([
        Buffer.from(`${k}=`),
        Buffer.isBuffer(x)
          ? x
          : Buffer.from(
              x instanceof Date ? x.toISOString() : typeof x === 'object' ? JSON.stringify(x) : String(x),
            ),
      ]),
    ),
  );
}

interface Respuesta {
  status: number;
  body: any;
}

describe('auditoría de secretos: ningún secreto en registros, respuestas, tablas ni historias de Temporal', () => {
  let pila: Pila;
  const lineasLog: Buffer[] = [];
  const salidaProceso: Buffer[] = [];
  const respuestas: Fuente[] = [];
  const secretos: Secreto[] = [];
  let fuentes: Fuente[] = [];
  const conteo = { tablas: 0, filas: 0, historias: 0, eventosHistoria: 0, entregas: 0, respuestas: 0 };

  /** Real HTTP like `clienteHttp`, keeping every answer's status, headers and bytes. */
  function cliente(llave: string) {
    const autorizacion = `Basic ${Buffer.from(`${llave}:`).toString('base64')}`;
    async function pedir(
      metodo: string,
      ruta: string,
      cuerpo?: unknown,
      extra: Record<string, string> = {},
    ): Promise<Respuesta> {
      const formulario = cuerpo instanceof FormData;
      const r = await fetch(`${pila.url}${ruta}`, {
        method: metodo,
        headers: {
          authorization: autorizacion,
          ...(cuerpo === undefined || formulario ? {} : { 'content-type': 'application/json' }),
          ...extra,
        },
        body: cuerpo === undefined ? undefined : formulario ? cuerpo : JSON.stringify(cuerpo),
      });
      const bytes = Buffer.from(await r.arrayBuffer());
      const encabezados: string[] = [];
      r.headers.forEach((v, k) => encabezados.push(`${k}: ${v}`));
      respuestas.push({
        nombre: `respuesta ${respuestas.length + 1}: ${metodo} ${ruta} → ${r.status}`,
        datos: Buffer.concat([Buffer.from(`${encabezados.join('\n')}\n\n`), bytes]),
      });
      const json = (r.headers.get('content-type') ?? '').includes('application/json');
      return { status: r.status, body: json && bytes.length ? JSON.parse(bytes.toString('utf8')) : bytes };
    }
    return {
      get: (ruta: string) => pedir('GET', ruta),
      post: (ruta: string, cuerpo: unknown = {}, extra?: Record<string, string>) =>
        pedir('POST', ruta, cuerpo, extra),
      delete: (ruta: string) => pedir('DELETE', ruta),
    };
  }

  /** Registers a secret handed out by the last response, which (alone) may carry it. */
  function entregado(nombre: string, valor: string) {
    secretos.push(secretoTexto(nombre, valor));
    const ultima = respuestas[respuestas.length - 1]!;
    (ultima.excluye ??= new Set()).add(nombre);
  }

  beforeAll(async () => {
    const destino = new Writable({
      write(trozo: Buffer, _codificacion, listo) {
        lineasLog.push(Buffer.from(trozo));
        listo();
      },
    });
    // Process output too: the Temporal SDK and any stray console call write there.
    const escribirOut = process.stdout.write.bind(process.stdout);
    const escribirErr = process.stderr.write.bind(process.stderr);
    const capturar =
      (original: typeof escribirOut) =>
      (trozo: string | Uint8Array, ...resto: unknown[]): boolean => {
        salidaProceso.push(Buffer.from(trozo as string));
        return (original as (...a: unknown[]) => boolean)(trozo, ...resto);
      };
    process.stdout.write = capturar(escribirOut) as typeof process.stdout.write;
    process.stderr.write = capturar(escribirErr) as typeof process.stderr.write;
    const r = await receptorWebhooks();
    try {
      pila = await iniciarPila({
        logger: crearLogger('auditoria', 'trace', destino),
        programaEntregasS: [0, 2, 4, 6, 8],
        graciaDespachoMs: 0,
        cancelacionSondeoMs: 300,
      });
      await flujoCompleto(r.url);
      await esperar(async () => (r.recibidas.length >= 4 ? true : undefined), 60_000);
      await recolectar(r.recibidas);
    } finally {
      process.stdout.write = escribirOut;
      process.stderr.write = escribirErr;
      await r.cerrar();
    }
  }, 240_000);

  afterAll(async () => {
    await pila?.detener();
  });

  async function flujoCompleto(urlReceptor: string) {
    const config = pila.config;
    secretos.push(...secretoBinario('clave maestra', config.claveMaestra.clave));
    for (const [nombre, valor] of [
      ['contraseña del PAC sandbox', config.pac.sandbox.contrasena],
      ['contraseña del PAC live', config.pac.live?.contrasena],
    ] as const)
      if (valor) secretos.push(secretoTexto(nombre, valor));

    // Account: its first key comes from the operator path (never in a response).
    const cuenta = await nuevaCuenta(pila.db, pila.url, 'Cuenta auditada');
    secretos.push(secretoTexto('llave API test inicial', cuenta.secreto));
    const http = cliente(cuenta.secreto);

    const otra = await http.post('/v1/llaves_api', { nombre: 'segunda', modo: 'test' });
    expect(otra.status).toBe(201);
    entregado('llave API test creada por API', otra.body.secreto);
    const http2 = cliente(otra.body.secreto);
    expect((await http2.get('/v1/cuenta')).status).toBe(200);
    // A test key asking for a live key: whatever the rule answers, no secret may leak from it.
    const vedada = await http.post('/v1/llaves_api', { nombre: 'live desde test', modo: 'live' });
    if (vedada.body?.secreto) entregado('llave API live pedida con llave test', vedada.body.secreto);
    const revocada = await http.delete(`/v1/llaves_api/${otra.body.id}`);
    expect(revocada.status).toBe(200);
    expect((await http2.get('/v1/cuenta')).status).toBe(401);

    // The CSD: a key pair of this run and a random password, so a match cannot be a coincidence.
    const contrasena = `Aud!t ${randomBytes(9).toString('base64')}&=/`;
    const csd = generarCsd({
      rfc: ORGANIZACION.rfc,
      nombre: ORGANIZACION.nombre,
      contrasena,
      llave: 9_013,
    });
    secretos.push(secretoTexto('contraseña del CSD', contrasena));
    secretos.push(...secretoBinario('.key del CSD (DER cifrado)', csd.llave));
    const privada = createPrivateKey({
      key: csd.llave,
      format: 'der',
      type: 'pkcs8',
      passphrase: contrasena,
    });
    secretos.push(
      ...secretoBinario(
        'llave privada descifrada (PKCS#8 DER)',
        privada.export({ format: 'der', type: 'pkcs8' }),
        [csd.cer],
      ),
      ...secretoBinario(
        'llave privada descifrada (PKCS#1 DER)',
        privada.export({ format: 'der', type: 'pkcs1' }),
        [csd.cer],
      ),
    );
    const jwk = privada.export({ format: 'jwk' });
    for (const campo of ['d', 'p', 'q'] as const)
      secretos.push(...secretoBinario(`llave privada: ${campo}`, Buffer.from(jwk[campo]!, 'base64url')));

    const org = await http.post('/v1/organizaciones', ORGANIZACION);
    expect(org.status).toBe(201);
    // A wrong password first (its value must not be logged either), then a truncated multipart upload.
    const erronea = `Err0nea ${randomBytes(9).toString('hex')}`;
    secretos.push(secretoTexto('contraseña errónea del CSD', erronea));
    const subida = {
      organizacion: org.body.id,
      cer: csd.cer.toString('base64'),
      llave: csd.llave.toString('base64'),
    };
    expect((await http.post('/v1/certificados', { ...subida, contrasena: erronea })).status).toBe(422);
    const truncada = await fetch(`${pila.url}/v1/certificados`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${cuenta.secreto}:`).toString('base64')}`,
        'content-type': 'multipart/form-data; boundary=XyZ',
      },
      body: `--XyZ\r\nContent-Disposition: form-data; name="contrasena"\r\n\r\n${contrasena}\r\n--XyZ\r\nContent-Disposition: form-data; name="llave"; filename="a.key"\r\n\r\n${csd.llave.toString('latin1').slice(0, 300)}`,
    });
    respuestas.push({
      nombre: `respuesta ${respuestas.length + 1}: POST /v1/certificados (multipart truncado) → ${truncada.status}`,
      datos: Buffer.from(await truncada.arrayBuffer()),
    });
    expect(truncada.status).toBeLessThan(500);
    const formulario = new FormData();
    formulario.set('organizacion', org.body.id);
    formulario.set('contrasena', contrasena);
    formulario.set('cer', new Blob([new Uint8Array(csd.cer)]), 'csd.cer');
    formulario.set('llave', new Blob([new Uint8Array(csd.llave)]), 'csd.key');
    const cert = await http.post('/v1/certificados', formulario);
    expect(cert.status).toBe(201);
    // The same CSD again as JSON: refused as a duplicate, after its password was checked.
    expect((await http.post('/v1/certificados', { ...subida, contrasena })).status).toBe(409);

    const cli = await http.post('/v1/clientes', { ...CLIENTE, organizacion: org.body.id });
    const prod = await http.post('/v1/productos', { ...PRODUCTO, organizacion: org.body.id });
    expect([cli.status, prod.status]).toEqual([201, 201]);
    const c = { org: org.body.id as string, prod: prod.body.id as string };

    // The webhook (created with an idempotency key: the stored answer carries the secret) and a rotation.
    const alta = {
      url: urlReceptor,
      eventos_suscritos: ['factura.creada', 'factura.timbrada', 'factura.cancelada', 'pago.creado'],
    };
    const clave = { 'clave-idempotencia': `alta-webhook-${randomBytes(4).toString('hex')}` };
    const wh = await http.post('/v1/webhooks', alta, clave);
    expect(wh.status).toBe(201);
    entregado('secreto del webhook (alta)', wh.body.secreto_firma);
    const repetida = await http.post('/v1/webhooks', alta, clave);
    expect(repetida.body.secreto_firma).toBe(wh.body.secreto_firma);
    respuestas[respuestas.length - 1]!.excluye = new Set(['secreto del webhook (alta)']);

    // Invoices: stamped, a draft stamped later, one cancelled; a PPD invoice and its payment; the PDF and XML.
    const timbrada = await http.post('/v1/facturas', facturaNueva(c));
    expect(timbrada.status).toBe(201);
    const borrador = await http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
    expect(borrador.status).toBe(201);
    expect((await http.post(`/v1/facturas/${borrador.body.id}/timbrar`)).status).toBeLessThan(300);
    const cancelada = await http.post(`/v1/facturas/${timbrada.body.id}/cancelar`, { motivo: '02' });
    expect(cancelada.status).toBeLessThan(300);
    const ppd = await http.post(
      '/v1/facturas',
      facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined }),
    );
    expect(ppd.status).toBe(201);
    const pago = await http.post('/v1/pagos', {
      organizacion: c.org,
      fecha_pago: new Date().toISOString(),
      forma_pago: '03',
      monto: '100.00',
      facturas_pagadas: [{ factura: ppd.body.id, imp_pagado: '100.00' }],
    });
    expect(pago.status).toBe(201);
    expect((await http.get(`/v1/facturas/${borrador.body.id}/pdf`)).status).toBe(200);
    expect((await http.get(`/v1/facturas/${ppd.body.id}/xml`)).status).toBe(200);

    const rotado = await http.post(`/v1/webhooks/${wh.body.id}/rotar_secreto`);
    expect(rotado.status).toBe(200);
    expect(rotado.body.secreto_firma).not.toBe(wh.body.secreto_firma);
    entregado('secreto del webhook (rotado)', rotado.body.secreto_firma);
    // One more event after the rotation: its delivery is signed with both secrets.
    expect((await http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }))).status).toBe(201);

    // Live mode: unlocked, then a live key from the operator command's service (the way the rule allows).
    await habilitarLive(pila.db, cuenta.cuentaId);
    const live = await pila.servicios.llaves.crearPorOperador(cuenta.cuentaId, {
      nombre: 'live',
      modo: 'live',
    });
    secretos.push(secretoTexto('llave API live', live.secreto));
    const httpLive = cliente(live.secreto);
    expect((await httpLive.get('/v1/cuenta')).status).toBe(200);
    const liveApi = await httpLive.post('/v1/llaves_api', { nombre: 'live por API', modo: 'live' });
    expect(liveApi.status).toBe(201);
    entregado('llave API live creada por API', liveApi.body.secreto);
    expect((await cliente(liveApi.body.secreto).get('/v1/facturas')).status).toBe(200);

    // Reads that show each resource again after its creation.
    for (const ruta of [
      '/v1/cuenta',
      '/v1/llaves_api',
      `/v1/webhooks/${wh.body.id}`,
      '/v1/webhooks',
      `/v1/certificados/${cert.body.id}`,
      '/v1/certificados',
      `/v1/facturas/${timbrada.body.id}`,
      `/v1/pagos/${pago.body.id}`,
      '/v1/eventos',
    ])
      expect((await http.get(ruta)).status).toBe(200);
    await esperar(async () => {
      const f = await http.get(`/v1/facturas/${timbrada.body.id}`);
      return f.body.estado === 'cancelada' ? true : undefined;
    }, 30_000);
    const entregas = await esperar(async () => {
      const l = await http.get(`/v1/webhooks/${wh.body.id}/entregas?paginacion.limite=100`);
      const datos = l.body.datos as { estado: string }[];
      return datos.length >= 4 && datos.every((e) => e.estado === 'entregada') ? datos : undefined;
    }, 60_000);
    expect(entregas.length).toBeGreaterThanOrEqual(4);
  }

  async function recolectar(recibidas: { encabezados: IncomingHttpHeaders; cuerpo: Buffer }[]) {
    // Every table of the test database, binary columns included.
    const [tablas] = (await pila.db.raw('SHOW TABLES')) as [Record<string, string>[]];
    const fuentesTablas: Fuente[] = [];
    for (const t of tablas.map((x) => Object.values(x)[0]!)) {
      const filas = (await pila.db(t).select('*')) as Record<string, unknown>[];
      conteo.tablas += 1;
      conteo.filas += filas.length;
      fuentesTablas.push({ nombre: `tabla ${t}`, datos: unir(filas.map(fila)) });
    }

    // Every workflow of the namespace, every event of every history, payloads decoded.
    const fuentesHistorias: Fuente[] = [];
    for await (const w of pila.cliente.workflow.list()) {
      const historia = await pila.cliente.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      conteo.historias += 1;
      conteo.eventosHistoria += historia.events?.length ?? 0;
      fuentesHistorias.push({
        nombre: `historia ${w.workflowId} (${w.runId})`,
        datos: unir(volcar(historia, [])),
      });
    }
    expect(conteo.historias).toBeGreaterThan(0);
    expect(cargasDecodificadas).toBeGreaterThan(conteo.historias);

    conteo.entregas = recibidas.length;
    conteo.respuestas = respuestas.length;
    const temporalLog = process.env.TEST_TEMPORAL_LOG;
    fuentes = [
      { nombre: 'registro (todas las líneas)', datos: Buffer.concat(lineasLog) },
      { nombre: 'salida del proceso', datos: Buffer.concat(salidaProceso) },
      ...(temporalLog
        ? [{ nombre: 'registro del servidor Temporal', datos: readFileSync(temporalLog) }]
        : []),
      ...respuestas,
      ...fuentesTablas,
      ...fuentesHistorias,
      ...recibidas.map((x, i) => ({
        nombre: `entrega recibida ${i + 1}`,
        datos: Buffer.concat([Buffer.from(JSON.stringify(x.encabezados)), x.cuerpo]),
      })),
    ];
  }

  /** Every (source, secret, form) where the secret shows up, skipping the answers that created it. */
  function coincidencias(filtro: (f: Fuente) => boolean): string[] {
    const r: string[] = [];
    for (const f of fuentes.filter(filtro))
      for (const s of secretos) {
        if (f.excluye?.has(s.nombre)) continue;
        const hallada = s.formas.find((x) => f.datos.includes(x.aguja));
        if (hallada) r.push(`${s.nombre} (${hallada.forma}) en ${f.nombre}`);
      }
    return r;
  }

  it('la búsqueda encuentra cada secreto entregado en su respuesta de creación (control positivo)', () => {
    const creaciones = respuestas.filter((f) => f.excluye);
    expect(creaciones.length).toBeGreaterThanOrEqual(4);
    for (const f of creaciones)
      for (const nombre of f.excluye!) {
        const s = secretos.find((x) => x.nombre === nombre)!;
        expect(s.formas.some((x) => f.datos.includes(x.aguja))).toBe(true);
      }
    // And the forms reach into a longer blob: a window of the .key is found inside its base64.
    const ventana = secretos.find((s) => s.nombre.startsWith('.key del CSD (DER cifrado) [bytes'))!;
    const csdBase64 = Buffer.from(
      secretos
        .find((s) => s.nombre === '.key del CSD (DER cifrado)')!
        .formas.find((x) => x.forma === 'base64')!.aguja,
    );
    expect(ventana.formas.some((x) => csdBase64.includes(x.aguja))).toBe(true);
  });

  it('ningún secreto en el registro ni en la salida del proceso', () => {
    expect(lineasLog.length).toBeGreaterThan(10);
    expect(
      coincidencias((f) => f.nombre.startsWith('registro') || f.nombre === 'salida del proceso'),
    ).toEqual([]);
  });

  it('ningún secreto en las respuestas fuera de la que lo creó, ni en las entregas de webhooks', () => {
    expect(coincidencias((f) => f.nombre.startsWith('respuesta') || f.nombre.startsWith('entrega'))).toEqual(
      [],
    );
  });

  it('ningún secreto en claro en ninguna tabla de la base', () => {
    expect(conteo.filas).toBeGreaterThan(0);
    expect(coincidencias((f) => f.nombre.startsWith('tabla'))).toEqual([]);
  });

  it('ningún secreto en las cargas decodificadas de las historias de Temporal', () => {
    expect(coincidencias((f) => f.nombre.startsWith('historia'))).toEqual([]);
  });

  it('resumen', () => {
    const total = coincidencias(() => true);
    const formas = secretos.reduce((n, s) => n + s.formas.length, 0);
    process.stdout.write(
      `auditoria secretos=${secretos.length} formas=${formas} lineas_log=${lineasLog.length} respuestas=${conteo.respuestas} ` +
        `tablas=${conteo.tablas} filas=${conteo.filas} historias=${conteo.historias} eventos_historia=${conteo.eventosHistoria} cargas=${cargasDecodificadas} ` +
        `entregas=${conteo.entregas}\nsecretos fuentes=${fuentes.length} coincidencias=${total.length}\n`,
    );
    expect(total).toEqual([]);
  });
});
