import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cargarConfigSinSecretos } from '../config/config';
import { raizProyecto, rutaDatos } from '../config/rutas';
import { registrarAtributos } from '../temporal/registrar-atributos';
import { argumentosMailpit, esperarMailpit, rutaMailpit } from './mailpit';
import { leerReplicas, procesosDelServicio } from './replicas';
import { argumentosServidorDev, esperarTemporal, rutaTemporalCli } from './temporal/servidor-dev';
import {
  pgDesdeEntorno,
  prepararNamespace,
  prepararServidorProduccion,
  procesoServidorProduccion,
} from './temporal/servidor-produccion';

/**
 * `make up`: starts the local Temporal dev server (or, with TEMPORAL=servidor, the production-grade server on
 * PostgreSQL), Mailpit (unless SMTP_URL names another SMTP server), the sandbox PAC, the worker, the PDF worker
 * and the API (API_REPLICAS, WORKER_REPLICAS and PDF_REPLICAS of each, HAProxy in front of several APIs:
 * scripts/replicas.ts), with one prefixed log stream, waits until GET /salud/detalle is healthy, prints where
 * everything is, and stops it all in reverse order on Ctrl-C.
 */
const modoTemporal = process.env.TEMPORAL ?? 'dev';
if (!['dev', 'servidor'].includes(modoTemporal)) {
  process.stderr.write(`TEMPORAL=${modoTemporal} no es válido: use dev (por omisión) o servidor\n`);
  process.exit(2);
}
const config = cargarConfigSinSecretos();
let replicas: ReturnType<typeof leerReplicas>;
try {
  replicas = leerReplicas();
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(2);
}
const raiz = raizProyecto();
const color = process.stdout.isTTY;
const COLORES: Record<string, number> = {
  temporal: 35,
  mailpit: 95,
  pac: 33,
  worker: 34,
  pdf: 94,
  api: 32,
  haproxy: 92,
  up: 36,
};
// Mailpit's fixed addresses, like the other ports of `make up`; SMTP_URL (empty counts as unset) replaces it.
const PUERTO_SMTP = 1025;
const PUERTO_MAILPIT = 8025;
const SMTP_MAILPIT = `127.0.0.1:${PUERTO_SMTP}`;
const HTTP_MAILPIT = `127.0.0.1:${PUERTO_MAILPIT}`;
const smtpExterno = process.env.SMTP_URL || undefined;
const procesos: { nombre: string; hijo: ChildProcess }[] = [];
const inicio = Date.now();
let deteniendo = false;

function linea(nombre: string, texto: string) {
  const prefijo = `${nombre.padEnd(8)}│`;
  // Replicas (api1, api2…) share their kind's color.
  const p = color ? `\x1b[${COLORES[nombre.replace(/\d+$/, '')] ?? 37}m${prefijo}\x1b[0m` : prefijo;
  // Multi-line messages (webpack's bundle report) keep the prefix on every line.
  process.stdout.write(
    texto
      .split('\n')
      .map((l) => `${p} ${l}\n`)
      .join(''),
  );
}

/**
 * pino JSON → `12:00:01 INFO mensaje clave=valor`; Mailpit's `time="…" level=info msg="…"` → `12:00:01 INFO …`;
 * anything else passes through.
 */
function legible(texto: string): string {
  const logfmt = /^time="[^"]* (\d\d:\d\d:\d\d)" level=(\w+) msg="(.*)"$/.exec(texto);
  if (logfmt)
    return `${logfmt[1]} ${logfmt[2]!.toUpperCase().padEnd(5)} ${logfmt[3]!.replace(/\\(["\\])/g, '$1')}`;
  if (!texto.startsWith('{')) return texto;
  try {
    const { time, nivel, mensaje, proceso: _p, ...resto } = JSON.parse(texto) as Record<string, unknown>;
    const hora = typeof time === 'string' ? time.slice(11, 19) : '';
    const extra = Object.entries(resto)
      .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
      .join(' ');
    return `${hora} ${String(nivel ?? '')
      .toUpperCase()
      .padEnd(5)} ${String(mensaje ?? '')} ${extra}`.trimEnd();
  } catch {
    return texto;
  }
}

