import type { Esquema } from '../contrato';
import { d, decimalesDe } from '../cfdi/decimal';
import { fechaCfdi } from '../cfdi/fecha';
import { fechaLocal, SOLO_FECHA } from './fechas';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import { nuevoId } from '../db/ids';
import type { RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioPagos } from '../db/repositorios/pagos';
import type { Transacciones } from '../db/transacciones';
import type { CreacionIdempotente } from './creacion';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio, noEncontrado } from '../dominio/errores';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import { SERIE_PAGOS, type SolicitudPago } from '../dominio/pago';
import { dtoPago, type Pago } from '../presentacion/pago';
import type { Timbrador } from './facturas';
import type { VerificadorCsd } from './certificados';
import type { ServicioOrganizaciones } from './organizaciones';

/** Starts (or joins) the one workflow of a payment and waits for it a bounded time. */
export interface RegistradorPagos {
  registrar(a: Alcance, pago: { id: string; organizacionId: string; facturas: string[] }): Promise<void>;
}

/** The request body, as the contract declares it. */
export type PagoNuevo = Esquema<'PagoNuevo'>;

/** `pendiente` while the payment is still being registered or its CFDI stamped after the bounded wait. */
export interface ResultadoPago {
  pago: Pago;
  pendiente: boolean;
}

export interface DepsPagos {
  pagos: RepositorioPagos;
  facturas: RepositorioFacturas;
  organizaciones: ServicioOrganizaciones;
  catalogos: ConsultaCatalogos;
  /** Stamping's availability rules apply to the payment CFDI as to any invoice. */
  timbrador: Pick<Timbrador, 'exigirDisponible'>;
  registrador: RegistradorPagos;
  /** The payment CFDI is sealed with the organization's active CSD: an expired one refuses the payment. */
  csdVigente: VerificadorCsd;
  transacciones: Transacciones;
  ahora?: () => Date;
}

const invalido = (codigo: string, mensaje: string, parametro: string) =>
  new ErrorNegocio('solicitud_invalida', codigo, mensaje, parametro);
const regla = (codigo: string, mensaje: string, parametro: string) =>
  new ErrorNegocio('regla_de_negocio', codigo, mensaje, parametro);

