import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { armarMensaje, type DatosMensaje } from '../correo/mensaje';
import { crearCorreoSmtp } from '../correo/smtp';
import { crearKnex, type Knex } from '../db/conexion';
import { descripcionesDesdeCsv } from '../pdf/descripciones';
import { localizarChromium, Navegador } from '../pdf/navegador';
import { RenderizadorPdf } from '../pdf/renderizador';
import { htmlRepresentacion } from '../pdf/representacion';
import { argumentosMailpit, esperarMailpit, rutaMailpit } from '../scripts/mailpit';
import { cpuEntre, instantaneaCpu, type CpuPorGrupo } from './cpu-procesos';
import { DIRECTORIO_SAT } from './muestra';
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
 * `npm run bench:correo`: the invoices' email, measured twice.
 *
 * 1. The email step alone, no Temporal and no stack: `armarMensaje` and `crearCorreoSmtp` (the worker's adapter,
 *    its pool of 4 connections) against a private Mailpit on free ports, BENCH_N emails (default 500) from 4
 *    concurrent senders, each with the real stamped example's XML and its PDF attached: emails/s, latency, CPU
 *    per email of this process and of Mailpit.
 * 2. End to end, with `make up` running (BENCH_SOLO_SMTP=1 skips it): one account whose client has `correo`;
 *    BENCH_FACTURAS invoices (default 100) stamped with `enviar_correo: false`, then as many with the email,
 *    each phase until its last PDF is stored (and its last email `enviado`): the difference is the email's own
 *    CPU. Then each emailed invoice resent (`POST /v1/facturas/{id}/correo`): the email workflow alone through the
 *    stack, no stamping and no PDF to wait for.
 * Machine-readable lines: correos_por_segundo_smtp=, cpu_ms_por_correo_smtp=, cpu_ms_mailpit_por_correo=,
 * cpu_ms_extra_por_correo=, cpu_ms_por_reenvio=, correos_por_segundo_reenvio=, and last correos_por_segundo= (the
 * automatic emails end to end; the SMTP step's with BENCH_SOLO_SMTP=1).
 */
const N = Number(process.env.BENCH_N ?? 500);
const FACTURAS = Number(process.env.BENCH_FACTURAS ?? 100);
const SOLO_SMTP = process.env.BENCH_SOLO_SMTP === '1';
// The worker's SMTP adapter keeps 4 connections: as many senders keep them all busy.
const CONCURRENCIA = 4;
const CALENTAMIENTO = 20;
const LIMITE_S = Number(process.env.BENCH_LIMITE_S ?? 300);
const REMITENTE = 'facturas@cfdi-api.localhost';
const DESTINATARIO = 'cuentas.por.pagar@receptor.example.mx';
// USER_HZ is 100 on Linux: /proc's CPU times are in 10 ms ticks.
const MS_POR_TICK = 10;

const dormir = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ms = (x: number) => `${Math.round(x)} ms`;
const f1 = (x: number) => x.toFixed(1);
const p50p99 = (xs: number[]) =>
  xs.length
    ? `p50 ${ms(percentil(xs, 0.5))}, p99 ${ms(percentil(xs, 0.99))}, máx ${ms(Math.max(...xs))}`
    : '—';

/** CPU ms one process has used so far (/proc/<pid>/stat: utime and stime, after the command name). */
function cpuDeProceso(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const campos = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(campos[11]) + Number(campos[12])) * MS_POR_TICK;
}

/** CPU ms the whole machine has been busy (every state but idle and iowait), to tell what other processes took. */
function cpuMaquina(): number {
  const campos = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return campos.slice(0, 8).reduce((t, v, i) => (i === 3 || i === 4 ? t : t + v), 0) * MS_POR_TICK;
}

/** Share of the machine's cores that processes other than `nuestros` used during `msPared`. */
const otrosProcesos = (maquinaMs: number, nuestrosMs: number, msPared: number) =>
  `${Math.round((Math.max(0, maquinaMs - nuestrosMs) / (msPared * cpus().length)) * 100)} %`;

