import { crearRepositorioSondas } from '../../db/repositorios/sondas';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, type Worker } from '@temporalio/worker';
import { crearApp } from '../../api/app';
import { PREFIJO_CUBETAS_AUTOFACTURA } from '../../api/middleware/limite-autofactura';
import { crearServidor } from '../../api/servidor';
import { crearServicios } from '../../composicion/servicios';
import { crearMetricasApi } from '../../api/metricas';
import { CatalogosEnMemoria } from '../../db/catalogos/memoria';
import { cargarConfig, type Config } from '../../config/config';
import { crearKnex, type Knex } from '../../db/conexion';
import { crearRepositorioPendientes } from '../../db/repositorios/pendientes';
import type { RepositorioLimites } from '../../db/repositorios/limites';
import { conectarTemporal } from '../../temporal/conexion';
import { crearLogger, type Logger } from '../../log/logger';
import { leerConfigSandbox } from '../../pac/sandbox/configuracion';
import { crearSandboxPac } from '../../pac/sandbox/servidor';
import { Navegador } from '../../pdf/navegador';
import { crearBoveda } from '../../seguridad/boveda';
import { crearDepsActividades } from '../../worker/composicion';
import { crearWorker, crearWorkerPdf, identidadWorker } from '../../worker/crear';
import { telemetriaWorker } from '../../worker/metricas';
import { crearPacPara } from '../../pac/fabrica';
import { crearCorreoSmtp } from '../../correo/smtp';
import { crearCanceladorTemporal } from '../../temporal/cancelador';
import { crearRegistradorPagosTemporal } from '../../temporal/registrador-pagos';
import { crearTimbradorTemporal } from '../../temporal/timbrador';
import { Almacen } from './memoria/almacen';
import { crearLimitesEnMemoria } from './memoria/limites';

let runtimeInstalado = false;

function escuchar(s: { listen: (p: number, h: string, cb: () => void) => Server }): Promise<Server> {
  return new Promise((resolve) => {
    const servidor = s.listen(0, '127.0.0.1', () => resolve(servidor));
  });
}

const urlDe = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

export interface Pila {
  config: Config;
  url: string;
  pacUrl: string;
  db: Knex;
  /** The sandbox PAC's database (its stamps): `db` unless the stack was given its own `databaseUrl`. */
  dbPac: Knex;
  cliente: Client;
  taskQueue: string;
  servicios: ReturnType<typeof crearServicios>;
  logger: Logger;
  detenerWorker(): Promise<void>;
  /** Starts a new worker on the same task queue (after detenerWorker: a worker restart). */
  arrancarWorker(): Promise<void>;
  /** The PDF queue's worker, stopped and started on its own. */
  detenerWorkerPdf(): Promise<void>;
  arrancarWorkerPdf(): Promise<void>;
  detenerPac(): Promise<void>;
  detener(): Promise<void>;
}

export interface OpcionesPila {
  /** Start the worker (default true). */
  worker?: boolean;
  /** Start the PDF queue's worker (default: as `worker`). */
  workerPdf?: boolean;
  /** Renders the PDF worker runs at once (default 2, as PDF_CONCURRENCIA). */
  pdfConcurrencia?: number;
  /** How long a read of a PDF not stored yet waits for its render (default: PDF_ESPERA_MS of the config). */
  pdfEsperaMs?: number;
  /** Start the sandbox PAC (default true). */
  pac?: boolean;
  saludTimeoutMs?: number;
  logger?: Logger;
  limite?: { porSegundo: number; rafaga: number };
  /** Failed authentications per address before 429 (default: the configuration's). */
  fallosAutenticacion?: { maximo: number; ventanaMs: number };
  /** The self-invoicing portal's limits per address (default: the configuration's). */
  autofactura?: Config['autofactura'];
  tokenOperador?: string;
  /** Balancers whose X-Forwarded-For names the client (PROXIES_CONFIABLES; default the configuration's). */
  proxiesConfiables?: string[];
  /** The API's bounded wait for stamping (default 15 s: the test machine may be loaded). */
  timbradoEsperaMs?: number;
  /** SAT status polling of cancellations awaiting the receiver (default 500 ms in tests). */
  cancelacionSondeoMs?: number;
  cancelacionPlazoMs?: number;
  /** Webhook attempt offsets in seconds (the specification's 0/5m/30m/2h/24h when absent). */
  programaEntregasS?: number[];
  /** Age after which the reconciler takes an undispatched event (default 10 s). */
  graciaDespachoMs?: number;
  /** Age after which the start reconciler takes a waiting operation (default 1 minute). */
  graciaReanudacionMs?: number;
  /**
   * The API's and worker's database (default DATABASE_URL), e.g. a private server a test restarts. The
   * sandbox PAC keeps DATABASE_URL's: it stands for an outside service that our database's faults do not touch.
   */
  databaseUrl?: string;
  /** The Temporal server (default TEMPORAL_ADDRESS), e.g. a private one a test restarts. */
  temporalAddress?: string;
  /**
   * `IP:port` of the worker's Prometheus endpoint, as WORKER_METRICAS. The Temporal runtime is installed once
   * per test file, by its first stack: only that one's option counts. Default: no exporter.
   */
  metricasWorker?: string;
  /**
   * The SMTP server the worker emails through (a Mailpit of the test's, test/support/mailpit.ts) and the email
   * workflows' retry limits. Default: a closed port (no test client has an address unless the test gives one).
   */
  correo?: { smtpUrl: string; esperaMaximaS?: number; plazoS?: number };
}

