import { randomBytes } from 'node:crypto';
import type { Alcance, Modo } from '../../../dominio/alcance';
import { ErrorNegocio } from '../../../dominio/errores';
import { ErrorPacNoConfigurado } from '../../../pac/puerto';
import { crearBoveda } from '../../../seguridad/boveda';
import { crearServicioCertificados, crearVerificadorCsd } from '../../../servicios/certificados';
import { crearServicioClientes } from '../../../servicios/clientes';
import { crearServicioResumen } from '../../../servicios/resumen';
import { crearServicioCuenta } from '../../../servicios/cuenta';
import { crearServicioEventos } from '../../../servicios/eventos';
import { crearServicioFacturas } from '../../../servicios/facturas';
import type { FacturaNueva } from '../../../servicios/facturas/armar';
import { crearServicioLlaves } from '../../../servicios/llaves';
import { crearServicioOrganizaciones } from '../../../servicios/organizaciones';
import { crearServicioProductos } from '../../../servicios/productos';
import { crearServicioPagos, type RegistradorPagos } from '../../../servicios/pagos';
import { crearServicioWebhooks } from '../../../servicios/webhooks';
import type { Resolver } from '../../../webhooks/red';
import { catalogosCsv, clavesVigentes } from '../catalogos-csv';
import { crearServicioAutofactura } from '../../../servicios/autofactura';
import { crearServicioLogos } from '../../../servicios/logos';
import { archivoSat, CONTRASENA_PRUEBA, CSD_VALIDO } from '../certificados';
import { CLIENTE, ORGANIZACION, PRODUCTO } from '../cuentas';
import { crearActividades } from '../../../activities';
import { crearLogger } from '../../../log/logger';
import { crearColaPdfTemporal } from '../../../temporal/pdf';
import { crearReanudador } from '../../../temporal/reanudador';
import type { EntradaPago } from '../../../activities/pagos';
import type { EntradaTimbrado } from '../../../activities/timbrado';
import type { SolicitudPago } from '../../../dominio/pago';
import { crearCorreoEnMemoria } from './correo';
import { crearEnviadorEnMemoria } from './enviador';
import { crearServicioCorreos } from '../../../servicios/correos';
import { crearServicioRecibos } from '../../../servicios/recibos';
import { crearServicioFacturasGlobales } from '../../../servicios/facturas-globales';
import type { ProgramacionGlobalPendiente } from '../../../db/repositorios/organizaciones';
import { alcance, crearMemoria, type Memoria } from './index';
import { crearMetricasEnMemoria } from './metricas';
import { crearPacEnMemoria } from './pac';
import { crearGeneradorPdfEnMemoria, navegadorEnMemoria } from './pdf';
import { crearCanceladorEnMemoria, crearTimbradorEnMemoria } from './procesos';
import { crearClienteTemporalEnMemoria } from './temporal';

/** A fixed clock inside the SAT test CSD's validity, and the catalogs valid on that day. */
export const AHORA = CSD_VALIDO.vigente;
let catalogos: ReturnType<typeof catalogosCsv> | undefined;
export const catalogosPrueba = () => (catalogos ??= catalogosCsv(AHORA.toISOString().slice(0, 10)));

/**
 * Name resolution without a network: the tests' usual receivers resolve to public addresses and `localhost` to
 * loopback; a test writes any other host's addresses into `dns`; any other name fails as an unknown one does.
 */
