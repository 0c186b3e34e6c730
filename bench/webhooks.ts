import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { crearKnex, type Knex } from '../db/conexion';
import { verificarFirmaCuerpo } from '../webhooks/firma';
import { cpuEntre, instantaneaCpu } from './cpu-procesos';
import {
  CLIENTES,
  carga,
  config,
  cpuPorOperacion,
  cuentaLista,
  exigirPilaSana,
  facturaNueva,
  pedir,
  percentil,
} from './pila-http';

/**
 * `npm run bench:webhooks`, with `make up` running: W webhooks of one new account, all subscribed to
 * `factura.creada` and pointing at a receiver in this process, then a burst of E drafts (`auto_timbrar: false`)
 * from 16 concurrent clients: E × W deliveries, each its own `entregarEvento` workflow. Measured from the
 * burst's first POST: until every POST answered, until the receiver saw every delivery, until the database
 * shows them all `entregada`; the delay from each event's creation to its arrival, split by stage; duplicates,
 * failures, CPU per delivery. Last line: entregas_por_segundo=<deliveries / time to the last one received>.
 * BENCH_INTERVALO_MS=250: low load instead, one draft at a time every 250 ms (the latency an idle stack gives).
 */
const W = Number(process.env.BENCH_WEBHOOKS ?? 10);
const E = Number(process.env.BENCH_EVENTOS ?? 100);
const N = E * W;
const CALENTAMIENTO = Number(process.env.BENCH_CALENTAMIENTO ?? 5);
const LIMITE_S = Number(process.env.BENCH_LIMITE_S ?? 180);
/** Low load instead of a burst: one event at a time, this many ms apart (the latency an idle stack gives). */
const INTERVALO_MS = Number(process.env.BENCH_INTERVALO_MS ?? 0);
const OBJETIVO_S = 60;

interface Llegada {
  evento: string;
  webhook: number;
  intento: number;
  /** Epoch ms, to compare with the database's timestamps. */
  epochMs: number;
  /** ms since the burst's first POST. */
  desdeInicioMs: number;
}

/**
 * The receiver: answers 200 as soon as the body is in, keeps every request, and checks each signature with
 * the secret its webhook was given (so a delivery signed with the wrong key shows up as a failure here).
 */
class Receptor {
  readonly llegadas: Llegada[] = [];
  readonly distintas = new Set<string>();
  firmasMalas = 0;
  inicio = performance.now();
  secretos: string[] = [];
  private servidor: Server;
  private esperas: { n: number; listo: () => void }[] = [];

  constructor() {
    this.servidor = createServer((req, res) => this.recibir(req, res));
  }

  async escuchar(): Promise<number> {
    await new Promise<void>((r) => this.servidor.listen(0, '127.0.0.1', r));
    return (this.servidor.address() as AddressInfo).port;
  }

  /** Resolves once `n` distinct (event, webhook) pairs have arrived. */
  hasta(n: number): Promise<void> {
    if (this.distintas.size >= n) return Promise.resolve();
    return new Promise((listo) => this.esperas.push({ n, listo }));
  }

