import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { crearKnex } from '../../db/conexion';
import { nuevoId } from '../../db/ids';
import { crearRepositorioCertificados } from '../../db/repositorios/certificados';
import { crearRepositorioRecibos } from '../../db/repositorios/recibos';
import { crearRepositorioFacturasGlobales } from '../../db/repositorios/facturas-globales';
import { crearRepositorioCorreos } from '../../db/repositorios/correos';
import { crearRepositorioClientes } from '../../db/repositorios/clientes';
import { esDuplicado } from '../../db/repositorios/con-alcance';
import { crearRepositorioCuentas, type FilaCuenta } from '../../db/repositorios/cuentas';
import { crearRepositorioEntregas } from '../../db/repositorios/entregas';
import { crearRepositorioEventos, type TipoEvento } from '../../db/repositorios/eventos';
import { crearRepositorioFacturas, type FacturaNueva } from '../../db/repositorios/facturas';
import { crearRepositorioIdempotencia } from '../../db/repositorios/idempotencia';
import { crearRepositorioLimites } from '../../db/repositorios/limites';
import { crearRepositorioLlaves } from '../../db/repositorios/llaves';
import { crearRepositorioLogos } from '../../db/repositorios/logos';
import { crearRepositorioOrganizaciones } from '../../db/repositorios/organizaciones';
import { crearRepositorioPagos } from '../../db/repositorios/pagos';
import { crearRepositorioProductos } from '../../db/repositorios/productos';
import { crearRepositorioSondas } from '../../db/repositorios/sondas';
import { crearRepositorioWebhooks } from '../../db/repositorios/webhooks';
import { crearRepositorioPendientes } from '../../db/repositorios/pendientes';
import { crearRepositorioUsuarios } from '../../db/repositorios/usuarios';
import { crearRepositorioCobranza } from '../../db/repositorios/cobranza';
import { crearTransacciones, type Transacciones } from '../../db/transacciones';
import type { Alcance, Modo, Origen } from '../../dominio/alcance';
import { RegistroDuplicado } from '../../dominio/errores';
import type { DocumentoFactura } from '../../dominio/factura';
import type { Pagina, Tramo } from '../../dominio/paginacion';
import type { SolicitudPago } from '../../dominio/pago';
import { crearBoveda } from '../../seguridad/boveda';
import { Almacen } from '../support/memoria/almacen';
import { crearCertificadosEnMemoria } from '../support/memoria/certificados';
import { crearClientesEnMemoria } from '../support/memoria/clientes';
import { crearCuentasEnMemoria, nuevaCuenta } from '../support/memoria/cuentas';
import { crearEntregasEnMemoria } from '../support/memoria/entregas';
import { crearCorreosEnMemoria } from '../support/memoria/correos';
import { crearEventosEnMemoria } from '../support/memoria/eventos';
import { crearFacturasEnMemoria } from '../support/memoria/facturas';
import { crearIdempotenciaEnMemoria } from '../support/memoria/idempotencia';
import { crearLimitesEnMemoria } from '../support/memoria/limites';
import { crearLlavesEnMemoria } from '../support/memoria/llaves';
import { crearLogosEnMemoria } from '../support/memoria/logos';
import { crearOrganizacionesEnMemoria } from '../support/memoria/organizaciones';
import { crearPagosEnMemoria } from '../support/memoria/pagos';
import { crearProductosEnMemoria } from '../support/memoria/productos';
import { crearRecibosEnMemoria } from '../support/memoria/recibos';
import { crearFacturasGlobalesEnMemoria } from '../support/memoria/facturas-globales';
import { crearSondasEnMemoria } from '../support/memoria/sondas';
import { crearTransaccionesEnMemoria } from '../support/memoria/transacciones';
import { crearWebhooksEnMemoria } from '../support/memoria/webhooks';
import { crearPendientesEnMemoria } from '../support/memoria/pendientes';
import { crearUsuariosEnMemoria } from '../support/memoria/usuarios';
import { crearCobranzaEnMemoria } from '../support/memoria/cobranza';

/**
 * The repository tier: every suite runs its `it`s twice, over the in-memory fake the unit tier trusts and over
 * the real repository on MariaDB. Tests isolate themselves by fresh accounts (random ids), never by truncating,
 * so the files share one database; queries across accounts (the schedules') are checked on the test's own rows.
 */