function crearDnsEnMemoria() {
  const publicos = ['hooks', 'a', 'b', 'c', 'd', 'otro', 'tarde', 'nuevo'].map((n, i): [string, string[]] => [
    `${n}.ejemplo.mx`,
    [`201.175.40.${20 + i}`],
  ]);
  const dns = new Map<string, string[]>([...publicos, ['localhost', ['127.0.0.1']]]);
  const resolver: Resolver = async (host) => {
    const direcciones = dns.get(host);
    if (direcciones) return [...direcciones];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
  return { dns, resolver };
}

/**
 * The composition root of composicion/servicios.ts, over the in-memory fakes. `sinPacEn` is read on every call:
 * a test may take the PAC away after seeding. `pac` answers the SAT status queries (and, in
 * crearEntornoActividades, the activities' calls too).
 */
export function crearServiciosEnMemoria(o: { sinPacEn?: Modo[] } = {}) {
  const m = crearMemoria();
  // A test moves the clock by assigning `reloj.ahora`.
  const reloj = { ahora: AHORA };
  const ahora = () => reloj.ahora;
  const deps = { catalogos: catalogosPrueba(), ahora };
  const boveda = crearBoveda({ clave: randomBytes(32), version: 1 });
  const timbrador = crearTimbradorEnMemoria(m, o);
  const cancelador = crearCanceladorEnMemoria(m);
  const cuenta = crearServicioCuenta({ cuentas: m.cuentas, ahora });
  // What the Temporal ports were asked: the schedules synced, the claims' workflows started.
  const programaciones: ProgramacionGlobalPendiente[] = [];
  const reexpediciones: { id: string; facturaId: string; globalId: string }[] = [];
  const organizaciones = crearServicioOrganizaciones({
    ...deps,
    organizaciones: m.organizaciones,
    programador: { sincronizar: async (p) => void programaciones.push(p) },
  });
  const productos = crearServicioProductos({ ...deps, productos: m.productos, organizaciones });
  const csdVigente = crearVerificadorCsd({ certificados: m.certificados, ahora });
  const { dns, resolver } = crearDnsEnMemoria();
  const pac = crearPacEnMemoria();
  const facturas = crearServicioFacturas({
    ...deps,
    facturas: m.facturas,
    pagos: m.pagos,
    eventos: m.eventos,
    clientes: m.clientes,
    transacciones: m.transacciones,
    organizaciones,
    productos,
    timbrador,
    cancelador,
    // Live without a PAC, as pac/fabrica.ts builds it: every call throws ErrorPacNoConfigurado.
    sat: (modo, consulta) =>
      o.sinPacEn?.includes(modo) ? Promise.reject(new ErrorPacNoConfigurado()) : pac.estatusSat(consulta),
    csdVigente,
  });
  const recibos = crearServicioRecibos({
    ...deps,
    recibos: m.recibos,
    eventos: m.eventos,
    transacciones: m.transacciones,
    organizaciones,
    productos,
    boveda,
    urlAutofactura: 'https://facturas.ejemplo.mx',
    facturas: m.facturas,
    clientes: m.clientes,
    servicioFacturas: facturas,
    timbrador,
    csdVigente,
    reexpedicion: {
      iniciar: async (_a, r) =>
        void reexpediciones.push({ id: r.id, facturaId: r.facturaId, globalId: r.globalId }),
    },
  });
  const dia = AHORA.toISOString().slice(0, 10);
  return {
    m,
    programaciones,
    reexpediciones,
    reloj,
    boveda,
    timbrador,
    cancelador,
    pac,
    csdVigente,
    dns,
    cuenta,
    llaves: crearServicioLlaves({ llaves: m.llaves, cuenta, ahora }),
    organizaciones,
    productos,
    clientes: crearServicioClientes({ ...deps, clientes: m.clientes, organizaciones, cobranza: m.cobranza }),
    resumen: crearServicioResumen({ ...deps, cobranza: m.cobranza, organizaciones }),
    eventos: crearServicioEventos({ eventos: m.eventos, facturas: m.facturas, pagos: m.pagos }),
    certificados: crearServicioCertificados({ certificados: m.certificados, organizaciones, boveda, ahora }),
    facturas,
    webhooks: crearServicioWebhooks({
      webhooks: m.webhooks,
      entregas: m.entregas,
      eventos: m.eventos,
      transacciones: m.transacciones,
      boveda,
      iniciador: m.despachador,
      localesEnTest: true,
      resolver,
      // A retry-now answers at once: the fakes' workflows make no attempt by themselves.
      esperaReintentoMs: 0,
      ahora,
    }),
    correos: crearServicioCorreos({
      correos: m.correos,
      facturas: m.facturas,
      transacciones: m.transacciones,
      iniciador: m.despachador,
    }),
    recibos,
    facturasGlobales: crearServicioFacturasGlobales({
      ...deps,
      recibos: m.recibos,
      globales: m.facturasGlobales,
      facturas: m.facturas,
      clientes: m.clientes,
      transacciones: m.transacciones,
      organizaciones,
      servicioFacturas: facturas,
      timbrador,
      csdVigente,
    }),
    logos: crearServicioLogos({ logos: m.logos, organizaciones, ahora }),
    autofactura: crearServicioAutofactura({
      ...deps,
      recibos: m.recibos,
      servicioRecibos: recibos,
      facturas: m.facturas,
      servicioFacturas: facturas,
      organizaciones,
      logos: m.logos,
      listas: {
        regimenesFiscales: () =>
          clavesVigentes('regimen_fiscal', dia).map((c) => deps.catalogos.regimenFiscal(c)!),
        usosCfdi: () => clavesVigentes('uso_cfdi', dia).map((c) => deps.catalogos.usoCfdi(c)!),
      },
    }),
  };
}

export type ServiciosEnMemoria = ReturnType<typeof crearServiciosEnMemoria>;

/** An organization with the SAT's valid test CSD, a client and a product, in scope `a`: ready to invoice. */
export async function sembrar(s: ServiciosEnMemoria, a: Alcance, o: { certificado?: boolean } = {}) {
  const org = await s.organizaciones.crear(a, ORGANIZACION);
  // The SAT's test CSD is refused in live mode: live scenarios go without one.
  const cert =
    o.certificado === false
      ? undefined
      : await s.certificados.crear(a, {
          organizacion: org.id,
          cer: archivoSat(CSD_VALIDO.cer),
          llave: archivoSat(CSD_VALIDO.key),
          contrasena: CONTRASENA_PRUEBA,
        });
  const cli = await s.clientes.crear(a, { ...CLIENTE, organizacion: org.id });
  // The shared fixture is plain JSON for the HTTP tests; its tax literal types are widened there.
  const entrada = { ...PRODUCTO, organizacion: org.id } as Parameters<
    ServiciosEnMemoria['productos']['crear']
  >[1];
  const prod = await s.productos.crear(a, entrada);
  return { org: org.id, cert: cert?.id, cli: cli.id, prod: prod.id };
}

/** The create request of an invoice to the seeded client (by RFC) for two of the seeded product. */
export const solicitudFactura = (
  ids: { org: string; prod: string },
  extra: Partial<FacturaNueva> = {},
): FacturaNueva => ({
  organizacion: ids.org,
  tipo: 'ingreso',
  cliente: CLIENTE.rfc,
  forma_pago: '03',
  conceptos: [{ producto: ids.prod, cantidad: 2 }],
  ...extra,
});

/** The ErrorNegocio `p` rejects with (any other outcome fails the test). */
export async function errorNegocio(p: Promise<unknown>): Promise<ErrorNegocio> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ErrorNegocio) return e;
    throw e;
  }
  throw new Error('se esperaba un ErrorNegocio');
}

