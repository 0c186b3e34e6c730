import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { raizProyecto } from '../config/rutas';
import { crearKnex, type Knex } from '../db/conexion';
import { api, config, cuentaLista, exigirPilaSana, facturaNueva } from './pila-http';

/**
 * `npm run campania:soak`, with `make up` running: SOAK_CLIENTES (16) concurrent clients, each with an account
 * of its own and a webhook to a receiver in this process, send mixed traffic for SOAK_DURACION_S (600 s):
 * create+stamp, create+stamp a PPD invoice and pay it, cancel, read, list, PDF and XML downloads. Counts every
 * unexpected status (any 5xx included) and every network error; when the traffic stops, waits up to
 * SOAK_ESPERA_S for every operation to settle and counts what did not (invoices stamping, cancellations in
 * progress, payments registering, deliveries pending); samples the RSS of the stack's api and worker processes
 * every SOAK_MUESTREO_S and compares the mean of the 30 s after the warm-up (SOAK_CALENTAMIENTO_S, default
 * 120 s or a fifth of the run) with the mean of the last 30 s of traffic.
 * Last line: soak errores=… atascadas=… rss_api_crecimiento_pct=… rss_worker_crecimiento_pct=…; the exit status
 * is 1 when there are errors, stuck operations, lost or duplicated records, or RSS grew SOAK_MAX_CRECIMIENTO_PCT
 * (10) % or more.
 */
const entero = (nombre: string, defecto: number) => {
  const v = Number(process.env[nombre] ?? defecto);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${nombre} debe ser un número positivo`);
  return v;
};
const DURACION_S = entero('SOAK_DURACION_S', 600);
const CLIENTES = entero('SOAK_CLIENTES', 16);
const CALENTAMIENTO_S = entero('SOAK_CALENTAMIENTO_S', Math.min(120, Math.round(DURACION_S / 5)));
const MUESTREO_S = entero('SOAK_MUESTREO_S', 5);
const ESPERA_S = entero('SOAK_ESPERA_S', 180);
const VENTANA_RSS_S = Math.min(30, Math.max(MUESTREO_S, Math.round((DURACION_S - CALENTAMIENTO_S) / 4)));
const MAX_CRECIMIENTO_PCT = entero('SOAK_MAX_CRECIMIENTO_PCT', 10);
const PLAZO_SOLICITUD_MS = 60_000;
/** How long a PDF may stay `pdf_en_proceso` before it counts as an error. */
const PLAZO_PDF_MS = 30_000;

const dormir = (ms: number) => new Promise((r) => setTimeout(r, ms));

// --- processes and RSS --------------------------------------------------------------------------

const raiz = raizProyecto();

const lineaDe = (pid: string) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
const padreDe = (pid: string) =>
  Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

/**
 * The pids of this checkout's `make up` api and worker: the children of its `dist/scripts/stack.js` (a test
 * may start workers of its own from dist/, and another clone's stack is someone else's). SOAK_PID_API and
 * SOAK_PID_WORKER override.
 */
function pidsDeLaPila(): { api: number; worker: number } {
  const pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  const leer = <T>(f: () => T) => {
    try {
      return f();
    } catch {
      return undefined; // the process ended meanwhile
    }
  };
  const pilas = pids.filter((p) =>
    leer(
      () => lineaDe(p).includes('dist/scripts/stack.js') && readlinkSync(`/proc/${p}/cwd`).startsWith(raiz),
    ),
  );
  if (pilas.length !== 1 && !(process.env.SOAK_PID_API && process.env.SOAK_PID_WORKER))
    throw new Error(`se esperaba un make up de ${raiz} y hay ${pilas.length}`);
  const hijo = (patron: RegExp) =>
    Number(pids.find((p) => leer(() => padreDe(p) === Number(pilas[0]) && patron.test(lineaDe(p)))));
  const api = Number(process.env.SOAK_PID_API ?? hijo(/dist\/api\/main\.js/));
  const worker = Number(process.env.SOAK_PID_WORKER ?? hijo(/dist\/worker\/main\.js/));
  if (!api || !worker)
    throw new Error(`no encuentro el api o el worker de make up (hijos de stack.js ${pilas[0]})`);
  return { api, worker };
}

/** VmRSS in MB, or undefined once the process is gone. */
function rssMb(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

interface Muestra {
  s: number;
  rss: Record<string, number | undefined>;
}

// --- the receiver of every account's webhook ----------------------------------------------------

function receptorWebhooks() {
  let recibidas = 0;
  const servidor: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      recibidas++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  return {
    escuchar: () =>
      new Promise<string>((r) =>
        servidor.listen(0, '127.0.0.1', () =>
          r(`http://127.0.0.1:${(servidor.address() as AddressInfo).port}/soak`),
        ),
      ),
    recibidas: () => recibidas,
    cerrar: () => {
      servidor.closeAllConnections();
      return new Promise<void>((r) => servidor.close(() => r()));
    },
  };
}