function crearRepositoriosReales(db: ReturnType<typeof crearKnex>) {
  const boveda = crearBoveda({ clave: randomBytes(32), version: 1 });
  return {
    cuentas: crearRepositorioCuentas(db),
    llaves: crearRepositorioLlaves(db),
    organizaciones: crearRepositorioOrganizaciones(db),
    logos: crearRepositorioLogos(db),
    clientes: crearRepositorioClientes(db),
    productos: crearRepositorioProductos(db),
    certificados: crearRepositorioCertificados(db),
    facturas: crearRepositorioFacturas(db),
    eventos: crearRepositorioEventos(db),
    pagos: crearRepositorioPagos(db),
    sondas: crearRepositorioSondas(db),
    webhooks: crearRepositorioWebhooks(db),
    entregas: crearRepositorioEntregas(db),
    correos: crearRepositorioCorreos(db),
    recibos: crearRepositorioRecibos(db),
    facturasGlobales: crearRepositorioFacturasGlobales(db),
    idempotencia: crearRepositorioIdempotencia(db, boveda),
    limites: crearRepositorioLimites(db),
    pendientes: crearRepositorioPendientes(db),
    usuarios: crearRepositorioUsuarios(db),
    cobranza: crearRepositorioCobranza(db),
  };
}

export type Repositorios = ReturnType<typeof crearRepositoriosReales>;
export type NombreImplementacion = 'memoria' | 'mariadb';

export interface Implementacion {
  repos: Repositorios;
  /** The transaction port over the same store as `repos`. */
  transacciones: Transacciones;
  /** What `alConfirmarEventos` was handed, one entry per commit that wrote events. */
  confirmados: string[][];
  /** A fresh account: the isolation between tests. */
  nuevaCuenta(datos?: Partial<Omit<FilaCuenta, 'id'>>): Promise<string>;
  cerrar(): Promise<void>;
}

/**
 * The fakes of `crearMemoria()` over one store, built one by one: its index also wires the outbox dispatcher, which
 * loads the Temporal SDK, a second or so per test file for nothing the repositories use.
 */
function enMemoria(): Implementacion {
  const m = new Almacen();
  const confirmados: string[][] = [];
  return {
    repos: {
      cuentas: crearCuentasEnMemoria(m),
      llaves: crearLlavesEnMemoria(m),
      organizaciones: crearOrganizacionesEnMemoria(m),
      logos: crearLogosEnMemoria(m),
      clientes: crearClientesEnMemoria(m),
      productos: crearProductosEnMemoria(m),
      certificados: crearCertificadosEnMemoria(m),
      facturas: crearFacturasEnMemoria(m),
      eventos: crearEventosEnMemoria(m),
      pagos: crearPagosEnMemoria(m),
      sondas: crearSondasEnMemoria(m),
      webhooks: crearWebhooksEnMemoria(m),
      entregas: crearEntregasEnMemoria(m),
      correos: crearCorreosEnMemoria(m),
      recibos: crearRecibosEnMemoria(m),
      facturasGlobales: crearFacturasGlobalesEnMemoria(m),
      idempotencia: crearIdempotenciaEnMemoria(m, crearBoveda({ clave: randomBytes(32), version: 1 })),
      limites: crearLimitesEnMemoria(m),
      pendientes: crearPendientesEnMemoria(m),
      usuarios: crearUsuariosEnMemoria(m),
      cobranza: crearCobranzaEnMemoria(m),
    },
    transacciones: crearTransaccionesEnMemoria(m, {
      alConfirmarEventos: (ids) => void confirmados.push(ids),
    }),
    confirmados,
    async nuevaCuenta(datos = {}) {
      const id = nuevoId('cta');
      nuevaCuenta(m, id, new Date(), datos);
      return id;
    },
    cerrar: async () => undefined,
  };
}

function enMariaDb(): Implementacion {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL no está definida: el global setup de repositorios no corrió.');
  const db = crearKnex(url);
  const confirmados: string[][] = [];
  return {
    repos: crearRepositoriosReales(db),
    transacciones: crearTransacciones(db, { alConfirmarEventos: (ids) => void confirmados.push(ids) }),
    confirmados,
    async nuevaCuenta(datos = {}) {
      const id = nuevoId('cta');
      const ahora = new Date();
      // The provisioning command writes accounts; no repository does.
      await db('cuentas').insert({
        id,
        nombre: 'Cuenta de prueba',
        creado_en: ahora,
        actualizado_en: ahora,
        ...datos,
      });
      return id;
    },
    cerrar: () => db.destroy(),
  };
}

/**
 * The same `it`s against both implementations. `cuerpo` receives a getter: the implementation is built in
 * `beforeAll`, after jest collected the tests.
 */
export function contrato(nombre: string, cuerpo: (impl: () => Implementacion) => void): void {
  describe.each<NombreImplementacion>(['memoria', 'mariadb'])(`${nombre} (%s)`, (tipo) => {
    let impl: Implementacion | undefined;
    beforeAll(() => {
      impl = tipo === 'memoria' ? enMemoria() : enMariaDb();
    });
    afterAll(async () => impl?.cerrar());
    cuerpo(() => impl!);
  });
}

