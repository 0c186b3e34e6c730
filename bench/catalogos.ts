import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { cargarConfigSinSecretos } from '../config/config';
import { cargarCatalogos } from '../db/catalogos/cargar';
import { asegurarBase, crearKnex } from '../db/conexion';
import { migrar } from '../db/migraciones';

/*
 * Latency of GET /v1/catalogos/claves_prod_serv?q=… over real HTTP: the server runs in a child process,
 * this one drives it with CLIENTES concurrent keep-alive connections through a varied set of queries.
 * Target: p99 ≤ 10 ms. The last line is machine-readable: catalogos_p99_ms=<value>.
 */

const CLIENTES = 20;
const CALENTAMIENTO = 1_000;
const SOLICITUDES = 20_000;

// What people type into a product-code autocomplete: whole and partial words, accents or not, two
// words, code prefixes, very short prefixes and misses.
const CONSULTAS = [
  'servicio',
  'servicios',
  'servicios de',
  'facturacion',
  'facturación',
  'FACTURACIÓN',
  'factur',
  'computadora',
  'computadoras portatiles',
  'laptop',
  'leche',
  'leche entera',
  'lech',
  'queso',
  'pan',
  'tortilla',
  'agua purificada',
  'cafe',
  'café molido',
  'azucar',
  'aceite',
  'gasolina',
  'diesel',
  'papel',
  'papel bond',
  'impresora',
  'toner',
  'software',
  'licencia de software',
  'desarrollo software',
  'consultoria',
  'asesoria juridica',
  'honorarios',
  'contabilidad',
  'servicios contables',
  'auditoria',
  'mantenimiento',
  'reparacion vehiculos',
  'transporte de carga',
  'flete',
  'arrendamiento',
  'renta oficinas',
  'limpieza',
  'seguridad',
  'publicidad',
  'medicamento',
  'médico',
  'consulta medica',
  'educacion',
  'capacitación',
  'hotel',
  'restaurante',
  'alimentos',
  'silla',
  'escritorio',
  'tornillo',
  'cemento',
  'pintura',
  'electrico',
  'eléctrica',
  'telefono celular',
  'internet',
  '8411',
  '84111506',
  '841115',
  '43',
  '4321',
  '5013',
  '10101500',
  'de',
  'se',
  'ma',
  'x',
  'zzzz',
  'qwerty',
  'xyzxyz',
];

interface Listo {
  puerto: number;
  cargaMs: number;
  heapMb: number;
}

async function asegurarCatalogos(databaseUrl: string) {
  await asegurarBase(databaseUrl);
  const db = crearKnex(databaseUrl);
  try {
    await migrar(db);
    const resultados = await cargarCatalogos(db);
    const cargados = resultados.filter((r) => !r.omitido).map((r) => r.catalogo);
    console.log(cargados.length ? `catálogos cargados: ${cargados.join(', ')}` : 'catálogos ya cargados');
  } finally {
    await db.destroy();
  }
}

function arrancarServidor(databaseUrl: string): Promise<{ hijo: ChildProcess; listo: Listo }> {
  const hijo = fork(join(__dirname, 'servidor-catalogos.js'), {
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return new Promise((resolve, reject) => {
    hijo.once('message', (m) => resolve({ hijo, listo: m as Listo }));
    hijo.once('exit', (codigo) =>
      reject(new Error(`el servidor terminó antes de escuchar (código ${codigo})`)),
    );
  });
}

/** The server's CPU time since the previous call. */
function cpuServidorMs(hijo: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    hijo.once('message', (m) => resolve((m as { cpuMs: number }).cpuMs));
    hijo.send('cpu');
  });
}

/** Busy and total CPU time of the whole machine in ms (Linux), to see whether something else ran meanwhile. */
function cpuMaquinaMs(): { ocupado: number; total: number } | undefined {
  try {
    const linea = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const campos = linea.trim().split(/\s+/).slice(1).map(Number);
    const total = campos.reduce((a, b) => a + b, 0);
    // Clock ticks of 10 ms (USER_HZ = 100 on Linux); idle and iowait are not busy.
    return { ocupado: (total - campos[3]! - (campos[4] ?? 0)) * 10, total: total * 10 };
  } catch {
    return undefined;
  }
}

