import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { crearApp } from '../api/app';
import { crearMetricasApi } from '../api/metricas';
import { crearServidor } from '../api/servidor';
import { crearServicios } from '../composicion/servicios';
import { cargarConfig, reintentosCorreo } from '../config/config';
import { cargarCatalogos } from '../db/catalogos/cargar';
import { CatalogosEnMemoria } from '../db/catalogos/memoria';
import { borrarBase, crearKnex, partesUrl, recrearBase } from '../db/conexion';
import { nuevoId } from '../db/ids';
import { migrar } from '../db/migraciones';
import { crearRepositorioPendientes } from '../db/repositorios/pendientes';
import { crearRepositorioSondas } from '../db/repositorios/sondas';
import { crearLogger } from '../log/logger';
import { argumentosServidorDev, esperarTemporal, rutaTemporalCli } from '../scripts/temporal/servidor-dev';
import { crearBoveda } from '../seguridad/boveda';
import { crearCanceladorTemporal } from '../temporal/cancelador';
import { conectarCliente } from '../temporal/conexion';
import { crearRegistradorPagosTemporal } from '../temporal/registrador-pagos';
import { crearTimbradorTemporal } from '../temporal/timbrador';
import { ENTREGAS, FACTURAS, percentil, sembrar } from './consola';

/*
 * The console's pages over HTTP with bench:consola's data (2 accounts × 10,000 stamped invoices, 2,000 to one
 * client, PPD instalments, webhook deliveries; the SAT catalogs loaded): the real app (crearApp over crearServicios,
 * as api/main.ts) on a database of its own (`<DATABASE_URL's>_bench_consola_paginas`, dropped at the end) and a
 * Temporal dev server of its own (in memory, no worker: the seeded invoices have no workflows, so histories and
 * describes come back empty or not found). A console admin of the first account signs in, chooses a password, and
 * GETs each page, VUELTAS times after a warm-up. Server time is the access log's `duracion_ms` (middleware to
 * response finished), read through the logger given to crearApp; the client's round trip is shown beside it.
 * The last line: consola_paginas_p95_ms=<the worst server p95 of the pages that answered 200>.
 */

const VUELTAS = Number(process.env.BENCH_VUELTAS ?? 50);
const CALENTAMIENTO = 5;
const LIMITE_MS = 300;

