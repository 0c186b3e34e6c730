import type { Knex } from 'knex';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import type { CatalogosEnMemoria } from '../db/catalogos/memoria';
import { crearRepositorioLogos } from '../db/repositorios/logos';
import { crearServicioAutofactura } from '../servicios/autofactura';
import { crearServicioLogos } from '../servicios/logos';
import { crearRepositorioCertificados } from '../db/repositorios/certificados';
import { crearRepositorioClientes } from '../db/repositorios/clientes';
import { crearRepositorioCuentas } from '../db/repositorios/cuentas';
import { crearRepositorioFacturas } from '../db/repositorios/facturas';
import { crearRepositorioIdempotencia } from '../db/repositorios/idempotencia';
import { crearRepositorioLimites } from '../db/repositorios/limites';
import { crearRepositorioLlaves } from '../db/repositorios/llaves';
import { crearRepositorioOrganizaciones } from '../db/repositorios/organizaciones';
import { crearRepositorioPagos } from '../db/repositorios/pagos';
import { crearRepositorioProductos } from '../db/repositorios/productos';
import { crearRepositorioWebhooks } from '../db/repositorios/webhooks';
import type { Logger } from '../log/logger';
import { crearPacPara, type OpcionesPacs } from '../pac/fabrica';
import type { Boveda } from '../seguridad/boveda';
import { crearServicioAuditoria } from '../servicios/auditoria';
import { crearServicioCertificados, crearVerificadorCsd } from '../servicios/certificados';
import { crearServicioClientes } from '../servicios/clientes';
import { crearServicioCorreos } from '../servicios/correos';
import { crearServicioCuenta } from '../servicios/cuenta';
import { crearServicioEventos } from '../servicios/eventos';
import { crearServicioFacturas, type Cancelador, type Timbrador } from '../servicios/facturas';
import { crearServicioLlaves } from '../servicios/llaves';
import { crearServicioOrganizaciones } from '../servicios/organizaciones';
import { crearServicioPagos, type RegistradorPagos } from '../servicios/pagos';
import { crearServicioProductos } from '../servicios/productos';
import { crearServicioRecibos } from '../servicios/recibos';
import { crearRepositorioRecibos } from '../db/repositorios/recibos';
import { crearRepositorioFacturasGlobales } from '../db/repositorios/facturas-globales';
import { crearServicioFacturasGlobales } from '../servicios/facturas-globales';
import { crearIniciadorReexpedicion } from '../temporal/reexpedidor';
import { crearProgramadorGlobal } from '../temporal/programaciones-globales';
import { crearServicioWebhooks } from '../servicios/webhooks';
import { crearSalidaDeEventos, type TemporalEntregas } from '../temporal/despachador';
import { crearLectorHistoriasTemporal } from '../temporal/historias';
import { crearLectorFlujosTemporal } from '../temporal/flujos';
import { crearRepositorioPendientes } from '../db/repositorios/pendientes';
import { crearServicioPendientes } from '../servicios/pendientes';
import { crearServicioHistoria } from '../servicios/historia';
import { crearRepositorioUsuarios } from '../db/repositorios/usuarios';
import { crearServicioUsuarios } from '../servicios/usuarios';
import { crearRepositorioCobranza } from '../db/repositorios/cobranza';
import { crearServicioResumen } from '../servicios/resumen';

/**
 * How long a status query to the SAT may hold an API request (`GET …/estado_sat`, synchronous): past it, a 503
 * with Retry-After. The worker's PAC calls keep their own, longer bounds.
 */
export const ESPERA_SAT_MS = 10_000;

