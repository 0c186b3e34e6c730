import type { Server } from 'node:http';
import express, { type Express, type RequestHandler } from 'express';
import { fechaCfdi } from '../../cfdi/fecha';
import type { CatalogosValidacion } from '../../cfdi/validacion';
import { CatalogosEnMemoria } from '../../db/catalogos/memoria';
import type { Knex } from '../../db/conexion';
import type { Logger } from '../../log/logger';
import { RUTAS, type Servicio } from '../finkok/protocolo';
import { AlmacenTimbresMysql } from './almacen';
import { cargarOCrearCertificadoSat } from './certificado-sat';
import type { ConfigSandbox } from './configuracion';
import { cadenaSoap } from './despacho';
import { dormir, EstadoFallas, rutasFallas } from './fallas';
import { VERSION_SANDBOX } from './identidad';
import { crearCancelSignature } from './manejadores/cancelar';
import { crearQueryPending, crearStamped } from './manejadores/consultar';
import { crearGetSatStatus } from './manejadores/estatus-sat';
import { crearRespuestaReceptor, type RespuestaReceptor } from './manejadores/receptor';
import { Llamadas, rutasLlamadas } from './llamadas';
import { crearTimbrar } from './manejadores/timbrar';
import { soloOperador } from './operador';
import { perezoso } from './recurso';
import type { Reloj } from './reglas-cancelacion';
import type { ManejadorSoap } from './respuesta';
import { Retenidas } from './retenidas';
import type { Operacion } from './solicitud';

export interface DepsSandboxPac {
  /** The PAC_SANDBOX_* settings, read by the caller (leerConfigSandbox). */
  config: ConfigSandbox;
  /** Where the stamps live (pac_sandbox_timbres, from the migrations); the caller opens and closes it. */
  db: Knex;
  logger: Logger;
  /** The catalog lookups validarComprobante needs; loaded from `db` when absent. */
  catalogos?: CatalogosValidacion | Promise<CatalogosValidacion>;
  /** The clock (tests). */
  ahora?: () => Date;
}

export type ServidorPac = Express & {
  /** Resolves once the table is there and the SAT certificate and the catalogs are loaded. */
  preparar(): Promise<void>;
  /** Drops the requests it is holding (SANDBOX:TIMEOUT); its HTTP server's close() does it too. */
  cerrar(): Promise<void>;
};

/**
 * The sandbox PAC: a real HTTP service speaking Finkok's SOAP protocol on Finkok's paths, so test mode
 * exercises the production adapter. This only wires the pieces: one handler per operation
 * (manejadores/), the dispatcher (despacho.ts) and the fault injection (fallas.ts). See README.md.
 */
export function crearSandboxPac(deps: DepsSandboxPac): ServidorPac {
  const { config, db, logger } = deps;
  const ahora = deps.ahora ?? (() => new Date());
  const reloj = (): Reloj => ({
    ahora: ahora(),
    plazoAceptacionMs: config.plazoAceptacionMs,
    ventanaSinAceptacionMs: config.ventanaSinAceptacionMs,
  });
  const fechaLocal = () => fechaCfdi(ahora(), 'Tiempo del Centro');

  const almacen = new AlmacenTimbresMysql(db);
  const certificado = perezoso(() => cargarOCrearCertificadoSat(config.rutaDatos));
  const catalogos = perezoso(async () => deps.catalogos ?? CatalogosEnMemoria.cargar(db));
  const preparar = async () => {
    await Promise.all([almacen.verificarTabla(), certificado(), catalogos()]);
  };
  // Started now so the first stamp does not pay for it; a failure is logged and retried on demand.
  preparar().catch((e: unknown) => logger.error({ err: e }, 'PAC sandbox: preparación fallida'));

  const comunes = { almacen, fechaLocal, logger };
  const timbrado = { ...comunes, certificado, catalogos, ahora, esperar: dormir };
  const cancelacion = { ...comunes, reloj };
  const manejadores: Record<Operacion, ManejadorSoap> = {
    stamp: crearTimbrar(timbrado, false),
    quick_stamp: crearTimbrar(timbrado, true),
    stamped: crearStamped(comunes),
    query_pending: crearQueryPending(comunes),
    cancel_signature: crearCancelSignature(cancelacion),
    get_sat_status: crearGetSatStatus(cancelacion),
  };
  const fallas = new EstadoFallas(config.falla);
  const retenidas = new Retenidas(config.esperaMaximaMs);
  const llamadas = new Llamadas();
  const despacho = { config, manejadores, fallas, retenidas, llamadas, ahora, fechaLocal, logger };

  const app = express();
  app.disable('x-powered-by');

  // Healthy means a stamp can be made now: it still answers under an injected outage (it is the control
  // channel), but 503, so whoever probes it (the API's /salud) sees the PAC down as an integrator would.
  app.get('/salud', async (_req, res) => {
    const modo = fallas.actual(ahora());
    const preparado = await preparar().then(
      () => true,
      () => false,
    );
    const ok = modo === 'normal' && preparado;
    res.status(ok ? 200 : 503).json({
      estado: ok ? 'ok' : 'degradado',
      version: VERSION_SANDBOX,
      fallas: modo,
      ...(preparado ? {} : { preparacion: 'fallida' }),
    });
  });
  for (const servicio of Object.keys(RUTAS) as Servicio[]) {
    app.post([RUTAS[servicio], `${RUTAS[servicio]}.wsdl`], ...cadenaSoap(servicio, despacho));
  }

  app.get('/sat/certificado', async (_req, res) => {
    res.type('application/pkix-cert').send((await certificado()).der);
  });
  app.get('/sat/certificado.pem', async (_req, res) => {
    res.type('application/x-pem-file').send((await certificado()).pem);
  });

  app.use(rutasFallas(fallas, ahora, logger, soloOperador(config.tokenOperador, logger)));
  app.use(rutasLlamadas(llamadas));
  const receptor = crearRespuestaReceptor(cancelacion);
  const responderComoReceptor =
    (respuesta: RespuestaReceptor): RequestHandler =>
    async (req, res) => {
      const r = await receptor(String(req.params['uuid'] ?? ''), respuesta);
      res.status(r.estado).json(r.cuerpo);
    };
  app.post('/sandbox/cancelaciones/:uuid/aceptar', responderComoReceptor('aceptar'));
  app.post('/sandbox/cancelaciones/:uuid/rechazar', responderComoReceptor('rechazar'));

  app.use((req, res) => {
    logger.info({ metodo: req.method, ruta: req.path }, 'ruta desconocida');
    res.status(404).json({ error: 'ruta desconocida' });
  });

  const cerrar = async () => retenidas.soltar();
  // Held requests must not keep the HTTP server's close() waiting for minutes.
  const escucharOriginal = app.listen.bind(app) as (...args: unknown[]) => Server;
  const escuchar = (...args: unknown[]): Server => {
    const servidor = escucharOriginal(...args);
    const cerrarOriginal = servidor.close.bind(servidor);
    servidor.close = ((cb?: (err?: Error) => void) => {
      retenidas.soltar();
      return cerrarOriginal(cb);
    }) as typeof servidor.close;
    return servidor;
  };
  return Object.assign(app, { listen: escuchar as unknown as Express['listen'], preparar, cerrar });
}