/**
 * Failed authentications are counted per client address, and every test file's client is 127.0.0.1: counted in
 * the shared database, one file's refusals would block the files running beside it. Each stack counts its own in
 * memory, as a lone API process did; the rate limit per key stays in the database (keys are per test). The shared
 * count is the repository contract's (test/repositorios/limites.test.ts) and the scale-out test's.
 */
function limitesDeLaPila(enBase: RepositorioLimites): RepositorioLimites {
  const propios = crearLimitesEnMemoria(new Almacen());
  return {
    // The self-invoicing portal's buckets are per client address too: each stack's own, for the same reason.
    tomarFicha: (a, c, t) =>
      a.cuentaId.startsWith(PREFIJO_CUBETAS_AUTOFACTURA)
        ? propios.tomarFicha(a, c, t)
        : enBase.tomarFicha(a, c, t),
    purgarCubetasInactivas: propios.purgarCubetasInactivas,
    leerFallos: propios.leerFallos,
    registrarFallo: propios.registrarFallo,
    purgarFallosAnterioresA: propios.purgarFallosAnterioresA,
  };
}

// The catalogs never change during a run: load them once for every stack of this test file.
let catalogos: Promise<CatalogosEnMemoria> | undefined;

/**
 * The real stack in this process, as `make up` runs it in separate ones: API over real HTTP, the
 * sandbox PAC over real HTTP, a worker on its own task queue, the test database and Temporal server.
 */
