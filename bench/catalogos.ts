import { fork, type ChildProcess } from 'node:child_process';
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

interface Respuesta {
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

function arrancarServidor(databaseUrl: string): Promise<{ hijo: ChildProcess; datos: Respuesta }> {
  const hijo = fork(join(__dirname, 'servidor-catalogos.js'), {
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return new Promise((resolve, reject) => {
    hijo.once('message', (datos) => resolve({ hijo, datos: datos as Respuesta }));
    hijo.once('exit', (codigo) =>
      reject(new Error(`el servidor terminó antes de escuchar (código ${codigo})`)),
    );
  });
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

/** `total` requests through CLIENTES workers that each send the next query as soon as theirs answers. */
async function carga(agente: http.Agent, puerto: number, total: number, desde: number) {
  const latencias = new Float64Array(total);
  let siguiente = 0;
  const inicio = performance.now();
  const trabajador = async () => {
    for (let i = siguiente++; i < total; i = siguiente++) {
      const q = CONSULTAS[(desde + i) % CONSULTAS.length]!;
      latencias[i] = await solicitar(
        agente,
        puerto,
        `/v1/catalogos/claves_prod_serv?q=${encodeURIComponent(q)}`,
      );
    }
  };
  await Promise.all(Array.from({ length: CLIENTES }, trabajador));
  return { latencias, segundos: (performance.now() - inicio) / 1000 };
}

function percentil(ordenadas: Float64Array, p: number): number {
  return ordenadas[Math.min(ordenadas.length - 1, Math.ceil((p / 100) * ordenadas.length) - 1)]!;
}

async function main() {
  const config = cargarConfigSinSecretos();
  await asegurarCatalogos(config.databaseUrl);
  const { hijo, datos } = await arrancarServidor(config.databaseUrl);
  const agente = new http.Agent({ keepAlive: true, maxSockets: CLIENTES });
  try {
    console.log(
      `servidor listo: catálogos en memoria en ${datos.cargaMs.toFixed(0)} ms, heap ${datos.heapMb.toFixed(0)} MB`,
    );
    console.log(
      `máquina: ${os.cpus().length} núcleos (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}; ` +
        `${CONSULTAS.length} consultas distintas, ${CLIENTES} clientes concurrentes`,
    );
    await carga(agente, datos.puerto, CALENTAMIENTO, 0);
    const { latencias, segundos } = await carga(agente, datos.puerto, SOLICITUDES, CALENTAMIENTO);
    const ordenadas = latencias.slice().sort();
    const ms = (v: number) => v.toFixed(2);
    console.log(`solicitudes: ${SOLICITUDES} (tras ${CALENTAMIENTO} de calentamiento)`);
    console.log(
      `p50 ${ms(percentil(ordenadas, 50))} ms, p90 ${ms(percentil(ordenadas, 90))} ms, ` +
        `p99 ${ms(percentil(ordenadas, 99))} ms, máx ${ms(ordenadas[ordenadas.length - 1]!)} ms`,
    );
    console.log(`rendimiento: ${(SOLICITUDES / segundos).toFixed(0)} solicitudes/s`);
    console.log(`catalogos_p99_ms=${ms(percentil(ordenadas, 99))}`);
  } finally {
    agente.destroy();
    hijo.disconnect();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