// --- traffic ------------------------------------------------------------------------------------

type Operacion = 'crear' | 'crear_ppd' | 'pagar' | 'cancelar' | 'leer' | 'listar' | 'pdf' | 'xml';

const ESPERADOS: Record<Operacion, number[]> = {
  crear: [201, 202],
  crear_ppd: [201, 202],
  pagar: [201, 202],
  cancelar: [200, 202],
  leer: [200],
  listar: [200],
  pdf: [200],
  xml: [200],
};

/** Relative weights of the mix; operations that need a stamped invoice fall back to `crear` without one. */
const MEZCLA: [Operacion, number][] = [
  ['crear', 30],
  ['crear_ppd', 8],
  ['pagar', 8],
  ['cancelar', 10],
  ['leer', 18],
  ['listar', 10],
  ['pdf', 10],
  ['xml', 6],
];
const PESO_TOTAL = MEZCLA.reduce((t, [, p]) => t + p, 0);

function elegir(): Operacion {
  let x = Math.random() * PESO_TOTAL;
  for (const [op, p] of MEZCLA) if ((x -= p) < 0) return op;
  return 'crear';
}

const alAzar = <T>(xs: T[]): T | undefined => xs[Math.floor(Math.random() * xs.length)];

class Contador {
  readonly porOperacion = new Map<string, number>();
  readonly errores = new Map<string, number>();
  readonly ejemplos: string[] = [];
  total = 0;
  erroresTotal = 0;
  /** 409 pdf_en_proceso answers, each followed by a retry (not errors). */
  pdfEnProceso = 0;
  status5xx = 0;
  /** Invoice ids the API answered for, and the UUIDs it showed. */
  readonly facturas = new Set<string>();

  cuenta(op: Operacion, status: number, detalle: string) {
    this.total++;
    this.porOperacion.set(`${op} ${status}`, (this.porOperacion.get(`${op} ${status}`) ?? 0) + 1);
    if (ESPERADOS[op].includes(status)) return;
    this.erroresTotal++;
    if (status >= 500) this.status5xx++;
    const clave = `${op} ${status || 'red'}`;
    this.errores.set(clave, (this.errores.get(clave) ?? 0) + 1);
    if (this.ejemplos.length < 20) this.ejemplos.push(`${clave}: ${detalle.slice(0, 300)}`);
  }
}

interface Cliente {
  llave: string;
  org: string;
  cuentaId: string;
  /** Every account invoices as the same RFC: a series per client keeps two CFDIs from being identical. */
  serie: string;
  /** Stamped PUE invoices that may still be cancelled. */
  cancelables: string[];
  /** Stamped PPD invoices with balance left. */
  pagables: string[];
  /** Every stamped invoice (reads, PDF, XML). */
  timbradas: string[];
  /** Answered 202: stamped later, moved into the lists above once seen stamped. */
  pendientes: { id: string; ppd: boolean }[];
}

/** The fields of the answers this script reads. */
interface Cuerpo {
  id: string;
  estado: string;
  timbrado?: { estado: string };
  factura_pago?: string;
  facturas_pagadas?: { num_parcialidad: number }[];
  error?: { codigo: string };
}