function lanzar(nombre: string, comando: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  // detached: Ctrl-C reaches only this process, which then stops the children in order.
  const hijo = spawn(comando, args, {
    cwd: raiz,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  for (const flujo of [hijo.stdout, hijo.stderr]) {
    createInterface({ input: flujo }).on('line', (l) => {
      // While stopping, the dev server warns about every connection it closes: noise, not news. After a pause
      // it also warns once per minute the event reconciler's schedule missed (by design: it skips them).
      if (deteniendo && nombre === 'temporal') return;
      if (nombre === 'temporal' && l.includes('Schedule missed catchup window')) return;
      linea(nombre, legible(l));
    });
  }
  hijo.on('exit', (codigo, senal) => {
    if (deteniendo) return;
    linea('up', `${nombre} terminó inesperadamente (${senal ?? `código ${codigo}`}); deteniendo todo`);
    void detener(1);
  });
  procesos.push({ nombre, hijo });
}

function puertoOcupado(host: string, puerto: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host, port: puerto });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function detener(codigo: number) {
  if (deteniendo) return;
  deteniendo = true;
  linea('up', 'deteniendo…');
  for (const { nombre, hijo } of [...procesos].reverse()) {
    if (hijo.exitCode !== null || hijo.signalCode !== null) continue;
    const fin = new Promise((r) => hijo.once('exit', r));
    hijo.kill('SIGTERM');
    const t = setTimeout(() => hijo.kill('SIGKILL'), 15_000);
    await fin;
    clearTimeout(t);
    linea('up', `${nombre} detenido`);
  }
  process.exit(codigo);
}

/** The SMTP_URL to print: without its user and password. */
function sinCredenciales(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return '(SMTP_URL inválida)';
  }
}

async function esperarSalud(url: string, ms: number): Promise<Record<string, unknown>> {
  const limite = Date.now() + ms;
  let ultimo: unknown = 'sin respuesta';
  while (Date.now() < limite) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      ultimo = await r.json();
      if (r.ok) return ultimo as Record<string, unknown>;
    } catch (e) {
      ultimo = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`GET /salud/detalle no quedó sano en ${ms / 1000} s: ${JSON.stringify(ultimo)}`);
}