export function crearServicioPagos(deps: DepsPagos) {
  const ahora = deps.ahora ?? (() => new Date());
  const repo = deps.pagos;

  /** The request's own rules, before anything is written: those that need no invoice. */
  function solicitud(e: PagoNuevo, husoHorario: string): SolicitudPago {
    const moneda = e.moneda ?? 'MXN';
    const registro = moneda === 'XXX' ? undefined : deps.catalogos.moneda(moneda);
    if (!registro) throw regla('moneda_invalida', `La moneda ${moneda} no se admite en un pago.`, 'moneda');
    if (e.forma_pago === '99' || !deps.catalogos.formaPago(e.forma_pago)) {
      throw regla(
        'forma_pago_invalida',
        e.forma_pago === '99'
          ? 'forma_pago 99 (por definir) no se admite en un pago: indique cómo se recibió el dinero.'
          : `forma_pago ${e.forma_pago} no existe en c_FormaPago.`,
        'forma_pago',
      );
    }
    if (moneda !== 'MXN' && !e.tipo_cambio) {
      throw invalido(
        'tipo_cambio_requerido',
        `Con moneda ${moneda} se requiere tipo_cambio (pesos por ${moneda}).`,
        'tipo_cambio',
      );
    }
    if (moneda === 'MXN' && e.tipo_cambio !== undefined && !d(e.tipo_cambio).eq(1)) {
      throw invalido(
        'tipo_cambio_no_permitido',
        'Un pago en MXN no lleva tipo_cambio (es 1).',
        'tipo_cambio',
      );
    }
    if (e.tipo_cambio !== undefined && !d(e.tipo_cambio).gt(0)) {
      throw regla('importe_invalido', 'tipo_cambio debe ser mayor que cero.', 'tipo_cambio');
    }
    if (!d(e.monto).gt(0)) throw regla('importe_invalido', 'monto debe ser mayor que cero.', 'monto');
    if (decimalesDe(e.monto) > registro.decimales) {
      throw regla(
        'decimales_excedidos',
        `monto tiene más decimales de los que admite ${moneda} (${registro.decimales}).`,
        'monto',
      );
    }
    const vistas = new Map<string, number>();
    e.facturas_pagadas.forEach((f, i) => {
      const p = `facturas_pagadas[${i}]`;
      const previa = vistas.get(f.factura);
      if (previa !== undefined) {
        throw invalido(
          'factura_repetida',
          `La factura ${f.factura} aparece dos veces (también en facturas_pagadas[${previa}]): sume los importes en una sola.`,
          `${p}.factura`,
        );
      }
      vistas.set(f.factura, i);
      if (!d(f.imp_pagado).gt(0)) {
        throw regla('importe_invalido', `${p}.imp_pagado debe ser mayor que cero.`, `${p}.imp_pagado`);
      }
      if (f.equivalencia !== undefined && !d(f.equivalencia).gt(0)) {
        throw regla('importe_invalido', `${p}.equivalencia debe ser mayor que cero.`, `${p}.equivalencia`);
      }
    });
    const ahoraLocal = fechaCfdi(ahora(), husoHorario);
    let fecha = fechaLocal(e.fecha_pago, husoHorario, 'fecha_pago');
    // Today's date alone before noon means "today": the time is now rather than a noon still to come.
    if (
      SOLO_FECHA.test(e.fecha_pago) &&
      fecha.slice(0, 10) === ahoraLocal.slice(0, 10) &&
      fecha > ahoraLocal
    ) {
      fecha = ahoraLocal;
    }
    if (fecha > ahoraLocal) {
      throw regla(
        'fecha_pago_futura',
        `fecha_pago ${fecha} es posterior a este momento: registre los pagos ya recibidos.`,
        'fecha_pago',
      );
    }
    return {
      serie: e.serie ?? SERIE_PAGOS,
      fecha_pago: fecha,
      forma_pago: e.forma_pago,
      moneda,
      decimales_moneda: registro.decimales,
      tipo_cambio: moneda === 'MXN' ? null : e.tipo_cambio!,
      monto: e.monto,
      facturas_pagadas: e.facturas_pagadas.map((f) => ({
        factura: f.factura,
        imp_pagado: f.imp_pagado,
        equivalencia: f.equivalencia ?? null,
      })),
    };
  }

  async function fila(a: Alcance, id: string) {
    const f = await repo.obtener(a, id);
    if (!f) throw noEncontrado('pago_no_encontrado', `El pago ${id} no existe.`);
    return f;
  }

  /** After the bounded wait: refused → its error; registered → stamped, pending, or rejected by the PAC. */
  async function resultado(a: Alcance, id: string): Promise<ResultadoPago> {
    const f = await fila(a, id);
    if (f.estado === 'rechazado') {
      const e = f.error!;
      // Refused by a rule, nothing of it exists; refused by the PAC, its draft CFDI remains to look at.
      const detalle = f.factura_pago_id ? { factura: f.factura_pago_id, pago: id } : {};
      throw new ErrorNegocio(e.tipo, e.codigo, e.mensaje, e.parametro, detalle);
    }
    if (f.estado === 'registrando') return { pago: dtoPago(f), pendiente: true };
    return { pago: dtoPago(f), pendiente: f.factura_pago_estado !== 'timbrada' };
  }

  /** A payment committed by an earlier attempt whose answer was lost: its workflow started or joined, then answered. */
  async function reanudarCreacion(a: Alcance, id: string): Promise<ResultadoPago> {
    const f = await fila(a, id);
    if (f.estado === 'registrando') {
      await deps.registrador.registrar(a, {
        id,
        organizacionId: f.organizacion_id,
        facturas: f.solicitud.facturas_pagadas.map((x) => x.factura),
      });
    }
    return resultado(a, id);
  }

  return {
    async crear(a: Alcance, e: PagoNuevo, c: CreacionIdempotente = {}): Promise<ResultadoPago> {
      if (c.recurso) return reanudarCreacion(a, c.recurso);
      const org = await deps.organizaciones.resolver(a, e.organizacion, 'organizacion');
      deps.timbrador.exigirDisponible(a);
      await deps.csdVigente(a, org.id, 'organizacion');
      const cp = deps.catalogos.codigoPostal(org.codigo_postal);
      if (!cp) throw new Error(`organización ${org.id} con código postal desconocido`);
      const s = solicitud(e, cp.huso_horario);
      const id = nuevoId('pago');
      await deps.transacciones.ejecutar(async (tx) => {
        await repo.crear(a, { id, organizacion_id: org.id, solicitud: s }, tx);
        await c.anotar?.(tx, id);
      });
      await deps.registrador.registrar(a, {
        id,
        organizacionId: org.id,
        facturas: s.facturas_pagadas.map((f) => f.factura),
      });
      return resultado(a, id);
    },

    obtener: async (a: Alcance, id: string) => dtoPago(await fila(a, id)),

    async listar(a: Alcance, filtros: { organizacion?: string; factura?: string }, pagina: Pagina) {
      const organizacionId = await deps.organizaciones.idDeFiltro(a, filtros.organizacion);
      if (filtros.factura && !(await deps.facturas.obtener(a, filtros.factura))) {
        throw noEncontrado('factura_no_encontrada', `La factura ${filtros.factura} no existe.`, 'factura');
      }
      return mapearTramo(
        await repo.listar(a, { organizacionId, facturaId: filtros.factura }, pagina),
        dtoPago,
      );
    },
  };
}

export type ServicioPagos = ReturnType<typeof crearServicioPagos>;