async function solicitar(
  c: Cliente,
  metodo: string,
  ruta: string,
  cuerpo?: unknown,
): Promise<{ status: number; body: Cuerpo; detalle: string; reintentarEnS?: number }> {
  try {
    const r = await fetch(`${api}${ruta}`, {
      method: metodo,
      headers: {
        authorization: `Basic ${Buffer.from(`${c.llave}:`).toString('base64')}`,
        ...(cuerpo === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: cuerpo === undefined ? undefined : JSON.stringify(cuerpo),
      signal: AbortSignal.timeout(PLAZO_SOLICITUD_MS),
    });
    const bytes = Buffer.from(await r.arrayBuffer());
    const json = (r.headers.get('content-type') ?? '').includes('application/json');
    const body = (json && bytes.length ? JSON.parse(bytes.toString('utf8')) : {}) as Cuerpo;
    return {
      status: r.status,
      body,
      detalle: json ? bytes.toString('utf8') : `${bytes.length} bytes`,
      reintentarEnS: r.headers.has('retry-after') ? Number(r.headers.get('retry-after')) : undefined,
    };
  } catch (e) {
    return { status: 0, body: {} as Cuerpo, detalle: `${metodo} ${ruta}: ${(e as Error).message}` };
  }
}

/** Where a freshly answered invoice goes (a failed stamp is counted at the end, from the database). */
function anotar(c: Cliente, f: { id: string; estado: string; timbrado?: { estado: string } }, ppd: boolean) {
  if (f.timbrado?.estado === 'fallido') return;
  if (f.estado !== 'timbrada') return void c.pendientes.push({ id: f.id, ppd });
  c.timbradas.push(f.id);
  (ppd ? c.pagables : c.cancelables).push(f.id);
}

async function paso(c: Cliente, n: Contador) {
  let op = elegir();
  // Now and then a read of a 202: once it shows stamped it joins the lists.
  const pendiente = Math.random() < 0.3 ? c.pendientes.shift() : undefined;
  if (pendiente) {
    const r = await solicitar(c, 'GET', `/v1/facturas/${pendiente.id}`);
    n.cuenta('leer', r.status, r.detalle);
    if (r.status === 200) anotar(c, r.body, pendiente.ppd);
    else c.pendientes.push(pendiente);
    return;
  }
  if (['cancelar', 'leer', 'pdf', 'xml'].includes(op) && c.timbradas.length === 0) op = 'crear';
  if (op === 'cancelar' && c.cancelables.length === 0) op = 'crear';
  if (op === 'pagar' && c.pagables.length === 0) op = 'crear_ppd';

  switch (op) {
    case 'crear':
    case 'crear_ppd': {
      const ppd = op === 'crear_ppd';
      const r = await solicitar(
        c,
        'POST',
        '/v1/facturas',
        facturaNueva(c.org, {
          serie: c.serie,
          ...(ppd ? { metodo_pago: 'PPD', forma_pago: undefined } : {}),
        }),
      );
      n.cuenta(op, r.status, r.detalle);
      if (r.status === 201 || r.status === 202) {
        n.facturas.add(r.body.id);
        anotar(c, r.body, ppd);
      }
      return;
    }
    case 'pagar': {
      // Two partial payments of 100.00 per PPD invoice, then it leaves the list.
      const id = c.pagables[0]!;
      const r = await solicitar(c, 'POST', '/v1/pagos', {
        organizacion: c.org,
        fecha_pago: new Date().toISOString(),
        forma_pago: '03',
        monto: '100.00',
        facturas_pagadas: [{ factura: id, imp_pagado: '100.00' }],
      });
      n.cuenta(op, r.status, r.detalle);
      if (r.status === 201 || r.status === 202) {
        if (r.body.factura_pago) n.facturas.add(r.body.factura_pago);
        if ((r.body.facturas_pagadas?.[0]?.num_parcialidad ?? 0) >= 2) c.pagables.shift();
      }
      return;
    }
    case 'cancelar': {
      const id = c.cancelables.splice(Math.floor(Math.random() * c.cancelables.length), 1)[0]!;
      const r = await solicitar(c, 'POST', `/v1/facturas/${id}/cancelar`, { motivo: '02' });
      n.cuenta(op, r.status, r.detalle);
      return;
    }
    case 'leer': {
      const r = await solicitar(c, 'GET', `/v1/facturas/${alAzar(c.timbradas)!}`);
      n.cuenta(op, r.status, r.detalle);
      return;
    }
    case 'listar': {
      const filtro = Math.random() < 0.5 ? '' : '&estado=timbrada';
      const r = await solicitar(c, 'GET', `/v1/facturas?paginacion.limite=20${filtro}`);
      n.cuenta(op, r.status, r.detalle);
      return;
    }
    case 'pdf': {
      // 409 pdf_en_proceso right after stamping is the contract: retry after Retry-After, as a client would.
      const id = alAzar(c.timbradas)!;
      const limite = performance.now() + PLAZO_PDF_MS;
      let r = await solicitar(c, 'GET', `/v1/facturas/${id}/pdf`);
      while (r.status === 409 && r.body.error?.codigo === 'pdf_en_proceso' && performance.now() < limite) {
        n.pdfEnProceso++;
        await dormir(1000 * Math.max(1, r.reintentarEnS ?? 1));
        r = await solicitar(c, 'GET', `/v1/facturas/${id}/pdf`);
      }
      n.cuenta(op, r.status, r.detalle);
      return;
    }
    case 'xml': {
      const r = await solicitar(c, 'GET', `/v1/facturas/${alAzar(c.timbradas)!}/xml`);
      n.cuenta(op, r.status, r.detalle);
      return;
    }
  }
}

// --- settling -----------------------------------------------------------------------------------

interface Pendientes {
  timbrando: number;
  cancelando: number;
  pagos_registrando: number;
  entregas_pendientes: number;
}

async function pendientesDe(db: Knex, cuentas: string[]): Promise<Pendientes> {
  const contar = async (q: Knex.QueryBuilder) =>
    Number(((await q.count({ n: '*' })) as { n: number }[])[0]!.n);
  return {
    timbrando: await contar(
      db('facturas').whereIn('cuenta_id', cuentas).where('timbrado_estado', 'pendiente'),
    ),
    cancelando: await contar(
      db('facturas')
        .whereIn('cuenta_id', cuentas)
        .whereRaw("JSON_UNQUOTE(JSON_EXTRACT(cancelacion, '$.estado')) IN ('solicitada', 'en_proceso')"),
    ),
    pagos_registrando: await contar(db('pagos').whereIn('cuenta_id', cuentas).where('estado', 'registrando')),
    entregas_pendientes: await contar(
      db('entregas')
        .whereIn('webhook_id', db('webhooks').whereIn('cuenta_id', cuentas).select('id'))
        .where('estado', 'pendiente'),
    ),
  };
}

const suma = (p: Pendientes) => Object.values(p).reduce((t, x) => t + x, 0);

async function main() {
  await exigirPilaSana();
  const pids = pidsDeLaPila();
  const db = crearKnex(config.databaseUrl, { min: 0, max: 2 });
  const receptor = receptorWebhooks();
  const urlReceptor = await receptor.escuchar();

  const clientes: Cliente[] = [];
  for (let i = 0; i < CLIENTES; i++) {
    const { llave, org } = await cuentaLista(db, `Soak ${i + 1}`);
    const c: Cliente = {
      llave,
      org,
      cuentaId: '',
      serie: `SOAK${Date.now().toString(36).toUpperCase()}${i + 1}`,
      cancelables: [],
      pagables: [],
      timbradas: [],
      pendientes: [],
    };
    const cuenta = await solicitar(c, 'GET', '/v1/cuenta');
    c.cuentaId = cuenta.body.id;
    const wh = await solicitar(c, 'POST', '/v1/webhooks', {
      url: urlReceptor,
      eventos_suscritos: ['factura.creada', 'factura.timbrada', 'factura.cancelada', 'pago.creado'],
    });
    if (wh.status !== 201) throw new Error(`no se pudo registrar el webhook: ${wh.status} ${wh.detalle}`);
    clientes.push(c);
  }
  const cuentas = clientes.map((c) => c.cuentaId);
  console.log(
    `soak: ${CLIENTES} clientes, ${DURACION_S} s (calentamiento ${CALENTAMIENTO_S} s, muestreo ${MUESTREO_S} s), ` +
      `api pid ${pids.api}, worker pid ${pids.worker}, ${api}`,
  );

  const n = new Contador();
  const t0 = performance.now();
  const segundos = () => (performance.now() - t0) / 1000;
  const muestras: Muestra[] = [];
  const muestrear = () =>
    muestras.push({ s: segundos(), rss: { api: rssMb(pids.api), worker: rssMb(pids.worker) } });
  muestrear();
  const muestreo = setInterval(() => {
    muestrear();
    const m = muestras[muestras.length - 1]!;
    if (Math.round(m.s) % 60 < MUESTREO_S)
      console.log(
        `  ${Math.round(m.s)} s: ${n.total} solicitudes, ${n.erroresTotal} errores, rss api ${m.rss.api?.toFixed(0)} MB, ` +
          `worker ${m.rss.worker?.toFixed(0)} MB`,
      );
  }, MUESTREO_S * 1000);

  await Promise.all(
    clientes.map(async (c) => {
      while (segundos() < DURACION_S) await paso(c, n);
    }),
  );
  muestrear();
  clearInterval(muestreo);
  const fin = segundos();

  // Settle: every operation reaches a final state within ESPERA_S, or counts as stuck.
  const t1 = performance.now();
  let pendientes = await pendientesDe(db, cuentas);
  while (suma(pendientes) > 0 && performance.now() - t1 < ESPERA_S * 1000) {
    await dormir(2000);
    pendientes = await pendientesDe(db, cuentas);
  }
  const asentado = (performance.now() - t1) / 1000;

  // Lost (answered, not in the database) and duplicated (one UUID twice) records.
  const ids = [...n.facturas];
  const enBase = new Set<string>();
  for (let i = 0; i < ids.length; i += 1000)
    for (const f of (await db('facturas')
      .whereIn('id', ids.slice(i, i + 1000))
      .select('id')) as { id: string }[])
      enBase.add(f.id);
  const perdidas = ids.filter((id) => !enBase.has(id)).length;
  const duplicadas = (
    (await db('facturas')
      .whereIn('cuenta_id', cuentas)
      .whereNotNull('uuid')
      .groupBy('uuid')
      .havingRaw('COUNT(*) > 1')
      .select('uuid')) as unknown[]
  ).length;
  const fallidas = Number(
    (
      (await db('facturas')
        .whereIn('cuenta_id', cuentas)
        .where('timbrado_estado', 'fallido')
        .count({ n: '*' })) as { n: number }[]
    )[0]!.n,
  );
  const entregadas = receptor.recibidas();
  await receptor.cerrar();
  await db.destroy();

  // RSS: the mean over a window after the warm-up against the mean over the last window of traffic.
  const media = (nombre: string, desde: number, hasta: number) => {
    const xs = muestras
      .filter((m) => m.s >= desde && m.s <= hasta)
      .map((m) => m.rss[nombre])
      .filter((x): x is number => x !== undefined);
    return xs.length ? xs.reduce((t, x) => t + x, 0) / xs.length : NaN;
  };
  const rss = (nombre: string) => {
    const tras = media(nombre, CALENTAMIENTO_S, CALENTAMIENTO_S + VENTANA_RSS_S);
    const alFinal = media(nombre, fin - VENTANA_RSS_S, fin);
    return { tras, alFinal, pct: ((alFinal - tras) / tras) * 100 };
  };
  const rssApi = rss('api');
  const rssWorker = rss('worker');

  const porOperacion = [...n.porOperacion].sort().map(([k, v]) => `${k}: ${v}`);
  console.log(`solicitudes por operación y status: ${porOperacion.join(', ')}`);
  if (n.errores.size)
    console.log(
      `errores: ${[...n.errores].map(([k, v]) => `${k}: ${v}`).join(', ')}\n  ${n.ejemplos.join('\n  ')}`,
    );
  console.log(
    `asentamiento: ${asentado.toFixed(1)} s; pendientes al final ${JSON.stringify(pendientes)}; ` +
      `timbrados fallidos ${fallidas}; entregas de webhook recibidas ${entregadas}`,
  );
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'NaN');
  console.log(
    `rss api ${f(rssApi.tras)} → ${f(rssApi.alFinal)} MB, worker ${f(rssWorker.tras)} → ${f(rssWorker.alFinal)} MB ` +
      `(media de ${VENTANA_RSS_S} s tras ${CALENTAMIENTO_S} s y de los últimos ${VENTANA_RSS_S} s; ${muestras.length} muestras)`,
  );
  const atascadas = suma(pendientes);
  console.log(
    `soak_detalle solicitudes=${n.total} solicitudes_por_segundo=${(n.total / fin).toFixed(1)} facturas=${ids.length} ` +
      `pdf_en_proceso_reintentados=${n.pdfEnProceso} entregas_recibidas=${entregadas} ` +
      `status_5xx=${n.status5xx} perdidas=${perdidas} duplicadas=${duplicadas} timbrados_fallidos=${fallidas} ` +
      `rss_api_mb=${f(rssApi.tras)}/${f(rssApi.alFinal)} rss_worker_mb=${f(rssWorker.tras)}/${f(rssWorker.alFinal)}`,
  );
  console.log(
    `soak errores=${n.erroresTotal + fallidas} atascadas=${atascadas} rss_api_crecimiento_pct=${f(rssApi.pct)} ` +
      `rss_worker_crecimiento_pct=${f(rssWorker.pct)}`,
  );
  const crecio = (x: number) => !(x < MAX_CRECIMIENTO_PCT);
  if (
    n.erroresTotal + fallidas + atascadas + perdidas + duplicadas > 0 ||
    crecio(rssApi.pct) ||
    crecio(rssWorker.pct)
  )
    process.exitCode = 1;
}

main().catch((e) => {
  console.error(`campania:soak: ${(e as Error).message}`);
  process.exit(1);
});
