import { configuracionBalanceador, rutaHaproxy } from './balanceador';

/**
 * The processes of the service, as `make up` starts them and the scale-out test starts them too
 * (test/integration/escala.test.ts): the sandbox PAC, M workers of the main queue, K PDF workers and N API
 * replicas, with HAProxy on the public port when N > 1. One replica of each (the default) is the single-process
 * layout, unchanged: the API itself on the public port, no balancer.
 */

export interface Replicas {
  api: number;
  worker: number;
  pdf: number;
}

/** The variables `make up` reads (never a process's: docker compose scales with `--scale`). */
export const VARIABLES_REPLICAS = {
  api: 'API_REPLICAS',
  worker: 'WORKER_REPLICAS',
  pdf: 'PDF_REPLICAS',
} as const;
const MAXIMO_REPLICAS = 16;

export function leerReplicas(env: NodeJS.ProcessEnv = process.env): Replicas {
  const leer = (nombre: string) => {
    const texto = env[nombre];
    if (texto === undefined || texto === '') return 1;
    const n = Number(texto);
    if (!Number.isInteger(n) || n < 1 || n > MAXIMO_REPLICAS)
      throw new Error(`${nombre}=${texto} no es válido: debe ser un entero de 1 a ${MAXIMO_REPLICAS}`);
    return n;
  };
  return {
    api: leer(VARIABLES_REPLICAS.api),
    worker: leer(VARIABLES_REPLICAS.worker),
    pdf: leer(VARIABLES_REPLICAS.pdf),
  };
}

export interface Proceso {
  /** Its log prefix and the name a test kills it by: `api`, `api1`, `worker2`, `pdf1`, `haproxy`… */
  nombre: string;
  /** `pac`, `worker`, `pdf`, `api` or `haproxy`. */
  tipo: 'pac' | 'worker' | 'pdf' | 'api' | 'haproxy';
  comando: string;
  argumentos: string[];
  /** Added to the environment every process receives. */
  entorno: Record<string, string>;
  /** Where it answers HTTP (the PAC, the API replicas, the balancer). */
  puerto?: number;
}

export interface OpcionesProcesos {
  replicas: Replicas;
  /** The node binary that runs dist/. */
  node: string;
  /** The API's public address: the API itself with one replica, the balancer with more. */
  host: string;
  puertoPublico: number;
  /** The replicas' own ports when there are several (default: the ports after the public one). */
  puertosApi?: number[];
  /** WORKER_METRICAS of the first worker; the others take the next ports (port 0: any free one each). */
  metricasWorker: string;
  /** PROXIES_CONFIABLES already set for the API, kept beside the balancer's loopback. */
  proxiesConfiables?: string;
  /** Where the balancer's configuration file is written by the caller (`configuracionBalanceador` below). */
  rutaBalanceador: string;
}

/** `IP:port` → `IP:port+n` (port 0 stays 0: any free one). */
export function puertoMas(direccion: string, n: number): string {
  const i = direccion.lastIndexOf(':');
  const p = Number(direccion.slice(i + 1));
  return `${direccion.slice(0, i)}:${p === 0 ? 0 : p + n}`;
}

/** One replica keeps its plain name (`api`), several are numbered (`api1`, `api2`). */
const nombres = (base: string, n: number) =>
  Array.from({ length: n }, (_, i) => (n === 1 ? base : `${base}${i + 1}`));

export function procesosDelServicio(o: OpcionesProcesos): {
  procesos: Proceso[];
  /** The balancer's configuration, when there is one. */
  balanceador?: string;
} {
  const { replicas: r } = o;
  const procesos: Proceso[] = [
    { nombre: 'pac', tipo: 'pac', comando: o.node, argumentos: ['dist/pac/sandbox/main.js'], entorno: {} },
  ];
  // The PDF workers are processes of their own, as on their own machines in production: Chromium's CPU and the
  // render queue never touch the stamping workers. Metrics ports follow one another: workers, then PDF workers.
  nombres('worker', r.worker).forEach((nombre, i) =>
    procesos.push({
      nombre,
      tipo: 'worker',
      comando: o.node,
      argumentos: ['dist/worker/main.js'],
      entorno: { WORKER_COLAS: 'principal', WORKER_METRICAS: puertoMas(o.metricasWorker, i) },
    }),
  );
  nombres('pdf', r.pdf).forEach((nombre, i) =>
    procesos.push({
      nombre,
      tipo: 'pdf',
      comando: o.node,
      argumentos: ['dist/worker/main.js'],
      entorno: { WORKER_COLAS: 'pdf', WORKER_METRICAS: puertoMas(o.metricasWorker, r.worker + i) },
    }),
  );
  if (r.api === 1) {
    procesos.push({
      nombre: 'api',
      tipo: 'api',
      comando: o.node,
      argumentos: ['dist/api/main.js'],
      entorno: {},
      puerto: o.puertoPublico,
    });
    return { procesos };
  }
  const puertos = o.puertosApi ?? Array.from({ length: r.api }, (_, i) => o.puertoPublico + 1 + i);
  if (puertos.length !== r.api) throw new Error(`hacen falta ${r.api} puertos para las réplicas de la API`);
  const proxies = [o.proxiesConfiables, 'loopback'].filter(Boolean).join(',');
  nombres('api', r.api).forEach((nombre, i) =>
    procesos.push({
      nombre,
      tipo: 'api',
      comando: o.node,
      argumentos: ['dist/api/main.js'],
      // Behind the balancer only: on loopback, trusting its X-Forwarded-For.
      entorno: { PORT: String(puertos[i]), HOST: '127.0.0.1', PROXIES_CONFIABLES: proxies },
      puerto: puertos[i],
    }),
  );
  procesos.push({
    nombre: 'haproxy',
    tipo: 'haproxy',
    comando: rutaHaproxy(),
    // -db: in the foreground, stopped by a signal like every other process here.
    argumentos: ['-db', '-f', o.rutaBalanceador],
    entorno: {},
    puerto: o.puertoPublico,
  });
  const balanceador = configuracionBalanceador({
    escucha: `${o.host}:${o.puertoPublico}`,
    servidores: {
      tipo: 'fijos',
      servidores: procesos
        .filter((p) => p.tipo === 'api')
        .map((p) => ({ nombre: p.nombre, host: '127.0.0.1', puerto: p.puerto! })),
    },
  });
  return { procesos, balanceador };
}