async function puertoLibre(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

async function iniciarTemporal(): Promise<{ address: string; hijo: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-consola-temporal-'));
  const log = join(dir, 'temporal.log');
  const [puerto, puertoHttp, puertoMetricas] = [
    await puertoLibre(),
    await puertoLibre(),
    await puertoLibre(),
  ];
  const address = `127.0.0.1:${puerto}`;
  const hijo = spawn(
    rutaTemporalCli(),
    argumentosServidorDev({
      ip: '127.0.0.1',
      puerto,
      namespace: 'default',
      puertoUi: null,
      puertoHttp,
      puertoMetricas,
    }),
    { stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')] },
  );
  try {
    await esperarTemporal(address, 60_000);
  } catch (e) {
    hijo.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${readFileSync(log, 'utf8').slice(-2000)}`);
  }
  return { address, hijo, dir };
}

async function detener(hijo: ChildProcess) {
  if (hijo.exitCode !== null) return;
  const fin = new Promise((r) => hijo.once('exit', r));
  hijo.kill('SIGTERM');
  let reloj: NodeJS.Timeout | undefined;
  await Promise.race([fin, new Promise((r) => (reloj = setTimeout(r, 10_000)))]);
  clearTimeout(reloj);
  if (hijo.exitCode === null) hijo.kill('SIGKILL');
}

/** The access log's lines, by request id; anything logged at warn or above is kept to print. */
function oidoDeAcceso() {
  const duraciones = new Map<string, number>();
  const avisos: string[] = [];
  const destino = new Writable({
    write(trozo: Buffer, _c, listo) {
      for (const linea of trozo.toString('utf8').split('\n')) {
        if (!linea) continue;
        const l = JSON.parse(linea) as Record<string, unknown>;
        if (l.mensaje === 'solicitud' && typeof l.duracion_ms === 'number')
          duraciones.set(String(l.request_id), l.duracion_ms);
        if (l.nivel === 'warn' || l.nivel === 'error' || l.nivel === 'fatal') avisos.push(linea);
      }
      listo();
    },
  });
  return { duraciones, avisos, destino };
}

async function main() {
  const base = cargarConfig();
  const { servidor: srv, base: nombre } = partesUrl(base.databaseUrl);
  const url = `${srv}${nombre}_bench_consola_paginas`;
  await recrearBase(url);
  const db = crearKnex(url);
  let temporal: Awaited<ReturnType<typeof iniciarTemporal>> | undefined;
  let servidor: Server | undefined;
  let cerrarCliente: (() => Promise<void>) | undefined;
  try {
    await migrar(db);
    const t0 = Date.now();
    await cargarCatalogos(db);
    const s = await sembrar(db, nuevoId('cta'));
    await sembrar(db, nuevoId('cta'));
    await db.raw(
      'ANALYZE TABLE facturas, pagos, pagos_facturas, entregas, entregas_intentos, clientes, eventos',
    );
    temporal = await iniciarTemporal();
    process.stdout.write(
      `sembrado: catálogos, 2 cuentas × ${FACTURAS} facturas (${s.pagos} pagos), ${ENTREGAS} entregas; Temporal dev en ${temporal.address}; en ${Date.now() - t0} ms\n`,
    );

    const config = { ...base, databaseUrl: url, temporal: { ...base.temporal, address: temporal.address } };
    const oido = oidoDeAcceso();
    const logger = crearLogger('bench', 'info', oido.destino);
    const cliente = await conectarCliente(config.temporal);
    cerrarCliente = () => cliente.connection.close();
    const catalogos = await CatalogosEnMemoria.cargar(db);
    catalogos.preparar();
    const taskQueue = `bench-${nuevoId('tq')}`;
    const servicios = crearServicios({
      db,
      catalogos,
      boveda: crearBoveda(config.claveMaestra),
      timbrador: crearTimbradorTemporal({
        cliente,
        taskQueue,
        esperaMs: config.timbradoEsperaMs,
        pdfEsperaMs: config.pdfEsperaMs,
        pacLiveConfigurado: false,
      }),
      cancelador: crearCanceladorTemporal({
        cliente,
        taskQueue,
        esperaMs: config.timbradoEsperaMs,
        intervaloSondeoMs: config.cancelacionSondeoMs,
        plazoMs: config.cancelacionPlazoMs,
      }),
      registradorPagos: crearRegistradorPagosTemporal({
        cliente,
        taskQueue,
        esperaMs: config.timbradoEsperaMs,
      }),
      temporal: { cliente, taskQueue, correo: reintentosCorreo(config) },
      logger,
      webhooksLocalesEnTest: config.webhooksLocalesEnTest,
      pac: { pac: config.pac },
      urlAutofactura: config.autofacturaUrlBase,
    });
    const metricas = crearMetricasApi(crearRepositorioPendientes(db));
    const app = crearApp({
      logger,
      servicios,
      limite: config.limiteSolicitudes,
      fallosAutenticacion: config.fallosAutenticacion,
      autofactura: config.autofactura,
      consola: { temporalUi: config.temporal.uiUrl, namespace: config.temporal.namespace },
      metricas,
      salud: {
        sondas: crearRepositorioSondas(db),
        temporal: cliente,
        taskQueue,
        pacUrl: config.pac.sandboxUrl,
        timeoutMs: config.saludTimeoutMs,
      },
    });
    const http = crearServidor({ app, catalogos, logger, metricas });
    servidor = http;
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const raiz = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

    // A console admin of the seeded account: sign in with the one-time password, then choose one.
    const { contrasena } = await servicios.usuarios.crear({
      cuentaId: s.a.cuentaId,
      correo: 'finanzas@bench.local',
      rol: 'admin',
    });
    const entrada = await fetch(`${raiz}/consola/entrar`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ correo: 'finanzas@bench.local', contrasena }),
    });
    const galleta = /consola_sesion=[^;]+/.exec(entrada.headers.get('set-cookie') ?? '')?.[0];
    if (entrada.status !== 303 || !galleta) throw new Error(`no se pudo entrar: HTTP ${entrada.status}`);
    const formulario = await (
      await fetch(`${raiz}/consola/contrasena`, { headers: { cookie: galleta } })
    ).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(formulario)?.[1];
    if (!csrf) throw new Error('el formulario de contraseña no trae _csrf');
    const cambio = await fetch(`${raiz}/consola/contrasena`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: galleta },
      body: new URLSearchParams({
        _csrf: csrf,
        actual: contrasena,
        nueva: 'una frase larga para la consola',
      }),
    });
    if (cambio.status !== 303) throw new Error(`no se pudo cambiar la contraseña: HTTP ${cambio.status}`);

    const muestra = s.facturas[4321]!;
    const conParcialidades = s.facturas.find((f, k) => k >= 4000 && f.ppd && !f.cancelada)!;
    const paginas: [string, string][] = [
      ['panel', '/consola'],
      ['facturas, primera página', '/consola/facturas'],
      ['facturas?q=<uuid>', `/consola/facturas?q=${muestra.uuid.toLowerCase()}`],
      ['facturas?q=A-<folio>', `/consola/facturas?q=A-${muestra.folio}`],
      ['facturas?q=<RFC del cliente de 2000>', `/consola/facturas?q=${s.rfcCliente}`],
      // No invoice of the account has it: the whole account is read.
      ['facturas?q=<RFC sin facturas>', '/consola/facturas?q=XEXX010101000'],
      ['factura PPD con parcialidades', `/consola/facturas/${conParcialidades.id}`],
      ['cliente de 2000 facturas', `/consola/clientes/${s.cliente}`],
      ['su estado de cuenta CSV', `/consola/clientes/${s.cliente}/estado_de_cuenta.csv`],
      ['pendientes', '/consola/pendientes'],
      ['webhooks', '/consola/webhooks'],
    ];

    let n = 0;
    const pedir = async (ruta: string) => {
      const id = `bench-${++n}-${Date.now()}`;
      const t = performance.now();
      const r = await fetch(`${raiz}${ruta}`, {
        redirect: 'manual',
        headers: { cookie: galleta, 'x-request-id': id },
      });
      const cuerpo = await r.text();
      const cliente = performance.now() - t;
      // The access line is written on the response's finish, before the client has read it all.
      let servidorMs = oido.duraciones.get(id);
      for (let i = 0; servidorMs === undefined && i < 20; i++) {
        await new Promise((res) => setImmediate(res));
        servidorMs = oido.duraciones.get(id);
      }
      oido.duraciones.delete(id);
      return {
        // A page that answered but could not read all it shows (Temporal's histories, say) says so in an alert.
        alerta: /class="aviso aviso-error"[^>]*>([^<]*)/.exec(cuerpo)?.[1],
        status: r.status,
        tipo: r.headers.get('content-type') ?? '',
        bytes: cuerpo.length,
        cliente,
        servidorMs,
      };
    };

    type Sentencia = { sql: string; bindings: unknown[]; ms: number };
    type Consulta = { sql: string; bindings: unknown[]; __knexQueryUid: string };
    /** One request's statements with their times (concurrent ones overlap: their sum may pass the page's time). */
    const perfilar = async (ruta: string) => {
      const inicios = new Map<string, number>();
      const hechas: Sentencia[] = [];
      const empieza = (q: Consulta) => void inicios.set(q.__knexQueryUid, performance.now());
      const termina = (_r: unknown, q: Consulta) => {
        const t = inicios.get(q.__knexQueryUid);
        if (t !== undefined) hechas.push({ sql: q.sql, bindings: q.bindings, ms: performance.now() - t });
      };
      db.on('query', empieza).on('query-response', termina);
      const r = await pedir(ruta);
      db.off('query', empieza).off('query-response', termina);
      return { r, hechas };
    };
    const perfiles: string[] = [];

    const filas: string[] = [];
    let peor = 0;
    const cabecera = `${'página'.padEnd(38)} ${'HTTP'.padEnd(4)} ${'KB'.padStart(6)}  ${'servidor p50'.padStart(12)} ${'p95'.padStart(8)} ${'máx'.padStart(8)}  ${'cliente p50'.padStart(11)} ${'p95'.padStart(8)}`;
    for (const [nombrePagina, ruta] of paginas) {
      for (let i = 0; i < CALENTAMIENTO; i++) await pedir(ruta);
      const srvMs: number[] = [];
      const cliMs: number[] = [];
      let ultima = await pedir(ruta);
      for (let i = 0; i < VUELTAS; i++) {
        ultima = await pedir(ruta);
        srvMs.push(ultima.servidorMs ?? NaN);
        cliMs.push(ultima.cliente);
      }
      let perfil = await perfilar(ruta);
      for (let i = 0; i < 4; i++) {
        const otro = await perfilar(ruta);
        if ((otro.r.servidorMs ?? 0) < (perfil.r.servidorMs ?? 0)) perfil = otro;
      }
      const lenta = [...perfil.hechas].sort((x, y) => y.ms - x.ms)[0];
      if (lenta) {
        const [plan] = (await db.raw(`EXPLAIN ${lenta.sql}`, lenta.bindings)) as [Record<string, unknown>[]];
        const p = plan[0]!;
        perfiles.push(
          `${nombrePagina}: ${perfil.r.servidorMs?.toFixed(1)} ms en el servidor, ${perfil.hechas.length} sentencias (suma ${perfil.hechas.reduce((t, x) => t + x.ms, 0).toFixed(1)} ms); la más lenta ${lenta.ms.toFixed(1)} ms [${String(p.table)} key=${String(p.key)} rows=${String(p.rows)} ${String(p.Extra ?? '')}]: ${lenta.sql.replace(/\s+/g, ' ').slice(0, 160)}`,
        );
      }
      const html = ultima.tipo.startsWith('text/html');
      const estado = `${ultima.status}${html ? '' : '*'}${ultima.alerta ? '!' : ''}`;
      if (ultima.alerta) perfiles.push(`${nombrePagina}: la página avisa «${ultima.alerta.trim()}»`);
      const p95 = percentil(srvMs, 0.95);
      if (ultima.status === 200) peor = Math.max(peor, p95);
      filas.push(
        `${nombrePagina.padEnd(38)} ${estado.padEnd(4)} ${(ultima.bytes / 1024).toFixed(1).padStart(6)}  ${percentil(srvMs, 0.5).toFixed(1).padStart(9)} ms ${p95.toFixed(1).padStart(5)} ms ${Math.max(
          ...srvMs,
        )
          .toFixed(1)
          .padStart(
            5,
          )} ms  ${percentil(cliMs, 0.5).toFixed(1).padStart(8)} ms ${percentil(cliMs, 0.95).toFixed(1).padStart(5)} ms${ultima.status === 200 ? '' : `  (${ruta})`}`,
      );
    }
    process.stdout.write(`${cabecera}\n${filas.join('\n')}\n`);
    process.stdout.write(`sentencias de la vuelta más rápida de 5 por página:\n  ${perfiles.join('\n  ')}\n`);
    process.stdout.write(
      `${VUELTAS} vueltas por página tras ${CALENTAMIENTO} de calentamiento; * = no HTML, ! = con aviso de error; p95 sólo de las páginas con 200 (límite ${LIMITE_MS} ms)\n`,
    );
    process.stdout.write(
      `carga promedio (1, 5, 15 min): ${loadavg()
        .map((x) => x.toFixed(2))
        .join(', ')}\n`,
    );
    if (oido.avisos.length)
      process.stdout.write(`avisos del servidor (${oido.avisos.length}), el primero: ${oido.avisos[0]}\n`);
    process.stdout.write(`consola_paginas_p95_ms=${peor.toFixed(2)}\n`);
  } finally {
    if (servidor) {
      servidor.closeAllConnections();
      await new Promise((r) => servidor!.close(r));
    }
    await cerrarCliente?.();
    if (temporal) {
      await detener(temporal.hijo);
      rmSync(temporal.dir, { recursive: true, force: true });
    }
    await db.destroy();
    await borrarBase(url);
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
