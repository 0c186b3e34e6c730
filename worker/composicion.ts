import type { MetricMeter } from '@temporalio/common';
import type { Knex } from 'knex';
import type { Modo } from '../dominio/alcance';
import type { DepsActividades } from '../activities';
import { crearRepositorioCertificados } from '../db/repositorios/certificados';
import { crearRepositorioFacturas } from '../db/repositorios/facturas';
import { crearRepositorioOrganizaciones } from '../db/repositorios/organizaciones';
import { crearRepositorioPagos } from '../db/repositorios/pagos';
import { crearRepositorioSondas } from '../db/repositorios/sondas';
import { crearRepositorioWebhooks } from '../db/repositorios/webhooks';
import type { PuertoCorreo } from '../correo/puerto';
import type { PuertoPac } from '../pac/puerto';
import type { Navegador } from '../pdf/navegador';
import { RenderizadorPdf } from '../pdf/renderizador';
import { htmlRepresentacion, type CatalogoDescripcion, type Descripciones } from '../pdf/representacion';
import type { Logger } from '../log/logger';
import type { Boveda } from '../seguridad/boveda';
import type { SondeoCancelacion } from '../temporal/cancelador';
import { crearSalidaDeEventos, type TemporalEntregas } from '../temporal/despachador';
import { crearColaPdfTemporal } from '../temporal/pdf';
import { crearReanudador } from '../temporal/reanudador';
import { crearRepositorioRecibos } from '../db/repositorios/recibos';
import { crearRepositorioFacturasGlobales } from '../db/repositorios/facturas-globales';
import type { OpcionesPacs } from '../pac/fabrica';
import { crearServicios } from '../composicion/servicios';
import { crearCanceladorTemporal } from '../temporal/cancelador';
import { crearProgramadorGlobal } from '../temporal/programaciones-globales';
import { crearRegistradorPagosTemporal } from '../temporal/registrador-pagos';
import { crearTimbradorTemporal } from '../temporal/timbrador';
import { enviarWebhook } from '../webhooks/enviar';
import { crearMedidorPac, crearMetricasActividades } from './metricas';

/** How long a service called from an activity waits on the workflow it starts: the activity polls after. */
const ESPERA_INICIO_MS = 1000;

/** The worker's composition root: the same wiring for the worker process and the integration tests. */
export function crearDepsActividades(o: {
  db: Knex;
  navegador: Navegador;
  catalogos: Parameters<typeof crearServicios>[0]['catalogos'];
  boveda: Boveda;
  pacPara: (modo: Modo) => PuertoPac;
  identidadWorker: string;
  /** Starts the delivery workflows of the events the activities write, and the workflows of waiting operations. */
  temporal: TemporalEntregas;
  /** The cancellation workflow's polling, for the cancellations the start reconciler starts. */
  cancelacion: SondeoCancelacion;
  /** The start reconciler's grace (default 1 minute). */
  graciaReanudacionMs?: number;
  logger: Logger;
  webhooksLocalesEnTest: boolean;
  /** The Temporal runtime's metric meter: our metrics leave through the SDK's Prometheus endpoint. */
  metricas: MetricMeter;
  /** The SMTP server the receivers' emails of each mode go through, and their From address. */
  correoPara(modo: Modo): PuertoCorreo;
  remitente: string;
  /** The PACs as the API's services see them (the global invoice's steps run the services' rules). */
  opcionesPac: Pick<OpcionesPacs, 'pac' | 'sandbox'>;
}): DepsActividades {
  const renderizador = new RenderizadorPdf(o.navegador);
  const c = o.catalogos;
  // The printed representation shows each code with its catalog description.
  const lecturas: Partial<
    Record<CatalogoDescripcion, (clave: string) => { descripcion: string } | undefined>
  > = {
    regimen_fiscal: (k) => c.regimenFiscal(k),
    uso_cfdi: (k) => c.usoCfdi(k),
    forma_pago: (k) => c.formaPago(k),
    metodo_pago: (k) => c.metodoPago(k),
    moneda: (k) => c.moneda(k),
    clave_unidad: (k) => c.claveUnidad(k),
    objeto_imp: (k) => c.objetoImp(k),
    exportacion: (k) => c.exportacion(k),
    tipo_relacion: (k) => c.tipoRelacion(k),
  };
  const descripciones: Descripciones = (catalogo, clave) => lecturas[catalogo]?.(clave)?.descripcion;
  const { db, temporal, logger, cancelacion, graciaReanudacionMs, metricas, pacPara, opcionesPac, ...resto } =
    o;
  const medirPac = crearMedidorPac(metricas);
  const salida = crearSalidaDeEventos(db, { ...temporal, logger });
  const facturas = crearRepositorioFacturas(db);
  const pagos = crearRepositorioPagos(db);
  const organizaciones = crearRepositorioOrganizaciones(db);
  const recibos = crearRepositorioRecibos(db);
  // The services, for the global invoice's workflows: the same rules the API runs, started and waited from here
  // (an activity waits a second at most for a stamping it starts; it polls MySQL for the outcome).
  const { cliente, taskQueue } = temporal;
  const servicios = crearServicios({
    db,
    catalogos: o.catalogos,
    boveda: o.boveda,
    timbrador: crearTimbradorTemporal({
      cliente,
      taskQueue,
      esperaMs: ESPERA_INICIO_MS,
      pdfEsperaMs: ESPERA_INICIO_MS,
      pacLiveConfigurado: Boolean(opcionesPac.pac.live),
    }),
    cancelador: crearCanceladorTemporal({ cliente, taskQueue, esperaMs: ESPERA_INICIO_MS, ...cancelacion }),
    registradorPagos: crearRegistradorPagosTemporal({ cliente, taskQueue, esperaMs: ESPERA_INICIO_MS }),
    temporal,
    logger,
    webhooksLocalesEnTest: o.webhooksLocalesEnTest,
    pac: opcionesPac,
    urlAutofactura: '',
  });
  return {
    ...resto,
    pacPara: (modo) => medirPac(pacPara(modo), modo),
    metricas: crearMetricasActividades(metricas),
    facturas,
    reanudador: crearReanudador({
      cliente: temporal.cliente,
      taskQueue: temporal.taskQueue,
      facturas,
      pagos,
      recibos,
      organizaciones,
      programador: crearProgramadorGlobal({
        cliente,
        taskQueue,
        husoDe: (cp) => o.catalogos.codigoPostal(cp)!.huso_horario,
      }),
      cancelacion,
      logger,
      graciaMs: graciaReanudacionMs,
    }),
    globales: servicios.facturasGlobales,
    recibos,
    facturasGlobales: crearRepositorioFacturasGlobales(db),
    sondas: crearRepositorioSondas(db),
    ...salida,
    webhooks: crearRepositorioWebhooks(db),
    enviarWebhook,
    certificados: crearRepositorioCertificados(db),
    pagos,
    organizaciones,
    colaPdf: crearColaPdfTemporal(temporal),
    pdf: {
      generar: (xml, colorAcento) =>
        renderizador.renderizar(htmlRepresentacion(xml, { colorAcento, descripciones })),
    },
  };
}