/** The composition root: repositories over the database, services over repositories. */
export function crearServicios(deps: {
  db: Knex;
  /** The rules' lookups, and the lists the self-invoicing form offers (regimes, uses of CFDI). */
  catalogos: ConsultaCatalogos & Pick<CatalogosEnMemoria, 'listar'>;
  boveda: Boveda;
  timbrador: Timbrador;
  cancelador: Cancelador;
  registradorPagos: RegistradorPagos;
  /** Delivery workflows start from here for the events the API writes, and for resends. */
  temporal: TemporalEntregas;
  logger: Logger;
  webhooksLocalesEnTest: boolean;
  /** The PAC of each mode, as the worker's: the API only asks it for the SAT's status of a CFDI. */
  pac: Pick<OpcionesPacs, 'pac' | 'sandbox'>;
  /** Origin of the self-invoicing portal in receipts' links (AUTOFACTURA_URL_BASE). */
  urlAutofactura: string;
}) {
  const { db, catalogos, boveda, timbrador, cancelador } = deps;
  const opcionesPac = { ...deps.pac, timeoutMs: ESPERA_SAT_MS, timeoutCancelacionMs: ESPERA_SAT_MS };
  // Live without credentials is a port whose every call throws ErrorPacNoConfigurado: a 503 for the client.
  const pacs = { test: crearPacPara('test', opcionesPac), live: crearPacPara('live', opcionesPac) };
  const { eventos, entregas, correos, despachador, transacciones } = crearSalidaDeEventos(db, {
    ...deps.temporal,
    logger: deps.logger,
  });
  const certificados = crearRepositorioCertificados(db);
  const csdVigente = crearVerificadorCsd({ certificados });
  const facturasRepo = crearRepositorioFacturas(db);
  const pagosRepo = crearRepositorioPagos(db);
  const llavesRepo = crearRepositorioLlaves(db);
  const cuenta = crearServicioCuenta({ cuentas: crearRepositorioCuentas(db) });
  const { cliente, taskQueue } = deps.temporal;
  const organizaciones = crearServicioOrganizaciones({
    organizaciones: crearRepositorioOrganizaciones(db),
    catalogos,
    programador: crearProgramadorGlobal({
      cliente,
      taskQueue,
      husoDe: (cp) => catalogos.codigoPostal(cp)!.huso_horario,
    }),
    logger: deps.logger,
  });
  const recibosRepo = crearRepositorioRecibos(db);
  const clientesRepo = crearRepositorioClientes(db);
  const cobranza = crearRepositorioCobranza(db);
  const productos = crearServicioProductos({
    productos: crearRepositorioProductos(db),
    organizaciones,
    catalogos,
  });
  const facturas = crearServicioFacturas({
    facturas: facturasRepo,
    pagos: pagosRepo,
    transacciones,
    eventos,
    clientes: clientesRepo,
    organizaciones,
    productos,
    catalogos,
    timbrador,
    cancelador,
    sat: (modo, consulta) => pacs[modo].estatusSat(consulta),
    csdVigente,
  });
  const logosRepo = crearRepositorioLogos(db);
  const recibos = crearServicioRecibos({
    recibos: recibosRepo,
    reexpedicion: crearIniciadorReexpedicion({ cliente, taskQueue }),
    eventos,
    transacciones,
    organizaciones,
    productos,
    catalogos,
    boveda,
    urlAutofactura: deps.urlAutofactura,
    facturas: facturasRepo,
    clientes: clientesRepo,
    servicioFacturas: facturas,
    timbrador,
    csdVigente,
  });
  const usuariosRepo = crearRepositorioUsuarios(db);
  const historias = crearLectorHistoriasTemporal(deps.temporal.cliente);
  const historia = crearServicioHistoria({
    facturas: facturasRepo,
    pagos: pagosRepo,
    eventos,
    entregas,
    correos,
    llaves: llavesRepo,
    usuarios: usuariosRepo,
    flujos: historias,
  });
  return {
    llavesRepo,
    /** The console's people and their sessions. */
    usuarios: crearServicioUsuarios({ usuarios: usuariosRepo, liveHabilitado: cuenta.liveHabilitado }),
    /** The rate limits, shared by every API replica through the database. */
    limites: crearRepositorioLimites(db),
    idempotencia: crearRepositorioIdempotencia(db, boveda),
    cuenta,
    llaves: crearServicioLlaves({ llaves: llavesRepo, cuenta }),
    organizaciones,
    clientes: crearServicioClientes({ clientes: clientesRepo, organizaciones, catalogos, cobranza }),
    /** The billing summary of a dashboard (`GET /v1/resumen`). */
    resumen: crearServicioResumen({ cobranza, organizaciones, catalogos }),
    productos,
    eventos: crearServicioEventos({ eventos, facturas: facturasRepo, pagos: pagosRepo }),
    auditoria: crearServicioAuditoria({
      facturas: facturasRepo,
      pagos: pagosRepo,
      eventos,
      entregas,
      correos,
      historias,
      historia: historia.historia,
    }),
    historia,
    facturas,
    pendientes: crearServicioPendientes({
      pendientes: crearRepositorioPendientes(db),
      organizaciones,
      flujos: crearLectorFlujosTemporal(cliente),
    }),
    webhooks: crearServicioWebhooks({
      webhooks: crearRepositorioWebhooks(db),
      entregas,
      eventos,
      transacciones,
      boveda,
      iniciador: despachador,
      localesEnTest: deps.webhooksLocalesEnTest,
    }),
    correos: crearServicioCorreos({
      correos,
      facturas: facturasRepo,
      transacciones,
      iniciador: despachador,
    }),
    certificados: crearServicioCertificados({
      certificados,
      organizaciones,
      boveda,
    }),
    recibos,
    logos: crearServicioLogos({ logos: logosRepo, organizaciones }),
    autofactura: crearServicioAutofactura({
      recibos: recibosRepo,
      servicioRecibos: recibos,
      facturas: facturasRepo,
      servicioFacturas: facturas,
      organizaciones,
      logos: logosRepo,
      catalogos,
      listas: {
        regimenesFiscales: () => catalogos.listar('regimenes_fiscales'),
        usosCfdi: () => catalogos.listar('usos_cfdi'),
      },
    }),
    facturasGlobales: crearServicioFacturasGlobales({
      recibos: recibosRepo,
      globales: crearRepositorioFacturasGlobales(db),
      facturas: facturasRepo,
      clientes: clientesRepo,
      transacciones,
      organizaciones,
      catalogos,
      servicioFacturas: facturas,
      timbrador,
      csdVigente,
    }),
    pagos: crearServicioPagos({
      pagos: pagosRepo,
      facturas: facturasRepo,
      organizaciones,
      catalogos,
      timbrador,
      registrador: deps.registradorPagos,
      csdVigente,
      transacciones,
    }),
  };
}

export type Servicios = ReturnType<typeof crearServicios>;