  private recibir(req: IncomingMessage, res: ServerResponse) {
    const partes: Buffer[] = [];
    req.on('data', (p: Buffer) => partes.push(p));
    req.on('end', () => {
      const epochMs = Date.now();
      const desdeInicioMs = performance.now() - this.inicio;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      const webhook = Number(/^\/wh\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
      const evento = String(req.headers['x-facturacion-evento'] ?? '');
      if (!this.firmaValida(webhook, Buffer.concat(partes), req.headers['x-facturacion-firma'])) {
        this.firmasMalas++;
      }
      const intento = Number(req.headers['x-facturacion-intento'] ?? 0);
      this.llegadas.push({ evento, webhook, intento, epochMs, desdeInicioMs });
      this.distintas.add(`${evento}|${webhook}`);
      this.esperas = this.esperas.filter((e) => (this.distintas.size >= e.n ? (e.listo(), false) : true));
    });
  }

  private firmaValida(webhook: number, cuerpo: Buffer, firma: string | string[] | undefined): boolean {
    const secreto = this.secretos[webhook];
    if (!secreto || typeof firma !== 'string') return false;
    return verificarFirmaCuerpo(cuerpo, firma, secreto);
  }

  cerrar(): Promise<void> {
    this.servidor.closeAllConnections();
    return new Promise((r) => this.servidor.close(() => r()));
  }
}

/** Bounded, so a stack that never finishes fails the run instead of hanging it. */
function conLimite<T>(p: Promise<T>, ms: number, que: string): Promise<T> {
  let t: NodeJS.Timeout;
  const vencido = new Promise<never>((_, rechazar) => {
    t = setTimeout(() => rechazar(new Error(`${que}: no terminó en ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, vencido]).finally(() => clearTimeout(t));
}

const dormir = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Deliveries of these webhooks by state, and how many of them are `entregada`. */
async function entregasPorEstado(db: Knex, webhooks: string[]): Promise<Record<string, number>> {
  const filas = (await db('entregas')
    .whereIn('webhook_id', webhooks)
    .groupBy('estado')
    .select('estado')
    .count({ n: '*' })) as { estado: string; n: number | string }[];
  return Object.fromEntries(filas.map((f) => [f.estado, Number(f.n)]));
}

const ms = (x: number) => `${Math.round(x)} ms`;
const s = (x: number) => `${(x / 1000).toFixed(2)} s`;
const p50p99 = (xs: number[]) =>
  xs.length
    ? `p50 ${ms(percentil(xs, 0.5))}, p99 ${ms(percentil(xs, 0.99))}, máx ${ms(Math.max(...xs))}`
    : '—';

async function main() {
  const db = crearKnex(config.databaseUrl, { min: 0, max: 2 });
  await exigirPilaSana();
  const cargaAntes = loadavg();
  const { llave: k, org } = await cuentaLista(db, 'Bench webhooks');

  const receptor = new Receptor();
  const puerto = await receptor.escuchar();
  const webhooks: string[] = [];
  for (let i = 0; i < W; i++) {
    const r = await pedir('POST', '/v1/webhooks', k, {
      url: `http://127.0.0.1:${puerto}/wh/${i}`,
      eventos_suscritos: ['factura.creada'],
    });
    if (r.status !== 201) throw new Error(`POST /v1/webhooks ${r.status}: ${JSON.stringify(r.body)}`);
    webhooks.push(r.body.id as string);
    receptor.secretos[i] = r.body.secreto_firma as string;
  }

  const estados = new Map<number, number>();
  let esperas429 = 0;
  const borrador = async () => {
    for (;;) {
      const r = await pedir('POST', '/v1/facturas', k, facturaNueva(org, { auto_timbrar: false }));
      estados.set(r.status, (estados.get(r.status) ?? 0) + 1);
      // The per-key rate limit (100/s, bursts of 200) only bites with BENCH_EVENTOS well above the default.
      if (r.status === 429) {
        esperas429++;
        await dormir(100);
        continue;
      }
      if (r.status !== 201) throw new Error(`POST /v1/facturas ${r.status}: ${JSON.stringify(r.body)}`);
      return;
    }
  };

  // Warm-up: the API's and worker's delivery paths compiled, the sender's keep-alive sockets open.
  await carga(CALENTAMIENTO, borrador);
  await conLimite(receptor.hasta(CALENTAMIENTO * W), 120_000, 'calentamiento');
  const deCalentamiento = new Set(receptor.llegadas.map((l) => l.evento));
  const llegadasCalentamiento = receptor.llegadas.length;
  estados.clear();

  // The burst.
  const cpu0 = instantaneaCpu();
  receptor.inicio = performance.now();
  const t0 = receptor.inicio;
  const rafaga = INTERVALO_MS > 0 ? await espaciados(E, INTERVALO_MS, borrador) : await carga(E, borrador);
  const tPosts = performance.now() - t0;
  const objetivo = CALENTAMIENTO * W + N;
  let tUltima = Number.NaN;
  let tBd = Number.NaN;
  const todas = conLimite(receptor.hasta(objetivo), LIMITE_S * 1000 - tPosts, 'entregas recibidas').then(
    () => (tUltima = receptor.llegadas.at(-1)!.desdeInicioMs),
  );
  // The database says `entregada` after the worker logged the attempt: polled, so ±100 ms.
  const enBd = (async () => {
    while (performance.now() - t0 < LIMITE_S * 1000) {
      const e = await entregasPorEstado(db, webhooks);
      if ((e.entregada ?? 0) >= objetivo) return (tBd = performance.now() - t0);
      await dormir(100);
    }
    throw new Error(`la base no mostró ${objetivo} entregas entregadas en ${LIMITE_S} s`);
  })();
  const fallo = await Promise.all([todas, enBd]).then(
    () => undefined,
    (e: Error) => e,
  );
  const cpu = cpuEntre(cpu0, instantaneaCpu());
  // Late duplicates (a retried attempt) arrive after the last distinct one: give them a moment.
  await dormir(2000);

  // Stages of each measured delivery, from the database's own timestamps and the receiver's clock.
  const filas = (await db('entregas as en')
    .leftJoin('entregas_intentos as i', (j) => j.on('i.entrega_id', 'en.id').andOnVal('i.numero', '=', 1))
    .whereIn('en.webhook_id', webhooks)
    .select('en.evento_id', 'en.webhook_id', 'en.intentos', 'en.creado_en', 'i.iniciado_en')) as {
    evento_id: string;
    webhook_id: string;
    intentos: number;
    creado_en: Date;
    iniciado_en: Date | null;
  }[];
  const eventos = (await db('eventos')
    .whereIn('id', [...new Set(filas.map((f) => f.evento_id))])
    .select('id', 'creado_en')) as { id: string; creado_en: Date }[];
  const creadoEn = new Map(eventos.filter((e) => !deCalentamiento.has(e.id)).map((e) => [e.id, e.creado_en]));
  const intentosMalos = (await db('entregas_intentos as i')
    .join('entregas as en', 'en.id', 'i.entrega_id')
    .whereIn('en.webhook_id', webhooks)
    .where((q) => q.whereNotNull('i.error').orWhere('i.status_http', '>=', 300))
    .count({ n: '*' })) as { n: number | string }[];
  const porEstado = await entregasPorEstado(db, webhooks);

  const medidas = receptor.llegadas.slice(llegadasCalentamiento).filter((l) => creadoEn.has(l.evento));
  const vistas = new Set<string>();
  let duplicadas = 0;
  const primeraLlegada = new Map<string, Llegada>();
  for (const l of medidas) {
    const clave = `${l.evento}|${webhooks[l.webhook]}`;
    if (vistas.has(clave)) duplicadas++;
    else {
      vistas.add(clave);
      primeraLlegada.set(clave, l);
    }
  }
  const despacho: number[] = [];
  const temporal: number[] = [];
  const envio: number[] = [];
  const total: number[] = [];
  for (const f of filas) {
    const l = primeraLlegada.get(`${f.evento_id}|${f.webhook_id}`);
    const c = creadoEn.get(f.evento_id);
    if (!l || !c) continue;
    total.push(l.epochMs - c.getTime());
    despacho.push(f.creado_en.getTime() - c.getTime());
    if (f.iniciado_en) {
      temporal.push(f.iniciado_en.getTime() - f.creado_en.getTime());
      envio.push(l.epochMs - f.iniciado_en.getTime());
    }
  }
  const reintentos = medidas.filter((l) => l.intento > 1).length;
  const conVariosIntentos = filas.filter((f) => creadoEn.has(f.evento_id) && f.intentos > 1).length;
  const enOrden = medidas.map((l) => l.desdeInicioMs).sort((a, b) => a - b);
  const hito = (p: number) => (enOrden.length ? s(enOrden[Math.ceil(p * enOrden.length) - 1]!) : '—');
  await Promise.all(webhooks.map((id) => pedir('DELETE', `/v1/webhooks/${id}`, k)));
  await receptor.cerrar();
  await db.destroy();

  const cargaDespues = loadavg();
  const carga3 = (c: number[]) => c.map((x) => x.toFixed(1)).join(' / ');
  const porSegundo = N / (tUltima / 1000);
  console.log(
    `node ${process.version}, ${W} webhooks × ${E} eventos = ${N} entregas, ${CLIENTES} clientes concurrentes, ` +
      `calentamiento ${CALENTAMIENTO} eventos (${llegadasCalentamiento} entregas)`,
  );
  console.log(
    `carga media de la máquina (1 / 5 / 15 min): ${carga3(cargaAntes)} al empezar, ${carga3(cargaDespues)} al terminar`,
  );
  console.log(
    `ráfaga: ${E} POST /v1/facturas en ${s(tPosts)} (${rafaga.porSegundo.toFixed(1)}/s, p50 ${ms(rafaga.p50)}, ` +
      `p99 ${ms(rafaga.p99)}), estados ${JSON.stringify(Object.fromEntries(estados))}, esperas por 429: ${esperas429}`,
  );
  console.log(
    `recibidas: ${vistas.size} de ${N} distintas; 10 % ${hito(0.1)}, 50 % ${hito(0.5)}, 90 % ${hito(0.9)}, ` +
      `última ${Number.isNaN(tUltima) ? '—' : s(tUltima)} después del primer POST`,
  );
  console.log(`en la base todas entregadas a los ${Number.isNaN(tBd) ? '—' : s(tBd)}`);
  console.log(`entregas por estado: ${JSON.stringify(porEstado)}`);
  console.log(
    `duplicadas recibidas: ${duplicadas}, solicitudes con X-Facturacion-Intento > 1: ${reintentos}, ` +
      `entregas con más de un intento: ${conVariosIntentos}, intentos fallidos registrados: ` +
      `${Number(intentosMalos[0]?.n ?? 0)}, firmas inválidas: ${receptor.firmasMalas}`,
  );
  console.log(`evento creado → recibido: ${p50p99(total)}`);
  console.log(`  evento creado → fila de entrega (despacho en la API): ${p50p99(despacho)}`);
  console.log(`  fila de entrega → intento iniciado (Temporal + worker): ${p50p99(temporal)}`);
  console.log(`  intento iniciado → recibido (envío HTTP): ${p50p99(envio)}`);
  console.log(`CPU por entrega (incluye crear los ${E} borradores): ${cpuPorOperacion(cpu, N)}`);
  if (fallo) throw fallo;
  if (vistas.size !== N || (porEstado.entregada ?? 0) !== objetivo) {
    throw new Error(`se esperaban ${N} entregas medidas, se recibieron ${vistas.size}`);
  }
  console.log(
    `${N} entregas en ${s(tUltima)}: objetivo ≤ ${OBJETIVO_S} s ${tUltima <= OBJETIVO_S * 1000 ? 'cumplido' : 'NO cumplido'}`,
  );
  console.log(`entregas_por_segundo=${porSegundo.toFixed(1)}`);
}

main().catch((e) => {
  console.error(`bench:webhooks: ${(e as Error).message}`);
  process.exit(1);
});

/** `n` operations one after another, each starting `intervaloMs` after the previous one began. */
async function espaciados(n: number, intervaloMs: number, paso: () => Promise<void>) {
  const tiempos: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await paso();
    tiempos.push(performance.now() - t);
    await dormir(Math.max(0, t + intervaloMs - performance.now()));
  }
  const ms = performance.now() - t0;
  return { porSegundo: (n * 1000) / ms, p50: percentil(tiempos, 0.5), p99: percentil(tiempos, 0.99) };
}
