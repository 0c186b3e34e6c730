import type { Esquema } from '../contrato';
import { fechaCfdi } from '../cfdi/fecha';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import { nuevoId } from '../db/ids';
import type { RepositorioClientes } from '../db/repositorios/clientes';
import type { RepositorioFacturas } from '../db/repositorios/facturas';
import type {
  FilaFacturaGlobal,
  OrigenGlobal,
  RepositorioFacturasGlobales,
} from '../db/repositorios/facturas-globales';
import type { FilaRecibo, RepositorioRecibos } from '../db/repositorios/recibos';
import type { Transaccion, Transacciones } from '../db/transacciones';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';
import type { DocumentoFactura } from '../dominio/factura';
import {
  conceptosGlobales,
  formaPagoGlobal,
  informacionGlobal,
  NOMBRE_PERIODICIDAD,
  periodoDe,
  REGIMEN_BIMESTRAL,
  ultimoPeriodoCerrado,
  type Periodicidad,
  type Periodo,
} from '../dominio/factura-global';
import type { FilaOrganizacion } from '../db/repositorios/organizaciones';
import type { VerificadorCsd } from './certificados';
import type { CreacionIdempotente } from './creacion';
import type { ResultadoFactura, ServicioFacturas, Timbrador } from './facturas';
import { resolverMoneda, revisarComprobante } from './facturas/armar';
import { clienteDeVenta, PUBLICO_EN_GENERAL } from './clientes-de-venta';
import type { ServicioOrganizaciones } from './organizaciones';
import type { PuertoGlobales, Reexpedicion } from '../activities/globales';

export type FacturaGlobalNueva = Esquema<'FacturaGlobalNueva'>;

export interface DepsFacturasGlobales {
  recibos: Pick<
    RepositorioRecibos,
    'abiertosDelPeriodo' | 'deGlobal' | 'aGlobal' | 'fueraDeGlobal' | 'bloquear'
  >;
  globales: RepositorioFacturasGlobales;
  facturas: Pick<RepositorioFacturas, 'insertar' | 'obtener' | 'siguienteFolio'>;
  clientes: Pick<RepositorioClientes, 'porRfc' | 'insertar'>;
  transacciones: Transacciones;
  organizaciones: Pick<ServicioOrganizaciones, 'resolver'>;
  catalogos: ConsultaCatalogos;
  servicioFacturas: Pick<ServicioFacturas, 'reanudar' | 'cancelar' | 'obtener'>;
  timbrador: Pick<Timbrador, 'exigirDisponible'>;
  csdVigente: VerificadorCsd;
  ahora?: () => Date;
}

/** Our limit of concepts per CFDI (as an invoice's): a bigger period takes more than one global invoice. */
export const CONCEPTOS_MAXIMOS = 1000;

const regla = (codigo: string, mensaje: string, parametro: string) =>
  new ErrorNegocio('regla_de_negocio', codigo, mensaje, parametro);