export async function iniciarPila(op: OpcionesPila = {}): Promise<Pila> {
  if (!runtimeInstalado) {
    Runtime.install({
      logger: new DefaultLogger('WARN'),
      ...(op.metricasWorker ? { telemetryOptions: telemetriaWorker(op.metricasWorker) } : {}),
    });
    runtimeInstalado = true;
  }
  const base = cargarConfig(process.env);
  const config: Config = {
    ...base,
    databaseUrl: op.databaseUrl ?? base.databaseUrl,
    temporal: { ...base.temporal, address: op.temporalAddress ?? base.temporal.address },
  };
  const logger = op.logger ?? crearLogger('prueba', config.logLevel);
  const taskQueue = `prueba-${randomUUID()}`;
  const sondeo = {
    intervaloSondeoMs: op.cancelacionSondeoMs ?? 500,
    plazoMs: op.cancelacionPlazoMs ?? 600_000,
  };
  const db = crearKnex(config.databaseUrl);
  const dbPac = op.databaseUrl ? crearKnex(base.databaseUrl) : db;
  const navegador = new Navegador(config.chromiumPath);

  catalogos ??= CatalogosEnMemoria.cargar(db);
  const cat = await catalogos;
  // The sandbox PAC validates with the same catalogs: one copy per test file instead of one per stack.
  const pac =
    op.pac === false
      ? undefined
      : await escuchar(crearSandboxPac({ config: leerConfigSandbox(), db: dbPac, logger, catalogos: cat }));
  const pacUrl = pac ? urlDe(pac) : 'http://127.0.0.1:9';
  const boveda = crearBoveda(config.claveMaestra);
  const smtp = crearCorreoSmtp({ url: op.correo?.smtpUrl ?? 'smtp://127.0.0.1:9' });
  const reintentos = {
    maximoEntreIntentosS: op.correo?.esperaMaximaS ?? 2,
    plazoS: op.correo?.plazoS ?? config.correo.plazoS,
  };

  let conexionWorker: NativeConnection | undefined;
  const depsWorker = async () => {
    conexionWorker ??= await NativeConnection.connect({ address: config.temporal.address });
    const clienteWorker = new Client({ connection: conexionWorker, namespace: config.temporal.namespace });
    return {
      connection: conexionWorker,
      namespace: config.temporal.namespace,
      taskQueue,
      actividades: crearDepsActividades({
        db,
        navegador,
        catalogos: cat,
        boveda,
        pacPara: (modo) => crearPacPara(modo, { pac: { ...config.pac, sandboxUrl: pacUrl } }),
        opcionesPac: { pac: { ...config.pac, sandboxUrl: pacUrl } },
        identidadWorker: identidadWorker(),
        temporal: {
          cliente: clienteWorker,
          taskQueue,
          programaS: op.programaEntregasS,
          graciaMs: op.graciaDespachoMs,
          correo: reintentos,
        },
        cancelacion: sondeo,
        graciaReanudacionMs: op.graciaReanudacionMs,
        logger,
        webhooksLocalesEnTest: true,
        metricas: Runtime.instance().metricMeter,
        correoPara: () => smtp,
        remitente: config.correo.remitente,
      }),
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    };
  };
  /** A worker that can be stopped and started again, as a process restart would. */
  const reiniciable = (crear: () => Promise<Worker>) => {
    let worker: Worker | undefined;
    let corriendo: Promise<void> | undefined;
    return {
      async arrancar() {
        worker = await crear();
        corriendo = worker.run();
      },
      async detener() {
        if (worker && worker.getState() === 'RUNNING') worker.shutdown();
        await corriendo;
      },
      corre: () => worker?.getState() === 'RUNNING',
    };
  };
  const principal = reiniciable(async () => crearWorker(await depsWorker()));
  const pdfs = reiniciable(async () =>
    crearWorkerPdf({ ...(await depsWorker()), concurrencia: op.pdfConcurrencia ?? 2 }),
  );
  if (op.worker !== false) await principal.arrancar();
  if (op.workerPdf ?? op.worker !== false) await pdfs.arrancar();

  const connection = await conectarTemporal(config.temporal.address);
  const cliente = new Client({ connection, namespace: config.temporal.namespace });
  const servicios = crearServicios({
    db,
    catalogos: cat,
    boveda,
    timbrador: crearTimbradorTemporal({
      cliente,
      taskQueue,
      esperaMs: op.timbradoEsperaMs ?? 15_000,
      pdfEsperaMs: op.pdfEsperaMs ?? config.pdfEsperaMs,
      pacLiveConfigurado: Boolean(config.pac.live),
    }),
    cancelador: crearCanceladorTemporal({
      cliente,
      taskQueue,
      esperaMs: op.timbradoEsperaMs ?? 15_000,
      ...sondeo,
    }),
    registradorPagos: crearRegistradorPagosTemporal({
      cliente,
      taskQueue,
      esperaMs: op.timbradoEsperaMs ?? 15_000,
    }),
    temporal: { cliente, taskQueue, programaS: op.programaEntregasS, correo: reintentos },
    logger,
    webhooksLocalesEnTest: true,
    pac: { pac: { ...config.pac, sandboxUrl: pacUrl } },
    urlAutofactura: config.autofacturaUrlBase,
  });
  const metricas = crearMetricasApi(crearRepositorioPendientes(db));
  const api = await escuchar(
    crearServidor({
      logger,
      catalogos: cat,
      metricas,
      app: crearApp({
        logger,
        servicios: { ...servicios, limites: limitesDeLaPila(servicios.limites) },
        metricas,
        limite: op.limite ?? config.limiteSolicitudes,
        fallosAutenticacion: op.fallosAutenticacion ?? config.fallosAutenticacion,
        autofactura: op.autofactura ?? config.autofactura,
        consola: { temporalUi: config.temporal.uiUrl, namespace: config.temporal.namespace },
        tokenOperador: op.tokenOperador ?? config.tokenOperador,
        proxiesConfiables: op.proxiesConfiables ?? config.proxiesConfiables,
        salud: {
          sondas: crearRepositorioSondas(db),
          temporal: cliente,
          taskQueue,
          pacUrl,
          timeoutMs: op.saludTimeoutMs ?? 15_000,
        },
      }),
    }),
  );

  const cerrar = (s?: Server) => new Promise<void>((r) => (s ? s.close(() => r()) : r()));

  return {
    config,
    url: urlDe(api),
    pacUrl,
    db,
    dbPac,
    cliente,
    taskQueue,
    servicios,
    logger,
    detenerWorker: principal.detener,
    // A stack started without workers gets both with its first worker, unless told otherwise.
    async arrancarWorker() {
      await principal.arrancar();
      if (op.workerPdf !== false && !pdfs.corre()) await pdfs.arrancar();
    },
    detenerWorkerPdf: pdfs.detener,
    arrancarWorkerPdf: pdfs.arrancar,
    detenerPac: () => cerrar(pac),
    async detener() {
      await Promise.all([principal.detener(), pdfs.detener()]);
      smtp.cerrar();
      await Promise.allSettled([cerrar(api), cerrar(pac), navegador.cerrar()]);
      await Promise.allSettled([
        connection.close(),
        conexionWorker?.close(),
        db.destroy(),
        dbPac === db ? undefined : dbPac.destroy(),
      ]);
    },
  };
}
