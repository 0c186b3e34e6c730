import { crearRepositorioPendientes } from '../db/repositorios/pendientes';
import { crearRepositorioSondas } from '../db/repositorios/sondas';
import { cargarConfig, reintentosCorreo } from '../config/config';
import { CatalogosEnMemoria } from '../db/catalogos/memoria';
import { crearBoveda } from '../seguridad/boveda';
import { crearKnex } from '../db/conexion';
import { crearLogger } from '../log/logger';
import { conectarCliente } from '../temporal/conexion';
import { crearCanceladorTemporal } from '../temporal/cancelador';
import { crearRegistradorPagosTemporal } from '../temporal/registrador-pagos';
import { crearTimbradorTemporal } from '../temporal/timbrador';
import { crearApp } from './app';
import { crearServicios } from '../composicion/servicios';
import { crearMetricasApi } from './metricas';
import { crearServidor } from './servidor';

async function main() {
  const config = cargarConfig();
  const logger = crearLogger('api', config.logLevel);
  const db = crearKnex(config.databaseUrl);
  const temporal = await conectarCliente(config.temporal);
  const catalogos = await CatalogosEnMemoria.cargar(db);
  // The first autocomplete request should not pay for indexing 150k records.
  catalogos.preparar();
  const metricas = crearMetricasApi(crearRepositorioPendientes(db));
  const app = crearApp({
    logger,
    servicios: crearServicios({
      db,
      catalogos,
      boveda: crearBoveda(config.claveMaestra),
      timbrador: crearTimbradorTemporal({
        cliente: temporal,
        taskQueue: config.temporal.taskQueue,
        esperaMs: config.timbradoEsperaMs,
        pdfEsperaMs: config.pdfEsperaMs,
        pacLiveConfigurado: Boolean(config.pac.live),
      }),
      cancelador: crearCanceladorTemporal({
        cliente: temporal,
        taskQueue: config.temporal.taskQueue,
        esperaMs: config.timbradoEsperaMs,
        intervaloSondeoMs: config.cancelacionSondeoMs,
        plazoMs: config.cancelacionPlazoMs,
      }),
      registradorPagos: crearRegistradorPagosTemporal({
        cliente: temporal,
        taskQueue: config.temporal.taskQueue,
        esperaMs: config.timbradoEsperaMs,
      }),
      temporal: { cliente: temporal, taskQueue: config.temporal.taskQueue, correo: reintentosCorreo(config) },
      logger,
      webhooksLocalesEnTest: config.webhooksLocalesEnTest,
      // As the worker builds its PAC (worker/main.ts).
      pac: { pac: config.pac },
      urlAutofactura: config.autofacturaUrlBase,
    }),
    limite: config.limiteSolicitudes,
    fallosAutenticacion: config.fallosAutenticacion,
    autofactura: config.autofactura,
    consola: { temporalUi: config.temporal.uiUrl, namespace: config.temporal.namespace },
    tokenOperador: config.tokenOperador,
    proxiesConfiables: config.proxiesConfiables,
    metricas,
    salud: {
      sondas: crearRepositorioSondas(db),
      temporal,
      taskQueue: config.temporal.taskQueue,
      pacUrl: config.pac.sandboxUrl,
      timeoutMs: config.saludTimeoutMs,
    },
  });
  const servidor = crearServidor({ app, catalogos, logger, metricas });
  servidor.listen(config.api.port, config.api.host, () => {
    logger.info({ puerto: config.api.port }, `API escuchando en http://localhost:${config.api.port}`);
  });
  const detener = () => {
    logger.info('deteniendo la API');
    servidor.close(async () => {
      await Promise.allSettled([db.destroy(), temporal.connection.close()]);
      process.exit(0);
    });
  };
  process.once('SIGINT', detener);
  process.once('SIGTERM', detener);
}

main().catch((e) => {
  process.stderr.write(`api: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