/** Two ports free right now: both held until both are chosen, so the OS cannot hand out one twice. */
async function dosPuertos(): Promise<[number, number]> {
  const servidores: Server[] = [createServer(), createServer()];
  try {
    for (const s of servidores) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const [a, b] = servidores.map((s) => (s.address() as { port: number }).port);
    return [a!, b!];
  } finally {
    await Promise.all(servidores.map((s) => new Promise((r) => s.close(r))));
  }
}

/** Mailpit with `make up`'s options on free ports and a temporary SQLite file. */
async function mailpitPrivado() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-correo-'));
  const log = join(dir, 'mailpit.log');
  const [puertoSmtp, puertoHttp] = await dosPuertos();
  const smtp = `127.0.0.1:${puertoSmtp}`;
  const http = `127.0.0.1:${puertoHttp}`;
  const hijo: ChildProcess = spawn(
    rutaMailpit(),
    argumentosMailpit({ smtp, http, archivoDb: join(dir, 'mailpit.db') }),
    { stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')] },
  );
  const vivo = () => hijo.exitCode === null && hijo.signalCode === null;
  const detener = async () => {
    if (vivo()) {
      const fin = new Promise((r) => hijo.once('exit', r));
      hijo.kill('SIGTERM');
      await fin;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await esperarMailpit({ http, smtp, ms: 20_000, sigueVivo: vivo });
  } catch (e) {
    const salida = readFileSync(log, 'utf8').slice(-2000);
    await detener();
    throw new Error(`${(e as Error).message}\n${salida}`);
  }
  return {
    pid: hijo.pid!,
    smtpUrl: `smtp://${smtp}`,
    /** Mailpit's own counters: messages accepted over SMTP and their bytes. */
    async aceptados(): Promise<{ mensajes: number; bytes: number }> {
      const r = (await (await fetch(`http://${http}/api/v1/info`)).json()) as {
        RuntimeStats: { SMTPAccepted: number; SMTPAcceptedSize: number };
      };
      return { mensajes: r.RuntimeStats.SMTPAccepted, bytes: r.RuntimeStats.SMTPAcceptedSize };
    },
    detener,
  };
}

/** The real stamped example and its PDF, rendered once here (Chromium is closed before anything is measured). */
async function documentos(): Promise<{ xml: string; pdf: Buffer }> {
  const xml = readFileSync(
    join(DIRECTORIO_SAT, 'examples', 'signed', 'ingreso-real-stamped-pue-iva16.xml'),
    'utf8',
  );
  const navegador = new Navegador(localizarChromium(config.chromiumPath));
  const renderizador = new RenderizadorPdf(navegador, { paginas: 1 });
  try {
    const html = htmlRepresentacion(xml, { colorAcento: '#1F4E79', descripciones: descripcionesDesdeCsv() });
    return { xml, pdf: await renderizador.renderizar(html) };
  } finally {
    await renderizador.cerrar();
    await navegador.cerrar();
  }
}

/** What the email activity reads from the database, here from the example's own attributes. */
function datosDelEjemplo(xml: string, pdf: Buffer): Omit<DatosMensaje, 'correoId'> {
  const atributo = (nodo: string, nombre: string) => {
    const v = new RegExp(`<${nodo}\\b[^>]*\\b${nombre}="([^"]*)"`).exec(xml)?.[1];
    if (v === undefined) throw new Error(`el ejemplo no tiene ${nodo}@${nombre}`);
    return v;
  };
  return {
    motivo: 'timbrado',
    destinatarios: [DESTINATARIO],
    emisor: { nombre: atributo('cfdi:Emisor', 'Nombre'), rfc: atributo('cfdi:Emisor', 'Rfc'), correo: null },
    receptor: { nombre: atributo('cfdi:Receptor', 'Nombre'), rfc: atributo('cfdi:Receptor', 'Rfc') },
    tipo: 'ingreso',
    serie: atributo('cfdi:Comprobante', 'Serie'),
    folio: atributo('cfdi:Comprobante', 'Folio'),
    uuid: atributo('tfd:TimbreFiscalDigital', 'UUID'),
    fechaTimbrado: atributo('tfd:TimbreFiscalDigital', 'FechaTimbrado'),
    total: atributo('cfdi:Comprobante', 'Total'),
    moneda: atributo('cfdi:Comprobante', 'Moneda'),
    motivoCancelacion: null,
    xml,
    pdf,
    acuse: null,
  };
}

/** Part 1: `armarMensaje` + the SMTP adapter against a private Mailpit; returns emails/s. */
async function pasoSmtp(): Promise<number> {
  const { xml, pdf } = await documentos();
  const base = datosDelEjemplo(xml, pdf);
  const datos = (i: number): DatosMensaje => ({ ...base, correoId: `cor_bench${i}` });

  // The message alone, for scale: synchronous, so its time is this thread's CPU.
  for (let i = 0; i < 200; i++) armarMensaje(datos(i), REMITENTE);
  const tArmar = performance.now();
  for (let i = 0; i < 2000; i++) armarMensaje(datos(i), REMITENTE);
  const usArmar = ((performance.now() - tArmar) * 1000) / 2000;

  const mailpit = await mailpitPrivado();
  const correo = crearCorreoSmtp({ url: mailpit.smtpUrl });
  try {
    const enviar = async (i: number) => {
      const r = await correo.enviar(armarMensaje(datos(i), REMITENTE));
      if (r.tipo !== 'enviado') throw new Error(`correo ${i} rechazado: ${r.codigo} ${r.respuesta}`);
    };
    // Warm-up: the pool's connections open, nodemailer's paths compiled.
    await carga(CALENTAMIENTO, (i) => enviar(N + i), CONCURRENCIA);
    const antes = await mailpit.aceptados();
    const cargaAntes = loadavg();
    const cpu0 = process.cpuUsage();
    const mp0 = cpuDeProceso(mailpit.pid);
    const maq0 = cpuMaquina();
    const t0 = performance.now();
    const r = await carga(N, enviar, CONCURRENCIA);
    const msPared = performance.now() - t0;
    const maq = cpuMaquina() - maq0;
    const mp = cpuDeProceso(mailpit.pid) - mp0;
    const c = process.cpuUsage(cpu0);
    const propio = (c.user + c.system) / 1000;
    const despues = await mailpit.aceptados();
    const recibidos = despues.mensajes - antes.mensajes;
    if (recibidos !== N) throw new Error(`Mailpit aceptó ${recibidos} correos de ${N}`);
    const kb = (despues.bytes - antes.bytes) / recibidos / 1024;

    console.log('1. Paso de correo solo (sin Temporal): armarMensaje + crearCorreoSmtp → Mailpit privado');
    console.log(
      `   ${N} correos, ${CONCURRENCIA} envíos concurrentes (pool de ${CONCURRENCIA} conexiones), calentamiento ${CALENTAMIENTO}; ` +
        `adjuntos XML ${(Buffer.byteLength(xml) / 1024).toFixed(1)} KB + PDF ${(pdf.length / 1024).toFixed(1)} KB, ` +
        `mensaje en Mailpit ${kb.toFixed(1)} KB`,
    );
    console.log(
      `   carga media (1 / 5 / 15 min) al empezar: ${cargaAntes.map((x) => x.toFixed(1)).join(' / ')}; ` +
        `otros procesos durante la medición: ${otrosProcesos(maq, propio + mp, msPared)} de la máquina`,
    );
    console.log(
      `   ${f1(r.porSegundo)} correos/s en ${(msPared / 1000).toFixed(2)} s; por correo p50 ${f1(r.p50)} ms, p99 ${f1(r.p99)} ms`,
    );
    console.log(`   armarMensaje solo: ${usArmar.toFixed(1)} µs por mensaje`);
    console.log(
      `   CPU por correo: este proceso ${(propio / N).toFixed(2)} ms (armar + nodemailer: MIME, base64, socket), ` +
        `Mailpit ${(mp / N).toFixed(2)} ms, total ${((propio + mp) / N).toFixed(2)} ms`,
    );
    console.log(`correos_por_segundo_smtp=${f1(r.porSegundo)}`);
    console.log(`cpu_ms_por_correo_smtp=${(propio / N).toFixed(2)}`);
    console.log(`cpu_ms_mailpit_por_correo=${(mp / N).toFixed(2)}`);
    return r.porSegundo;
  } finally {
    correo.cerrar();
    await mailpit.detener();
  }
}

/** Repeats `paso` after a 429 (the key's rate limit), counting the waits. */
async function conLimiteDeLlave<T>(
  paso: () => Promise<{ status: number; body: T }>,
  esperas: { n: number },
): Promise<{ status: number; body: T }> {
  for (;;) {
    const r = await paso();
    if (r.status !== 429) return r;
    esperas.n++;
    await dormir(100);
  }
}

/** Polls until `listo` says so, or fails after the run's limit. */
async function hasta(que: string, t0: number, listo: () => Promise<boolean>): Promise<number> {
  while (Date.now() - t0 < LIMITE_S * 1000) {
    if (await listo()) return Date.now();
    await dormir(200);
  }
  throw new Error(`${que}: no terminó en ${LIMITE_S} s`);
}

const contar = async (q: Knex.QueryBuilder) =>
  Number(((await q.count({ n: '*' })) as { n: number }[])[0]?.n ?? 0);

interface Fase {
  /** Epoch ms of the phase's first POST. */
  t0: number;
  msPared: number;
  cpu: CpuPorGrupo;
  maquinaMs: number;
  posts: Awaited<ReturnType<typeof carga>>;
  ids: string[];
}

/** Sums a group map. */
const total = (c: CpuPorGrupo) => Object.values(c).reduce((t, x) => t + x, 0);

/**
 * One burst of `n` invoices from CLIENTES clients, until every PDF is stored and, with `enviar`, every email is
 * `enviado` (an email that fails ends the run).
 */
async function fase(db: Knex, k: string, org: string, n: number, enviar: boolean): Promise<Fase> {
  const ids: string[] = [];
  const esperas = { n: 0 };
  const cpu0 = instantaneaCpu();
  const maq0 = cpuMaquina();
  const t0 = Date.now();
  const posts = await carga(n, async () => {
    const r = await conLimiteDeLlave(
      () => pedir('POST', '/v1/facturas', k, facturaNueva(org, enviar ? {} : { enviar_correo: false })),
      esperas,
    );
    if (r.status !== 201 && r.status !== 202)
      throw new Error(`POST /v1/facturas ${r.status}: ${JSON.stringify(r.body)}`);
    ids.push(r.body.id as string);
  });
  await hasta(enviar ? 'PDF y correos' : 'PDF', t0, async () => {
    if ((await contar(db('facturas').whereIn('id', ids).whereNotNull('pdf'))) < n) return false;
    if (!enviar) return true;
    const fallidos = await contar(db('correos').whereIn('factura_id', ids).where('estado', 'fallido'));
    if (fallidos) throw new Error(`${fallidos} correos fallidos`);
    return (await contar(db('correos').whereIn('factura_id', ids).where('estado', 'enviado'))) >= n;
  });
  const msPared = Date.now() - t0;
  const cpu = cpuEntre(cpu0, instantaneaCpu());
  const maquinaMs = cpuMaquina() - maq0;
  if (esperas.n) console.log(`   (${esperas.n} esperas por 429 en esta fase)`);
  return { t0, msPared, cpu, maquinaMs, posts, ids };
}

/** Each group's CPU in `con` minus `sin`, per email. */
function diferencia(con: CpuPorGrupo, sin: CpuPorGrupo, n: number): string {
  const grupos = [...new Set([...Object.keys(con), ...Object.keys(sin)])];
  const filas = grupos
    .map((g) => [g, ((con[g] ?? 0) - (sin[g] ?? 0)) / n] as const)
    .sort((a, b) => b[1] - a[1]);
  return [...filas, ['total', (total(con) - total(sin)) / n] as const]
    .map(([g, x]) => `${g} ${x >= 0 ? '+' : ''}${x.toFixed(1)} ms`)
    .join(', ');
}

/** Stamp (the `factura.timbrada` event's commit) → email row (the dispatcher) → `enviado`, from the database. */
async function demoras(db: Knex, ids: string[], motivo: 'timbrado' | 'reenvio') {
  const filas = (await db('correos as c')
    .leftJoin('eventos as e', 'e.id', 'c.evento_id')
    .whereIn('c.factura_id', ids)
    .where('c.motivo', motivo)
    .select('c.creado_en', 'c.enviado_en', 'c.intentos', 'e.creado_en as evento_en')) as {
    creado_en: Date;
    enviado_en: Date | null;
    intentos: number;
    evento_en: Date | null;
  }[];
  const enviados = filas.filter((x) => x.enviado_en);
  return {
    filas,
    timbreAEnviado: enviados
      .filter((x) => x.evento_en)
      .map((x) => x.enviado_en!.getTime() - x.evento_en!.getTime()),
    timbreAFila: filas.filter((x) => x.evento_en).map((x) => x.creado_en.getTime() - x.evento_en!.getTime()),
    filaAEnviado: enviados.map((x) => x.enviado_en!.getTime() - x.creado_en.getTime()),
    ultimoEnviado: Math.max(...enviados.map((x) => x.enviado_en!.getTime())),
    conReintentos: filas.filter((x) => x.intentos > 1).length,
  };
}

/** Part 2: the stack's email path, end to end; returns the automatic emails per second. */
async function pasoPila(): Promise<number> {
  await exigirPilaSana();
  const db = crearKnex(config.databaseUrl, { min: 0, max: 2 });
  try {
    const { llave: k, org } = await cuentaLista(db, 'Bench correo', { correo: DESTINATARIO });
    // Warm-up: the stamping, PDF and email paths of the API and both workers compiled, SMTP connections open.
    await fase(db, k, org, 10, true);

    const cargaAntes = loadavg();
    const sin = await fase(db, k, org, FACTURAS, false);
    const creados = await contar(db('correos').whereIn('factura_id', sin.ids));
    if (creados) throw new Error(`${creados} correos de facturas con enviar_correo: false`);
    const con = await fase(db, k, org, FACTURAS, true);
    const auto = await demoras(db, con.ids, 'timbrado');

    // Resends: the email workflow alone (API → Temporal → worker → SMTP), the PDFs already stored.
    const esperas = { n: 0 };
    const cpu0 = instantaneaCpu();
    const maq0 = cpuMaquina();
    const t0 = Date.now();
    const reenvio = await carga(FACTURAS, async (i) => {
      const r = await conLimiteDeLlave(() => pedir('POST', `/v1/facturas/${con.ids[i]}/correo`, k), esperas);
      if (r.status !== 202) throw new Error(`POST …/correo ${r.status}: ${JSON.stringify(r.body)}`);
    });
    await hasta('reenvíos', t0, async () => {
      const q = db('correos').whereIn('factura_id', con.ids).where('motivo', 'reenvio');
      const fallidos = await contar(q.clone().where('estado', 'fallido'));
      if (fallidos) throw new Error(`${fallidos} reenvíos fallidos`);
      return (await contar(q.clone().where('estado', 'enviado'))) >= FACTURAS;
    });
    const msReenvio = Date.now() - t0;
    const cpuReenvio = cpuEntre(cpu0, instantaneaCpu());
    const maqReenvio = cpuMaquina() - maq0;
    const reenvios = await demoras(db, con.ids, 'reenvio');

    // From the phase's first POST to the last `enviado_en` (the worker's clock, this machine's).
    const porSegundo = (FACTURAS * 1000) / (auto.ultimoEnviado - con.t0);
    const porSegundoReenvio = (FACTURAS * 1000) / msReenvio;
    const extra = (total(con.cpu) - total(sin.cpu)) / FACTURAS;
    console.log(
      '2. De punta a punta por la pila de make up (API + Temporal + worker + worker PDF + PAC + MariaDB + Mailpit)',
    );
    console.log(
      `   ${FACTURAS} facturas por fase, ${CLIENTES} clientes concurrentes, calentamiento 10 facturas con correo; ` +
        `carga media (1 / 5 / 15 min) al empezar: ${cargaAntes.map((x) => x.toFixed(1)).join(' / ')}`,
    );
    const linea = (nombre: string, x: Fase, que: string) =>
      console.log(
        `   ${nombre}: POST ${f1(x.posts.porSegundo)}/s (p50 ${ms(x.posts.p50)}, p99 ${ms(x.posts.p99)}); ` +
          `${que} a los ${(x.msPared / 1000).toFixed(2)} s; otros procesos ${otrosProcesos(x.maquinaMs, total(x.cpu), x.msPared)} de la máquina`,
      );
    linea('sin correo (enviar_correo: false)', sin, 'último PDF');
    linea('con correo', con, 'último PDF y último correo enviado');
    console.log(
      `   correos automáticos: ${auto.filas.length} enviados, el último a los ${((auto.ultimoEnviado - con.t0) / 1000).toFixed(2)} s: ` +
        `${f1(porSegundo)} correos/s desde el primer POST de la fase; ` +
        `con más de un intento: ${auto.conReintentos}`,
    );
    console.log(`   timbre → correo enviado: ${p50p99(auto.timbreAEnviado)}`);
    console.log(`     timbre → fila del correo (despacho): ${p50p99(auto.timbreAFila)}`);
    console.log(`     fila → enviado (Temporal, espera del PDF, SMTP): ${p50p99(auto.filaAEnviado)}`);
    console.log(`   CPU por factura sin correo: ${cpuPorOperacion(sin.cpu, FACTURAS)}`);
    console.log(`   CPU por factura con correo: ${cpuPorOperacion(con.cpu, FACTURAS)}`);
    console.log(`   CPU extra por correo (con − sin): ${diferencia(con.cpu, sin.cpu, FACTURAS)}`);
    console.log(
      `   reenvíos (POST /v1/facturas/{id}/correo, PDF ya guardado): ${f1(porSegundoReenvio)} correos/s, ` +
        `último enviado a los ${(msReenvio / 1000).toFixed(2)} s; POST p50 ${ms(reenvio.p50)}, p99 ${ms(reenvio.p99)}; ` +
        `otros procesos ${otrosProcesos(maqReenvio, total(cpuReenvio), msReenvio)} de la máquina` +
        (esperas.n ? `; esperas por 429: ${esperas.n}` : ''),
    );
    console.log(
      `     POST → enviado: ${p50p99(reenvios.filaAEnviado)}; con más de un intento: ${reenvios.conReintentos}`,
    );
    console.log(`   CPU por reenvío: ${cpuPorOperacion(cpuReenvio, FACTURAS)}`);
    console.log(`cpu_ms_extra_por_correo=${extra.toFixed(1)}`);
    console.log(`cpu_ms_por_reenvio=${(total(cpuReenvio) / FACTURAS).toFixed(1)}`);
    console.log(`correos_por_segundo_reenvio=${f1(porSegundoReenvio)}`);
    return porSegundo;
  } finally {
    await db.destroy();
  }
}

async function main() {
  console.log(`node ${process.version}, ${cpus().length} CPU`);
  const smtp = await pasoSmtp();
  const pila = SOLO_SMTP ? smtp : await pasoPila();
  console.log(`correos_por_segundo=${f1(pila)}`);
}

main().catch((e) => {
  console.error(`bench:correo: ${(e as Error).message}`);
  process.exit(1);
});