/** A refusal that leaves every table exactly as it was. */
export async function rechazoSinEscrituras(m: Memoria, f: () => Promise<unknown>): Promise<ErrorNegocio> {
  const antes = m.almacen.volcado();
  const e = await errorNegocio(f());
  expect(m.almacen.volcado()).toBe(antes);
  return e;
}

/**
 * Every activity over the same fakes as the services, with a movable clock: the services seed invoices, the
 * activities move them on as the workflows would.
 */
export async function crearEntornoActividades() {
  const s = crearServiciosEnMemoria();
  const a = alcance();
  const ids = await sembrar(s, a);
  const pac = s.pac;
  const pdf = crearGeneradorPdfEnMemoria();
  const enviador = crearEnviadorEnMemoria();
  const correo = crearCorreoEnMemoria();
  const reloj = s.reloj;
  const temporal = crearClienteTemporalEnMemoria();
  const metricas = crearMetricasEnMemoria();
  const act = crearActividades({
    facturas: s.m.facturas,
    eventos: s.m.eventos,
    certificados: s.m.certificados,
    organizaciones: s.m.organizaciones,
    pagos: s.m.pagos,
    recibos: s.m.recibos,
    facturasGlobales: s.m.facturasGlobales,
    globales: s.facturasGlobales,
    esperaEstadoMs: 1,
    transacciones: s.m.transacciones,
    sondas: s.m.sondas,
    entregas: s.m.entregas,
    webhooks: s.m.webhooks,
    despachador: s.m.despachador,
    correos: s.m.correos,
    correoPara: () => correo,
    remitente: 'facturas@cfdi.example.mx',
    esperaPdfMs: 1,
    reanudador: crearReanudador({
      cliente: temporal.cliente,
      taskQueue: 'cfdi',
      facturas: s.m.facturas,
      pagos: s.m.pagos,
      recibos: s.m.recibos,
      organizaciones: s.m.organizaciones,
      programador: { sincronizar: async (p) => void s.programaciones.push(p) },
      cancelacion: { intervaloSondeoMs: 1000, plazoMs: 60_000 },
      logger: crearLogger('prueba', 'silent'),
    }),
    enviarWebhook: enviador.enviar,
    webhooksLocalesEnTest: true,
    boveda: s.boveda,
    catalogos: catalogosPrueba(),
    pacPara: () => pac,
    pdf,
    colaPdf: crearColaPdfTemporal({ cliente: temporal.cliente, taskQueue: 'cfdi' }),
    navegador: navegadorEnMemoria({ version: 'HeadlessChrome/142.0' }),
    identidadWorker: 'worker-prueba',
    metricas,
    ahora: () => reloj.ahora,
  });
  const entrada = (facturaId: string): EntradaTimbrado => ({ facturaId, cuentaId: a.cuentaId, modo: a.modo });
  /** An invoice of the seeded client and product (stamped at once unless the fake Timbrador says otherwise). */
  const facturar = async (extra: Partial<FacturaNueva> = {}) =>
    (await s.facturas.crear(a, solicitudFactura(ids, extra))).factura;
  /** A payment request as the API stores it, and the payment workflow's input for it. */
  const pedirPago = async (
    items: { factura: string; imp_pagado: string }[],
    o: Partial<SolicitudPago> = {},
  ): Promise<EntradaPago> => {
    const id = `pago_${String(Math.random()).slice(2, 12)}`;
    await s.m.pagos.crear(a, {
      id,
      organizacion_id: ids.org,
      solicitud: {
        serie: 'P',
        fecha_pago: reloj.ahora.toISOString().slice(0, 19),
        forma_pago: '03',
        moneda: 'MXN',
        decimales_moneda: 2,
        tipo_cambio: null,
        monto: items.reduce((t, i) => t + Number(i.imp_pagado), 0).toFixed(2),
        facturas_pagadas: items.map((i) => ({ ...i, equivalencia: null })),
        ...o,
      },
    });
    return { pagoId: id, cuentaId: a.cuentaId, modo: a.modo };
  };
  /** The payments service over these fakes; `registrador` stands for the payment workflow's start. */
  const servicioPagos = (registrador: RegistradorPagos) =>
    crearServicioPagos({
      pagos: s.m.pagos,
      facturas: s.m.facturas,
      organizaciones: s.organizaciones,
      catalogos: catalogosPrueba(),
      timbrador: s.timbrador,
      csdVigente: s.csdVigente,
      registrador,
      transacciones: s.m.transacciones,
      ahora: () => reloj.ahora,
    });
  return {
    s,
    m: s.m,
    a,
    ids,
    pac,
    pdf,
    enviador,
    correo,
    reloj,
    act,
    entrada,
    facturar,
    pedirPago,
    servicioPagos,
    temporal,
    metricas,
  };
}

/** Registers a `beforeEach` that gives every test fresh services and one organization (ORGANIZACION). */
export function entornoConOrganizacion() {
  const x = {} as { s: ServiciosEnMemoria; org: string };
  beforeEach(async () => {
    x.s = crearServiciosEnMemoria();
    x.org = (await x.s.organizaciones.crear(alcance(), ORGANIZACION)).id;
  });
  return x;
}