export function crearServicioFacturasGlobales(deps: DepsFacturasGlobales) {
  const ahora = deps.ahora ?? (() => new Date());

  /** The receipts that fit one CFDI, and its concepts. */
  function queCaben(recibos: FilaRecibo[]) {
    let tomados = recibos;
    let conceptos = conceptosGlobales(tomados);
    while (conceptos.length > CONCEPTOS_MAXIMOS) {
      tomados = tomados.slice(0, Math.max(1, Math.floor(tomados.length * 0.9)));
      conceptos = conceptosGlobales(tomados);
    }
    return { tomados, conceptos };
  }

  /**
   * Inserts the global invoice of `recibos` (pending its stamping) and moves them into it, inside `tx`. The
   * document is built and checked by the SAT-matrix engine like every invoice.
   */
  async function insertarGlobal(
    tx: Transaccion,
    a: Alcance,
    org: FilaOrganizacion,
    p: Periodo,
    recibos: FilaRecibo[],
    o: {
      origen: OrigenGlobal;
      moneda: string;
      tipoCambio?: string;
      reemplaza?: { id: string; uuid: string };
    },
  ): Promise<{ id: string; tomados: FilaRecibo[] }> {
    const { tomados, conceptos } = queCaben(recibos);
    const { moneda, decimales } = resolverMoneda(deps, o.moneda, o.tipoCambio);
    const huso = tomados[0]!.documento.huso_horario;
    const cliente = await clienteDeVenta(
      deps,
      a,
      org.id,
      {
        ...PUBLICO_EN_GENERAL,
        domicilio_fiscal: org.codigo_postal,
        correo: null,
      },
      ahora,
    );
    const entrada = {
      tipo: 'I' as const,
      fecha: fechaCfdi(ahora(), huso),
      forma_pago: formaPagoGlobal(tomados),
      metodo_pago: 'PUE' as const,
      moneda,
      decimales_moneda: decimales,
      ...(moneda === 'MXN' || !o.tipoCambio ? {} : { tipo_cambio: o.tipoCambio }),
      exportacion: '01',
      lugar_expedicion: org.codigo_postal,
      informacion_global: informacionGlobal(p),
      ...(o.reemplaza ? { relaciones: [{ tipo_relacion: '04', uuids: [o.reemplaza.uuid] }] } : {}),
      emisor: { rfc: org.rfc, nombre: org.nombre, regimen_fiscal: org.regimen_fiscal },
      receptor: { ...PUBLICO_EN_GENERAL, domicilio_fiscal: org.codigo_postal },
      conceptos,
    };
    const documento: DocumentoFactura = {
      entrada,
      productos: conceptos.map(() => null),
      importes: revisarComprobante({ catalogos: deps.catalogos, ahora }, entrada),
      cliente: { id: cliente.id, ...PUBLICO_EN_GENERAL, domicilio_fiscal: org.codigo_postal },
      huso_horario: huso,
      // Nobody receives a global invoice by email: its receiver is the general public.
      correo: { enviar: false, adicionales: [] },
      global: {
        periodicidad: p.periodicidad,
        desde: p.desde,
        hasta: p.hasta,
        reemplaza: o.reemplaza?.id ?? null,
      },
    };
    const id = nuevoId('fac');
    const folio = await deps.facturas.siguienteFolio(tx, org.id, '');
    await deps.facturas.insertar(tx, a, {
      id,
      organizacion_id: org.id,
      cliente_id: cliente.id,
      tipo: 'ingreso',
      documento: { ...documento, entrada: { ...documento.entrada, folio } },
      timbrado_estado: 'pendiente',
    });
    await deps.globales.insertar(tx, a, {
      factura_id: id,
      organizacion_id: org.id,
      periodicidad: p.periodicidad,
      desde: p.desde,
      hasta: p.hasta,
      origen: o.origen,
      reemplaza: o.reemplaza?.id ?? null,
    });
    await deps.recibos.aGlobal(
      tx,
      a,
      tomados.map((r) => r.id),
      id,
      ahora(),
    );
    return { id, tomados };
  }

  /** The period a request or the schedule names, closed by now in the organization's local time. */
  function periodoPedido(org: FilaOrganizacion, periodicidad: Periodicidad, fecha: string | undefined) {
    if (periodicidad === '05' && org.regimen_fiscal !== REGIMEN_BIMESTRAL) {
      throw regla(
        'periodicidad_regimen',
        `La periodicidad 05 (bimestral) solo aplica al régimen ${REGIMEN_BIMESTRAL}; la organización tributa en el ${org.regimen_fiscal}.`,
        'periodicidad',
      );
    }
    // The organization's postal code passed the catalog when it was stored.
    const huso = deps.catalogos.codigoPostal(org.codigo_postal)!.huso_horario;
    const hoy = fechaCfdi(ahora(), huso).slice(0, 10);
    const p = fecha ? periodoDe(periodicidad, fecha) : ultimoPeriodoCerrado(periodicidad, hoy);
    if (p.hasta >= hoy) {
      throw regla(
        'periodo_no_cerrado',
        `El periodo ${NOMBRE_PERIODICIDAD[periodicidad]} del ${p.desde} al ${p.hasta} no ha cerrado (hoy es ${hoy} en el lugar de expedición): la factura global se emite después del cierre.`,
        'fecha',
      );
    }
    return p;
  }

  async function emitir(
    a: Alcance,
    s: FacturaGlobalNueva,
    origen: OrigenGlobal,
    c: CreacionIdempotente = {},
  ): Promise<ResultadoFactura> {
    if (c.recurso) return deps.servicioFacturas.reanudar(a, c.recurso);
    const org = await deps.organizaciones.resolver(a, s.organizacion, 'organizacion');
    const periodicidad = (s.periodicidad ?? org.factura_global_periodicidad) as Periodicidad;
    const p = periodoPedido(org, periodicidad, s.fecha);
    const moneda = s.moneda ?? 'MXN';
    // Checked before anything is locked (tipo_cambio_requerido and the like).
    resolverMoneda(deps, moneda, s.tipo_cambio);
    deps.timbrador.exigirDisponible(a);
    await deps.csdVigente(a, org.id, 'organizacion');
    const id = await deps.transacciones.ejecutar(async (tx) => {
      const recibos = await deps.recibos.abiertosDelPeriodo(tx, a, {
        organizacionId: org.id,
        desde: p.desde,
        hasta: p.hasta,
        moneda,
        limite: CONCEPTOS_MAXIMOS,
      });
      if (!recibos.length) {
        throw new ErrorNegocio(
          'regla_de_negocio',
          'sin_recibos_abiertos',
          `La organización no tiene recibos abiertos en ${moneda} del ${p.desde} al ${p.hasta}: no hay ventas que facturar al público en general.`,
          'fecha',
        );
      }
      const g = await insertarGlobal(tx, a, org, p, recibos, {
        origen,
        moneda,
        ...(s.tipo_cambio ? { tipoCambio: s.tipo_cambio } : {}),
      });
      await c.anotar?.(tx, g.id);
      return g.id;
    });
    return deps.servicioFacturas.reanudar(a, id);
  }

  return {
    /** POST /v1/facturas_globales: the open receipts of a closed period, in one CFDI to the general public. */
    emitir: (a: Alcance, s: FacturaGlobalNueva, c?: CreacionIdempotente) => emitir(a, s, 'solicitud', c),

    /**
     * The schedule's run: the organization's global invoices of the period that closed last, as many as its
     * open receipts need (in pesos: other currencies take a request with their exchange rate). Returns the
     * invoices issued; none when the automatic global invoice was turned off meanwhile.
     */
    async emitirProgramada(a: Alcance, organizacionId: string): Promise<string[]> {
      const org = await deps.organizaciones.resolver(a, organizacionId);
      if (!org.factura_global_automatica) return [];
      const emitidas: string[] = [];
      for (;;) {
        try {
          const r = await emitir(a, { organizacion: org.id }, 'programacion');
          emitidas.push(r.factura.id);
        } catch (e) {
          if (e instanceof ErrorNegocio && e.codigo === 'sin_recibos_abiertos') return emitidas;
          throw e;
        }
      }
    },

    /**
     * The motivo-04 step of a claim: the global that holds the claimed receipt's sale is reissued without the
     * sales whose buyers' invoices are stamped (this one among them) and marked replaced, in one transaction
     * that locks it, so two claims on one global take turns. Claims still being stamped stay in the reissue
     * and are taken out of it by their own turn. Idempotent: a global already replaced is answered as it was.
     */
    async excluirReclamo(a: Alcance, reciboId: string): Promise<Reexpedicion | undefined> {
      const r = await deps.transacciones.ejecutar(async (tx) => {
        const recibo = await deps.recibos.bloquear(tx, a, reciboId);
        if (!recibo?.factura_global_id || recibo.estado !== 'facturado') return undefined;
        const anterior = recibo.factura_global_id;
        const g = (await deps.globales.bloquear(tx, a, anterior))!;
        if (g.reemplazada_en) return { anterior, nueva: g.reemplazada_por, crear: false };
        const factura = (await deps.facturas.obtener(a, anterior, tx))!;
        const todos = await deps.recibos.deGlobal(tx, a, anterior);
        const facturados = new Set<string>();
        for (const x of todos) {
          if (x.estado !== 'facturado' || !x.factura_id) continue;
          const n = await deps.facturas.obtener(a, x.factura_id, tx);
          if (n?.timbrado_estado === 'timbrada') facturados.add(x.id);
        }
        const quedan = todos.filter((x) => !facturados.has(x.id));
        let nueva: string | null = null;
        if (quedan.length) {
          const org = await deps.organizaciones.resolver(a, g.organizacion_id);
          const e = factura.documento.entrada;
          const hecha = await insertarGlobal(tx, a, org, g, quedan, {
            origen: 'reexpedicion',
            moneda: e.moneda,
            ...(e.tipo_cambio ? { tipoCambio: e.tipo_cambio } : {}),
            reemplaza: { id: anterior, uuid: factura.uuid! },
          });
          nueva = hecha.id;
        }
        await deps.globales.marcarReemplazada(tx, a, anterior, nueva, ahora());
        await deps.recibos.fueraDeGlobal(tx, a, [...facturados], ahora());
        return { anterior, nueva, crear: true };
      });
      if (!r) return undefined;
      if (r.nueva) await deps.servicioFacturas.reanudar(a, r.nueva);
      return { anterior: r.anterior, nueva: r.nueva };
    },

    /**
     * A reissue the PAC refused for good: its receipts go back to the global it was to replace, which is no
     * longer replaced (and so is not cancelled). The claims it left out stay invoiced to their buyers.
     */
    async deshacerReexpedicion(a: Alcance, x: Reexpedicion): Promise<void> {
      if (!x.nueva) return;
      await deps.transacciones.ejecutar(async (tx) => {
        const enNueva = await deps.recibos.deGlobal(tx, a, x.nueva!);
        await deps.recibos.aGlobal(
          tx,
          a,
          enNueva.map((r) => r.id),
          x.anterior,
          ahora(),
        );
        await deps.globales.deshacerReemplazo(tx, a, x.anterior);
      });
    },

    /**
     * The replaced global is cancelled with motivo 04; a cancellation already requested or done is joined.
     * Returns the invoice's state afterwards.
     */
    async cancelarReemplazada(a: Alcance, globalId: string): Promise<ResultadoFactura> {
      try {
        return await deps.servicioFacturas.cancelar(a, globalId, { motivo: '04' });
      } catch (e) {
        const yaEnCurso =
          e instanceof ErrorNegocio && ['cancelacion_en_curso', 'factura_no_timbrada'].includes(e.codigo);
        if (!yaEnCurso) throw e;
        return { factura: await deps.servicioFacturas.obtener(a, globalId), pendiente: false };
      }
    },

    /** The global invoice row of an invoice, if it is one. */
    obtener: (a: Alcance, facturaId: string): Promise<FilaFacturaGlobal | undefined> =>
      deps.globales.obtener(a, facturaId),
  };
}

export type ServicioFacturasGlobales = ReturnType<typeof crearServicioFacturasGlobales>;

// The workflows' steps run these rules: the service is the port's one implementation.
const _puerto: (s: ServicioFacturasGlobales) => PuertoGlobales = (s) => s;
void _puerto;