export const alcanceDe = (cuentaId: string, modo: Modo = 'test', origen?: Origen): Alcance => ({
  cuentaId,
  modo,
  llaveId: `llave_${cuentaId.slice(4)}`,
  ...(origen ? { origen } : {}),
});

/** A fresh account in test mode (`a`), the same account in live mode, and another account. */
export async function escenario(impl: Implementacion) {
  const cuentaId = await impl.nuevaCuenta();
  const otraId = await impl.nuevaCuenta();
  return { cuentaId, a: alcanceDe(cuentaId), live: alcanceDe(cuentaId, 'live'), otra: alcanceDe(otraId) };
}

/**
 * How a refusal looks to a caller: the domain's `RegistroDuplicado`, the driver's duplicate-key error (what
 * `esDuplicado` recognises), or anything else. Both implementations must give the same answer.
 */
export async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'aceptado';
  } catch (e) {
    if (e instanceof RegistroDuplicado) return 'RegistroDuplicado';
    if (esDuplicado(e)) return 'ER_DUP_ENTRY';
    return `otro error: ${(e as Error).message}`;
  }
}

/** Walks a keyset list to its end: the ids of each page. */
export async function recorrer<T extends { id: string }>(
  listar: (p: Pagina) => Promise<Tramo<T>>,
  limite: number,
): Promise<string[][]> {
  const paginas: string[][] = [];
  let despuesDe: string | undefined;
  for (;;) {
    const t = await listar({ limite, despuesDe });
    paginas.push(t.datos.map((d) => d.id));
    if (!t.hayMas) return paginas;
    despuesDe = t.datos[t.datos.length - 1]!.id;
  }
}

/** What `recorrer` must give for these ids: newest (greatest id) first, in pages of `limite`. */
export function paginasEsperadas(ids: string[], limite: number): string[][] {
  const orden = [...ids].sort().reverse();
  const paginas: string[][] = [];
  for (let i = 0; i < orden.length; i += limite) paginas.push(orden.slice(i, i + limite));
  return paginas.length ? paginas : [[]];
}

export const dormir = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An instant the database keeps exactly (milliseconds). */
export const instante = (iso: string) => new Date(iso);

const LETRAS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITOS = '0123456789';
const de = (alfabeto: string, n: number) =>
  Array.from({ length: n }, () => alfabeto[randomInt(alfabeto.length)]).join('');

/** A company RFC no other row of the run has. */
export const rfcAleatorio = () => `${de(LETRAS, 3)}${de(DIGITOS, 6)}${de(LETRAS + DIGITOS, 3)}`;

export async function nuevaOrganizacion(
  impl: Implementacion,
  a: Alcance,
  datos: Partial<{ rfc: string; nombre: string; color_acento: string }> = {},
): Promise<string> {
  const id = nuevoId('org');
  await impl.repos.organizaciones.insertar(
    a,
    id,
    {
      rfc: rfcAleatorio(),
      nombre: 'ORGANIZACION DE PRUEBA',
      regimen_fiscal: '601',
      codigo_postal: '42501',
      color_acento: '#123456',
      ...datos,
    },
    new Date(),
  );
  return id;
}

export interface DatosCertificado {
  no_certificado: string;
  de_prueba: boolean;
  valido_desde: Date;
  valido_hasta: Date;
}

/** Inserted active (the previous active one of the organization is deactivated). */
export async function nuevoCertificado(
  impl: Implementacion,
  a: Alcance,
  organizacionId: string,
  datos: Partial<DatosCertificado> = {},
): Promise<string> {
  const id = nuevoId('cert');
  await impl.repos.certificados.insertarActivo(
    a,
    {
      id,
      organizacion_id: organizacionId,
      no_certificado: de(DIGITOS, 20),
      rfc: 'EKU9003173C9',
      nombre_titular: 'ESCUELA KEMPER URGATE',
      valido_desde: instante('2023-01-01T00:00:00.000Z'),
      valido_hasta: instante('2037-01-01T00:00:00.000Z'),
      de_prueba: true,
      cer: randomBytes(64),
      llave_cifrada: randomBytes(48),
      contrasena_cifrada: randomBytes(24),
      dek_cifrada: randomBytes(60),
      version_clave: 1,
      ...datos,
    },
    new Date(),
  );
  return id;
}

export interface DatosDocumento {
  total: string;
  rfc: string;
  metodo_pago: 'PUE' | 'PPD';
}