async function main() {
  process.on('SIGINT', () => void detener(0));
  process.on('SIGTERM', () => void detener(0));

  const [host, puertoTexto] = config.temporal.address.split(':');
  const puerto = Number(puertoTexto);
  const local = ['127.0.0.1', 'localhost'].includes(host ?? '');
  if (!local) {
    linea('up', `usando el servidor Temporal de TEMPORAL_ADDRESS=${config.temporal.address}`);
  } else if (await puertoOcupado(host!, puerto)) {
    linea('up', `ya hay un servidor Temporal en ${config.temporal.address}: se reutiliza`);
  } else if (modoTemporal === 'servidor') {
    // Same persistence and configuration template as the compose file's Temporal.
    const o = { base: 'temporal', baseVisibilidad: 'temporal_visibility', pg: pgDesdeEntorno() };
    linea(
      'up',
      `Temporal server en PostgreSQL ${o.pg.host}:${o.pg.puerto} (bases ${o.base}, ${o.baseVisibilidad})`,
    );
    const p = procesoServidorProduccion({ ...o, ...prepararServidorProduccion(o), ip: host!, puerto });
    lanzar('temporal', p.comando, p.argumentos, p.entorno);
  } else {
    mkdirSync(join(rutaDatos(), 'temporal'), { recursive: true });
    lanzar(
      'temporal',
      rutaTemporalCli(),
      argumentosServidorDev({
        ip: '127.0.0.1',
        puerto,
        namespace: config.temporal.namespace,
        puertoUi: Number(new URL(config.temporal.uiUrl).port || 8233),
        archivoDb: join(rutaDatos(), 'temporal', 'dev.sqlite'),
      }),
    );
  }
  // Mailpit starts beside Temporal; the workers, which send the emails, wait for both.
  if (smtpExterno) {
    linea('up', `correo por SMTP_URL=${sinCredenciales(smtpExterno)}: Mailpit no arranca`);
  } else if (await puertoOcupado('127.0.0.1', PUERTO_SMTP)) {
    linea('up', `ya hay un servidor SMTP en ${SMTP_MAILPIT}: se reutiliza (otro: defina SMTP_URL)`);
  } else {
    mkdirSync(join(rutaDatos(), 'mailpit'), { recursive: true });
    lanzar(
      'mailpit',
      rutaMailpit(),
      argumentosMailpit({
        smtp: SMTP_MAILPIT,
        http: HTTP_MAILPIT,
        archivoDb: join(rutaDatos(), 'mailpit', 'mailpit.db'),
      }),
    );
  }
  const version = await esperarTemporal(config.temporal.address, 60_000);
  linea('up', `Temporal ${version} listo en ${config.temporal.address}`);
  // The dev server creates its namespace; the production-grade one needs it created, as compose's one-shot does.
  const nuevos =
    modoTemporal === 'servidor'
      ? await prepararNamespace(config.temporal.address, config.temporal.namespace)
      : await registrarAtributos(config.temporal.address, config.temporal.namespace);
  if (nuevos.length) linea('up', `atributos de búsqueda registrados: ${nuevos.join(', ')}`);
  if (!smtpExterno) {
    await esperarMailpit({ http: HTTP_MAILPIT, smtp: SMTP_MAILPIT, ms: 30_000 });
    linea('up', `Mailpit listo: SMTP ${SMTP_MAILPIT}, UI http://${HTTP_MAILPIT}`);
  }

  const rutaBalanceador = join(rutaDatos(), 'haproxy.cfg');
  const { procesos: lista, balanceador } = procesosDelServicio({
    replicas,
    node: process.execPath,
    host: config.api.host,
    puertoPublico: config.api.port,
    metricasWorker: config.metricasWorker,
    proxiesConfiables: process.env.PROXIES_CONFIABLES,
    rutaBalanceador,
  });
  if (balanceador) writeFileSync(rutaBalanceador, balanceador);
  // With SMTP_URL set the processes inherit it; else they send to Mailpit.
  const correo: Record<string, string> = smtpExterno ? {} : { SMTP_URL: `smtp://${SMTP_MAILPIT}` };
  for (const p of lista) {
    const envia = p.tipo === 'worker' || p.tipo === 'pdf' || p.tipo === 'api';
    lanzar(p.nombre, p.comando, p.argumentos, envia ? { ...p.entorno, ...correo } : p.entorno);
  }

  const apiUrl = `http://localhost:${config.api.port}`;
  // The detailed view (components) answers on loopback, where this runs: each replica's own port, since a request
  // through the balancer carries X-Forwarded-For and is no longer taken as local.
  const apis = lista.filter((p) => p.tipo === 'api');
  const saludes = await Promise.all(
    apis.map((p) => esperarSalud(`http://127.0.0.1:${p.puerto}/salud/detalle`, 120_000)),
  );
  const salud = saludes[0]!;
  if (balanceador) await esperarSalud(`${apiUrl}/salud/vivo`, 30_000);
  const demo = JSON.parse(readFileSync(join(rutaDatos(), 'demo.json'), 'utf8')) as {
    cuenta: { id: string };
    llave: { secreto: string };
    consola?: { correo: string; contrasena_temporal: string };
  };
  const componentes = Object.entries(salud.componentes as Record<string, { estado: string }>)
    .map(([k, v]) => `${k} ${v.estado}`)
    .join(', ');
  process.stdout.write(
    [
      '',
      `  ┌─ Servicio CFDI listo en ${((Date.now() - inicio) / 1000).toFixed(1)} s ──────────────────────────────`,
      `  │ API:          ${apiUrl}   (salud: ${componentes})`,
      ...(balanceador
        ? [
            `  │ Réplicas:     ${replicas.api} API detrás de HAProxy (${apis.map((p) => p.puerto).join(', ')}), ${replicas.worker} worker, ${replicas.pdf} PDF`,
          ]
        : replicas.worker + replicas.pdf > 2
          ? [`  │ Réplicas:     ${replicas.worker} worker, ${replicas.pdf} PDF`]
          : []),
      `  │ Contrato:     ${apiUrl}/openapi.yaml`,
      modoTemporal === 'servidor'
        ? `  │ Temporal:     servidor ${config.temporal.address} en PostgreSQL (sin UI: la de docker-compose o la CLI)`
        : `  │ Temporal UI:  ${config.temporal.uiUrl}`,
      smtpExterno
        ? `  │ Correo:       ${sinCredenciales(smtpExterno)} (SMTP_URL)`
        : `  │ Mailpit UI:   http://localhost:${PUERTO_MAILPIT}   (correos enviados; SMTP ${SMTP_MAILPIT})`,
      `  │ Cuenta demo:  ${demo.cuenta.id}`,
      `  │ Llave test:   ${demo.llave.secreto}`,
      ...(demo.consola
        ? [
            `  │ Consola:      ${apiUrl}/consola   (${demo.consola.correo}; contraseña temporal ${demo.consola.contrasena_temporal}, la primera vez)`,
          ]
        : []),
      // The detailed health answers on loopback only: a replica's own port, not the balancer's.
      `  │ Prueba:       curl ${balanceador ? `http://127.0.0.1:${apis[0]!.puerto}` : apiUrl}/salud/detalle`,
      '  └─ Ctrl-C detiene todo ──────────────────────────────────────────',
      '',
    ].join('\n') + '\n',
  );
}

main().catch((e) => {
  linea('up', `error: ${(e as Error).message}`);
  void detener(1);
});