function solicitar(agente: http.Agent, puerto: number, ruta: string): Promise<number> {
  const inicio = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: puerto, path: ruta, agent: agente }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${ruta}: HTTP ${res.statusCode}`));
        else resolve(Number(process.hrtime.bigint() - inicio) / 1e6);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** `total` requests through CLIENTES workers that each send the next one as soon as theirs answers. */
async function carga(agente: http.Agent, puerto: number, total: number, ruta: (i: number) => string) {
  const latencias = new Float64Array(total);
  let siguiente = 0;
  const inicio = performance.now();
  const trabajador = async () => {
    for (let i = siguiente++; i < total; i = siguiente++)
      latencias[i] = await solicitar(agente, puerto, ruta(i));
  };
  await Promise.all(Array.from({ length: CLIENTES }, trabajador));
  return { latencias, segundos: (performance.now() - inicio) / 1000 };
}

function percentil(ordenadas: Float64Array, p: number): number {
  return ordenadas[Math.min(ordenadas.length - 1, Math.ceil((p / 100) * ordenadas.length) - 1)]!;
}

interface Medicion {
  p99: number;
}

/** Runs one load, prints its figures (latency, throughput, CPU per request, noise) and returns p99. */
async function medir(
  titulo: string,
  hijo: ChildProcess,
  agente: http.Agent,
  puerto: number,
  ruta: (i: number) => string,
): Promise<Medicion> {
  await carga(agente, puerto, CALENTAMIENTO, ruta);
  await cpuServidorMs(hijo);
  const cpuCliente = process.cpuUsage();
  const maquinaAntes = cpuMaquinaMs();
  const { latencias, segundos } = await carga(agente, puerto, SOLICITUDES, (i) => ruta(CALENTAMIENTO + i));
  const maquinaDespues = cpuMaquinaMs();
  const { user, system } = process.cpuUsage(cpuCliente);
  const clienteMs = (user + system) / 1000;
  const servidorMs = await cpuServidorMs(hijo);

  const ordenadas = latencias.slice().sort();
  const ms = (v: number) => v.toFixed(2);
  const porSolicitud = (cpuMs: number) => `${((cpuMs * 1000) / SOLICITUDES).toFixed(0)} µs`;
  console.log(`\n${titulo}: ${SOLICITUDES} solicitudes tras ${CALENTAMIENTO} de calentamiento`);
  console.log(
    `  p50 ${ms(percentil(ordenadas, 50))} ms, p90 ${ms(percentil(ordenadas, 90))} ms, ` +
      `p99 ${ms(percentil(ordenadas, 99))} ms, máx ${ms(ordenadas[ordenadas.length - 1]!)} ms; ` +
      `${(SOLICITUDES / segundos).toFixed(0)} solicitudes/s`,
  );
  console.log(
    `  CPU por solicitud: servidor ${porSolicitud(servidorMs)}, cliente ${porSolicitud(clienteMs)}`,
  );
  if (maquinaAntes && maquinaDespues) {
    // The machine's busy time minus what these two processes used: a busy neighbour skews the tail.
    const ajeno = maquinaDespues.ocupado - maquinaAntes.ocupado - servidorMs - clienteMs;
    const porcentaje = (100 * Math.max(0, ajeno)) / (maquinaDespues.total - maquinaAntes.total);
    console.log(`  CPU de otros procesos durante la medición: ${porcentaje.toFixed(0)} % de la máquina`);
  }
  return { p99: percentil(ordenadas, 99) };
}

async function main() {
  const config = cargarConfigSinSecretos();
  await asegurarCatalogos(config.databaseUrl);
  const { hijo, listo } = await arrancarServidor(config.databaseUrl);
  const agente = new http.Agent({ keepAlive: true, maxSockets: CLIENTES });
  try {
    console.log(
      `servidor listo: catálogos en memoria en ${listo.cargaMs.toFixed(0)} ms, heap ${listo.heapMb.toFixed(0)} MB`,
    );
    console.log(
      `máquina: ${os.cpus().length} núcleos (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}; ` +
        `${CONSULTAS.length} consultas distintas, ${CLIENTES} clientes concurrentes`,
    );
    const busqueda = await medir(
      'GET /v1/catalogos/claves_prod_serv?q=…',
      hijo,
      agente,
      listo.puerto,
      (i) => `/v1/catalogos/claves_prod_serv?q=${encodeURIComponent(CONSULTAS[i % CONSULTAS.length]!)}`,
    );
    // Every request a different (q, limite) pair whose last use is further back than the answer cache
    // holds: each one searches the index and serializes, as a first-time query does.
    const sinCache = await medir(
      'Misma ruta, cada solicitud una consulta no repetida (sin caché de respuestas)',
      hijo,
      agente,
      listo.puerto,
      (i) =>
        `/v1/catalogos/claves_prod_serv?q=${encodeURIComponent(
          CONSULTAS[Math.floor(i / 100) % CONSULTAS.length]!,
        )}&limite=${1 + (i % 100)}`,
    );
    console.log(`\np99 sin caché: ${sinCache.p99.toFixed(2)} ms`);
    console.log(`\ncatalogos_p99_ms=${busqueda.p99.toFixed(2)}`);
  } finally {
    agente.destroy();
    hijo.disconnect();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