/** The fields of a document the repositories read (the total, the payment method, the client's RFC). */
export function documento(d: Partial<DatosDocumento> = {}): DocumentoFactura {
  const rfc = d.rfc ?? 'MASO451221PM4';
  return {
    entrada: {
      tipo: 'I',
      metodo_pago: d.metodo_pago ?? 'PPD',
      moneda: 'MXN',
      fecha: '2024-05-01T10:00:00',
    },
    productos: [null],
    importes: {
      conceptos: [],
      subtotal: d.total ?? '116.00',
      traslados: [],
      retenciones: [],
      total: d.total ?? '116.00',
    },
    cliente: {
      id: 'cli_x',
      rfc,
      nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
      regimen_fiscal: '612',
      domicilio_fiscal: '80290',
      uso_cfdi: 'G03',
    },
    huso_horario: 'America/Mexico_City',
  } as unknown as DocumentoFactura;
}

export async function nuevaFactura(
  impl: Implementacion,
  a: Alcance,
  organizacionId: string,
  o: Partial<Omit<FacturaNueva, 'id' | 'organizacion_id'>> & Partial<DatosDocumento> = {},
): Promise<string> {
  const id = nuevoId('fac');
  await impl.transacciones.ejecutar((tx) =>
    impl.repos.facturas.insertar(tx, a, {
      id,
      organizacion_id: organizacionId,
      cliente_id: o.cliente_id ?? null,
      tipo: o.tipo ?? 'ingreso',
      documento: o.documento ?? documento(o),
      timbrado_estado: o.timbrado_estado ?? 'no_solicitado',
    }),
  );
  return id;
}

/** An invoice already stamped with `uuid`. */
export async function facturaTimbrada(
  impl: Implementacion,
  a: Alcance,
  organizacionId: string,
  o: Parameters<typeof nuevaFactura>[3] & { uuid?: string } = {},
): Promise<{ id: string; uuid: string }> {
  const id = await nuevaFactura(impl, a, organizacionId, { timbrado_estado: 'pendiente', ...o });
  const uuid = o.uuid ?? randomUUID().toUpperCase();
  await impl.transacciones.ejecutar((tx) =>
    impl.repos.facturas.guardarTimbre(tx, a, id, {
      uuid,
      xml: `<cfdi:Comprobante Folio="${id}"/>`,
      fechaTimbrado: '2024-05-01T10:00:05',
      noCertificadoSat: '30001000000500003456',
    }),
  );
  return { id, uuid };
}

export function solicitudPago(facturas: { factura: string; imp_pagado: string }[]): SolicitudPago {
  return {
    serie: 'P',
    fecha_pago: '2024-05-02T12:00:00',
    forma_pago: '03',
    moneda: 'MXN',
    decimales_moneda: 2,
    tipo_cambio: null,
    monto: facturas.reduce((s, f) => s + Number(f.imp_pagado), 0).toFixed(2),
    facturas_pagadas: facturas.map((f) => ({ ...f, equivalencia: null })),
  };
}

/** A payment still `registrando`. */
export async function nuevoPago(
  impl: Implementacion,
  a: Alcance,
  organizacionId: string,
  facturas: { factura: string; imp_pagado: string }[],
): Promise<string> {
  const id = nuevoId('pago');
  await impl.repos.pagos.crear(a, {
    id,
    organizacion_id: organizacionId,
    solicitud: solicitudPago(facturas),
  });
  return id;
}

/** One ledger row as the payment activity writes it. */
export const parcialidad = (
  factura: string,
  num: number,
  montos: { anterior: string; pagado: string; insoluto: string },
) => ({
  factura,
  uuid: randomUUID().toUpperCase(),
  moneda: 'MXN',
  decimales: 2,
  equivalencia: null,
  num_parcialidad: num,
  imp_saldo_anterior: montos.anterior,
  imp_pagado: montos.pagado,
  imp_saldo_insoluto: montos.insoluto,
  objeto_imp: '02',
});

export async function nuevoWebhook(
  impl: Implementacion,
  a: Alcance,
  eventos: string[] = ['factura.timbrada'],
  ahora = new Date(),
): Promise<string> {
  const id = nuevoId('wh');
  await impl.repos.webhooks.crear(
    a,
    {
      id,
      url: `https://hooks.ejemplo.mx/${id}`,
      eventos_suscritos: eventos,
      secreto_cifrado: randomBytes(40),
      secreto_anterior_cifrado: null,
      dek_cifrada: randomBytes(60),
      version_clave: 1,
    },
    ahora,
  );
  return id;
}

/** An event written in its own committed transaction. */
export function nuevoEvento(
  impl: Implementacion,
  a: Alcance,
  tipo: TipoEvento = 'factura.timbrada',
  datos: Record<string, unknown> = { id: nuevoId('fac') },
): Promise<string> {
  return impl.transacciones.ejecutar((tx) => impl.repos.eventos.registrar(tx, a, tipo, datos));
}

/** Keeps the rows of a query across accounts that belong to this test. */
export const propios = <T extends { id: string }>(filas: T[], ids: string[]) =>
  filas.filter((f) => ids.includes(f.id));
