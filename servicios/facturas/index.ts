import type { Alcance, Modo } from '../../dominio/alcance';
import { ErrorNegocio, noEncontrado } from '../../dominio/errores';
import type { CreacionIdempotente } from '../creacion';
import { cancelacionEnCurso, type DocumentoFactura, type MotivoCancelacion } from '../../dominio/factura';
import { mapearTramo, type Pagina } from '../../dominio/paginacion';
import { candidatosSerieFolio } from '../../dominio/cobranza';
import type { ConsultaCatalogos } from '../../cfdi/reglas/catalogos';
import { nuevoId } from '../../db/ids';
import type { RepositorioClientes } from '../../db/repositorios/clientes';
import type { RepositorioEventos } from '../../db/repositorios/eventos';
import type { FilaFactura, FiltrosFacturas, RepositorioFacturas } from '../../db/repositorios/facturas';
import type { RepositorioPagos } from '../../db/repositorios/pagos';
import type { Transacciones } from '../../db/transacciones';
import {
  ErrorPac,
  ErrorPacNoConfigurado,
  ErrorPacTransitorio,
  type ConsultaEstatusSat,
  type EstatusSat,
} from '../../pac/puerto';
import { dtoEstadoSat, type EstadoSat } from '../../presentacion/estado-sat';
import { dtoFactura, type Factura } from '../../presentacion/factura';
import type { VerificadorCsd } from '../certificados';
import type { ServicioOrganizaciones } from '../organizaciones';
import type { ServicioProductos } from '../productos';
import { armarDocumento, type FacturaNueva } from './armar';

/** Starts (or joins) the one stamping workflow of an invoice and waits for it a bounded time. */
export interface Timbrador {
  /** Refuses before anything is stored when stamping cannot happen at all in this mode. */
  exigirDisponible(a: Alcance): void;
  timbrar(a: Alcance, factura: { id: string; organizacionId: string }): Promise<void>;
  /**
   * Cuts a pending stamping's retry wait short (a new attempt at once) and waits for it like `timbrar`; a
   * stamping whose workflow is gone (terminated) starts again. A payment CFDI is retried in its payment's
   * workflow (`pagoId`), without the wait.
   */
  reintentar(a: Alcance, factura: { id: string; organizacionId: string; pagoId?: string }): Promise<void>;
  /**
   * Abandons a pending stamping retrying cannot fix: its workflow stops trying (the attempt in progress ends
   * first), then asks the PAC for the stamp of the sealed XML: stamped, that stamp is recorded; otherwise the
   * invoice ends `fallido` (`timbrado_abandonado`). A stamping whose workflow is gone gets a run that only does
   * that. Waits for it like `timbrar`.
   */
  abandonar(a: Alcance, factura: { id: string; organizacionId: string }): Promise<void>;
  /**
   * A stamped CFDI whose PDF is not stored yet: has it rendered now (ahead of the rendering queue, deduplicated
   * with it) and waits for it within the bounded wait.
   */
  pedirPdf(a: Alcance, facturaId: string): Promise<void>;
}

/** Starts (or joins) the one cancellation workflow of an invoice and waits for the PAC's first answer. */
export interface Cancelador {
  cancelar(a: Alcance, factura: { id: string; organizacionId: string }): Promise<void>;
  /**
   * A cancellation in progress tries again now: its PAC call's backoff, or its wait before the next SAT check, is
   * cut short; a cancellation whose workflow is gone (terminated) starts again. Waits like `cancelar`.
   */
  reintentar(a: Alcance, factura: { id: string; organizacionId: string }): Promise<void>;
}

/**
 * The SAT's status of a CFDI, asked through the PAC of a mode (composicion/servicios.ts builds it with pac/fabrica.ts).
 * A read: no workflow, nothing stored. Throws the PAC port's errors.
 */
export type ConsultaSat = (modo: Modo, consulta: ConsultaEstatusSat) => Promise<EstatusSat>;

export interface SolicitudCancelacion {
  motivo: MotivoCancelacion;
  uuid_sustitucion?: string;
}

export interface DepsFacturas {
  facturas: RepositorioFacturas;
  pagos: Pick<RepositorioPagos, 'vigentesDeFactura'>;
  eventos: RepositorioEventos;
  clientes: RepositorioClientes;
  transacciones: Transacciones;
  organizaciones: ServicioOrganizaciones;
  productos: ServicioProductos;
  catalogos: ConsultaCatalogos;
  timbrador: Timbrador;
  cancelador: Cancelador;
  sat: ConsultaSat;
  /** An expired active CSD refuses stamping before anything is stored or sent. */
  csdVigente: VerificadorCsd;
  ahora?: () => Date;
}

/**
 * What an operation on an invoice ended with: `completa` when its stamping or cancellation is final (or none
 * was asked), `pendiente` while it goes on in the background after the bounded wait.
 */
export interface ResultadoFactura {
  factura: Factura;
  pendiente: boolean;
}

const noExiste = (id: string) => noEncontrado('factura_no_encontrada', `La factura ${id} no existe.`);

/** Seconds a client should wait before asking the SAT again after the PAC or the SAT did not answer. */
const REINTENTO_SAT_S = 5;

/** The PAC could not answer a status query: a 503, never a 500; only a transient failure is worth a retry. */
function satNoDisponible(e: unknown): never {
  if (!(e instanceof ErrorPac)) throw e;
  if (e instanceof ErrorPacNoConfigurado) {
    throw new ErrorNegocio(
      'servicio_no_disponible',
      'pac_no_disponible',
      'La consulta al SAT en modo live no está disponible: el servicio no tiene configurado un PAC real.',
    );
  }
  if (e instanceof ErrorPacTransitorio) {
    throw new ErrorNegocio(
      'servicio_no_disponible',
      'pac_no_disponible',
      `El PAC o el SAT no respondieron a la consulta del estado: reintente en ${REINTENTO_SAT_S} segundos.`,
      undefined,
      { reintentarEnSegundos: REINTENTO_SAT_S },
    );
  }
  throw new ErrorNegocio(
    'servicio_no_disponible',
    'pac_no_disponible',
    'El PAC rechazó la configuración del servicio al consultar el SAT: intente más tarde.',
  );
}

export function crearServicioFacturas(deps: DepsFacturas) {
  const ahora = deps.ahora ?? (() => new Date());
  const repo = deps.facturas;

  async function fila(a: Alcance, id: string): Promise<FilaFactura> {
    const f = await repo.obtener(a, id);
    if (!f) throw noExiste(id);
    return f;
  }

  /**
   * A draft is stamped with its issuer and client as they are now: correcting the client's SAT data (or the
   * organization's) after a rejection is what lets the draft be stamped. A deleted client keeps its copy.
   */
  async function conPartesActuales(a: Alcance, f: FilaFactura): Promise<DocumentoFactura> {
    const doc = f.documento;
    const org = await deps.organizaciones.resolver(a, f.organizacion_id);
    const emisor = { rfc: org.rfc, nombre: org.nombre, regimen_fiscal: org.regimen_fiscal };
    const c = f.cliente_id ? await deps.clientes.obtener(a, f.cliente_id) : undefined;
    if (!c) return { ...doc, entrada: { ...doc.entrada, emisor } };
    const receptor = {
      rfc: c.rfc,
      nombre: c.nombre,
      regimen_fiscal: c.regimen_fiscal,
      domicilio_fiscal: c.domicilio_fiscal,
      uso_cfdi: c.uso_cfdi,
    };
    return { ...doc, cliente: { id: c.id, ...receptor }, entrada: { ...doc.entrada, emisor, receptor } };
  }

  /** After a stamping attempt: stamped → complete, rejected → a rule violation naming the invoice. */
  async function resultadoTimbrado(a: Alcance, id: string): Promise<ResultadoFactura> {
    const f = await fila(a, id);
    if (f.timbrado_estado === 'fallido') {
      const e = f.timbrado_error!;
      throw new ErrorNegocio(
        'regla_de_negocio',
        'timbrado_rechazado',
        `El timbrado de la factura ${id} fue rechazado: ${e.codigo} ${e.mensaje}`,
        undefined,
        { factura: id },
      );
    }
    return { factura: dtoFactura(f), pendiente: f.timbrado_estado !== 'timbrada' };
  }

  /** After the PAC's first answer: cancelled → complete; refused at once → a rule violation naming the invoice. */
  async function resultadoCancelacion(a: Alcance, id: string): Promise<ResultadoFactura> {
    const f = await fila(a, id);
    const c = f.cancelacion;
    if (f.estado !== 'cancelada' && c?.estado === 'rechazada') {
      const detalle = c.error ? `${c.error.codigo} ${c.error.mensaje}` : 'sin detalle';
      throw new ErrorNegocio(
        'regla_de_negocio',
        'cancelacion_rechazada',
        `La cancelación de la factura ${id} fue rechazada: ${detalle}`,
        undefined,
        { factura: id },
      );
    }
    return { factura: dtoFactura(f), pendiente: f.estado !== 'cancelada' };
  }

  /**
   * A creation committed by an earlier attempt whose answer was lost: its stamping is started or joined (the
   * workflow id is the invoice's), and it is answered as the first attempt would have been.
   */
  async function reanudarCreacion(a: Alcance, id: string): Promise<ResultadoFactura> {
    const f = await fila(a, id);
    if (f.timbrado_estado === 'no_solicitado') return { factura: dtoFactura(f), pendiente: false };
    if (f.timbrado_estado === 'pendiente')
      await deps.timbrador.timbrar(a, { id, organizacionId: f.organizacion_id });
    return resultadoTimbrado(a, id);
  }

  return {
    async crear(a: Alcance, entrada: FacturaNueva, c: CreacionIdempotente = {}): Promise<ResultadoFactura> {
      if (c.recurso) return reanudarCreacion(a, c.recurso);
      const org = await deps.organizaciones.resolver(a, entrada.organizacion, 'organizacion');
      const documento = await armarDocumento({ ...deps, ahora }, a, entrada, org);
      const autoTimbrar = entrada.auto_timbrar !== false;
      if (autoTimbrar) {
        deps.timbrador.exigirDisponible(a);
        await deps.csdVigente(a, org.id, 'organizacion');
      }
      const id = nuevoId('fac');
      // Nothing outside is changed inside: a transaction retried after a deadlock takes its folio anew.
      await deps.transacciones.ejecutar(async (tx) => {
        const folio =
          documento.entrada.folio ?? (await repo.siguienteFolio(tx, org.id, documento.entrada.serie ?? ''));
        await repo.insertar(tx, a, {
          id,
          organizacion_id: org.id,
          cliente_id: documento.cliente.id,
          tipo: entrada.tipo,
          documento: { ...documento, entrada: { ...documento.entrada, folio } },
          timbrado_estado: autoTimbrar ? 'pendiente' : 'no_solicitado',
        });
        await c.anotar?.(tx, id);
        if (!autoTimbrar) {
          const creada = dtoFactura((await repo.obtener(a, id, tx))!);
          await deps.eventos.registrar(tx, a, 'factura.creada', creada);
        }
      });
      if (!autoTimbrar) return { factura: dtoFactura(await fila(a, id)), pendiente: false };
      await deps.timbrador.timbrar(a, { id, organizacionId: org.id });
      return resultadoTimbrado(a, id);
    },

    /**
     * An invoice committed elsewhere with its stamping `pendiente` (a receipt's invoice): its stamping is started
     * or joined, and it is answered as `crear` answers.
     */
    reanudar: reanudarCreacion,

    /** POST …/timbrar: only a draft that is not already being stamped. */
    async timbrar(a: Alcance, id: string): Promise<ResultadoFactura> {
      const f = await fila(a, id);
      if (f.estado !== 'borrador' || f.timbrado_estado === 'pendiente') {
        throw new ErrorNegocio(
          'conflicto',
          f.estado !== 'borrador' ? 'factura_no_es_borrador' : 'timbrado_en_curso',
          f.estado !== 'borrador'
            ? `Solo se timbra una factura en borrador; la factura ${id} está ${f.estado}.`
            : `La factura ${id} ya se está timbrando.`,
          'id',
        );
      }
      if (f.tipo === 'pago') {
        // Its payment gave the balances back when the PAC refused it: stamping it now would bill nothing.
        throw new ErrorNegocio(
          'conflicto',
          'cfdi_de_pago_rechazado',
          `${id} es el CFDI de un pago que el PAC rechazó y que ya no cuenta en los saldos: registre el pago de nuevo con POST /v1/pagos.`,
          'id',
        );
      }
      deps.timbrador.exigirDisponible(a);
      await deps.csdVigente(a, f.organizacion_id, 'id');
      await repo.pedirTimbrado(a, id, await conPartesActuales(a, f));
      await deps.timbrador.timbrar(a, { id, organizacionId: f.organizacion_id });
      return resultadoTimbrado(a, id);
    },

    /**
     * POST …/timbrado/reintentar: a stamping waiting for the PAC (or the database) to come back tries again now,
     * not at its next backoff. Exactly once still: the PAC is first asked for the stamp of the same sealed XML.
     */
    async reintentarTimbrado(a: Alcance, id: string): Promise<ResultadoFactura> {
      const f = await fila(a, id);
      if (f.timbrado_estado !== 'pendiente') {
        throw new ErrorNegocio(
          'conflicto',
          'timbrado_no_pendiente',
          `Solo se reintenta un timbrado pendiente; el de la factura ${id} está ${f.timbrado_estado}.`,
          'id',
        );
      }
      await deps.timbrador.reintentar(a, {
        id,
        organizacionId: f.organizacion_id,
        pagoId: f.documento.pago?.id,
      });
      return resultadoTimbrado(a, id);
    },

    /**
     * POST …/timbrado/abandonar: a pending stamping retrying cannot fix (a PAC that refuses this document at the
     * transport, a sandbox fault) ends. Exactly once: the PAC is asked first whether it stamped the sealed XML, and
     * a stamp it has is recorded instead. Answers the invoice as it ended: `fallido` (`timbrado_abandonado`, event
     * `factura.timbrado_fallido` with the caller as its actor), `timbrada`, or still pending after the bounded wait.
     */
    async abandonarTimbrado(a: Alcance, id: string): Promise<ResultadoFactura> {
      const f = await fila(a, id);
      if (f.timbrado_estado !== 'pendiente') {
        throw new ErrorNegocio(
          'conflicto',
          'timbrado_no_pendiente',
          `Solo se abandona un timbrado pendiente; el de la factura ${id} está ${f.timbrado_estado}.`,
          'id',
        );
      }
      if (f.documento.pago) {
        throw new ErrorNegocio(
          'conflicto',
          'timbrado_no_abandonable',
          `${id} es el CFDI del pago ${f.documento.pago.id}: su timbrado es parte del registro del pago y no se abandona por separado; reintente con POST /v1/facturas/${id}/timbrado/reintentar.`,
          'id',
        );
      }
      await deps.timbrador.abandonar(a, { id, organizacionId: f.organizacion_id });
      const g = await fila(a, id);
      return { factura: dtoFactura(g), pendiente: g.timbrado_estado === 'pendiente' };
    },

    /**
     * POST …/cancelar: only a stamped invoice, one cancellation at a time; motivo 01 names the stamped
     * replacement, an invoice of the same organization that relates to this one with tipo_relacion 04.
     */
    async cancelar(a: Alcance, id: string, s: SolicitudCancelacion): Promise<ResultadoFactura> {
      // The request itself first: a substitution UUID belongs to motivo 01 and only to it.
      if (s.motivo === '01' && !s.uuid_sustitucion) {
        throw new ErrorNegocio(
          'solicitud_invalida',
          'uuid_sustitucion_requerido',
          'Con motivo 01 se requiere uuid_sustitucion: el UUID de la factura que sustituye a esta.',
          'uuid_sustitucion',
        );
      }
      if (s.motivo !== '01' && s.uuid_sustitucion !== undefined) {
        throw new ErrorNegocio(
          'solicitud_invalida',
          'uuid_sustitucion_no_permitido',
          `uuid_sustitucion solo se envía con motivo 01 (sustitución); el motivo ${s.motivo} no sustituye la factura.`,
          'uuid_sustitucion',
        );
      }
      // An id outside the scope is a 404 before anything else; the cancellation then needs the stamping PAC.
      const f = await fila(a, id);
      deps.timbrador.exigirDisponible(a);
      if (f.estado !== 'timbrada') {
        throw new ErrorNegocio(
          'conflicto',
          'factura_no_timbrada',
          `Solo se cancela una factura timbrada; la factura ${id} está ${f.estado}.`,
          'id',
        );
      }
      if (s.motivo === '01' && s.uuid_sustitucion) {
        const sustituta = await repo.timbradaPorUuid(a, f.organizacion_id, s.uuid_sustitucion);
        const relaciona = (sustituta?.documento.entrada.relaciones ?? []).some(
          (r) => r.tipo_relacion === '04' && r.uuids.some((u) => u.toUpperCase() === f.uuid),
        );
        if (!relaciona) {
          throw new ErrorNegocio(
            'regla_de_negocio',
            'sustitucion_invalida',
            `uuid_sustitucion debe ser una factura timbrada de la misma organización que relacione ${f.uuid} con tipo_relacion 04.`,
            'uuid_sustitucion',
          );
        }
      }
      // Under the invoice's lock: a payment being registered on it, or a second request, waits and then sees
      // this one (and this one sees theirs).
      await deps.transacciones.ejecutar(async (tx) => {
        const actual = (await repo.bloquear(tx, a, id))!;
        const pagos = await deps.pagos.vigentesDeFactura(a, id, tx);
        if (pagos.length) {
          throw new ErrorNegocio(
            'conflicto',
            'factura_con_pagos_vigentes',
            `La factura ${id} tiene pagos registrados (${pagos.join(', ')}): cancele primero sus CFDI de pago.`,
            'id',
          );
        }
        if (cancelacionEnCurso(actual.cancelacion)) {
          throw new ErrorNegocio(
            'conflicto',
            'cancelacion_en_curso',
            `La cancelación de ${id} ya está en curso.`,
            'id',
          );
        }
        const ahoraIso = ahora().toISOString();
        await repo.guardarCancelacion(
          a,
          id,
          {
            estado: 'solicitada',
            motivo: s.motivo,
            uuid_sustitucion: s.uuid_sustitucion?.toUpperCase() ?? null,
            solicitada_en: ahoraIso,
            actualizada_en: ahoraIso,
          },
          { tx },
        );
      });
      await deps.cancelador.cancelar(a, { id, organizacionId: f.organizacion_id });
      return resultadoCancelacion(a, id);
    },

    /**
     * POST …/cancelacion/reintentar: a cancellation still `solicitada` (the PAC not answering) or `en_proceso` (the
     * receiver deciding) asks again now instead of at its next retry or poll. The PAC answers a repeated request
     * with its current state (202), so nothing is requested twice.
     */
    async reintentarCancelacion(a: Alcance, id: string): Promise<ResultadoFactura> {
      const f = await fila(a, id);
      if (!cancelacionEnCurso(f.cancelacion)) {
        throw new ErrorNegocio(
          'conflicto',
          'cancelacion_no_pendiente',
          `Solo se reintenta una cancelación en curso (solicitada o en_proceso); la factura ${id} ${
            f.cancelacion ? `tiene su cancelación ${f.cancelacion.estado}` : 'no tiene cancelación solicitada'
          }.`,
          'id',
        );
      }
      await deps.cancelador.reintentar(a, { id, organizacionId: f.organizacion_id });
      return resultadoCancelacion(a, id);
    },

    obtener: async (a: Alcance, id: string) => dtoFactura(await fila(a, id)),

    async listar(
      a: Alcance,
      filtros: {
        organizacion?: string;
        cliente?: string;
        estado?: string;
        tipo?: string;
        timbrado_estado?: string;
        creada_antes?: string;
        creada_desde?: string;
        /** The fiscal UUID, any case. */
        uuid?: string;
        /** A serie-folio as a person types it (`A-123`, `A123`, `123`). */
        folio?: string;
      },
      pagina: Pagina,
    ) {
      // The client filter takes a client id, or an RFC (any client with it, in any organization of the scope).
      const porId = filtros.cliente?.startsWith('cli_');
      if (porId && !(await deps.clientes.existio(a, filtros.cliente!))) {
        throw new ErrorNegocio(
          'no_encontrado',
          'cliente_no_encontrado',
          `El cliente ${filtros.cliente} no existe.`,
          'cliente',
        );
      }
      const f: FiltrosFacturas = {
        organizacionId: await deps.organizaciones.idDeFiltro(a, filtros.organizacion),
        clienteId: porId ? filtros.cliente : undefined,
        clienteRfc: filtros.cliente && !porId ? filtros.cliente.toUpperCase() : undefined,
        estado: filtros.estado,
        tipo: filtros.tipo,
        timbradoEstado: filtros.timbrado_estado,
        creadaAntes: filtros.creada_antes ? new Date(filtros.creada_antes) : undefined,
        creadaDesde: filtros.creada_desde ? new Date(filtros.creada_desde) : undefined,
        uuid: filtros.uuid?.toUpperCase(),
        serieFolio: filtros.folio ? candidatosSerieFolio(filtros.folio) : undefined,
      };
      return mapearTramo(await repo.listar(a, f, pagina), dtoFactura);
    },

    /** The stamped XML exactly as the PAC returned it. */
    async xml(a: Alcance, id: string): Promise<string> {
      const x = await repo.xml(a, id);
      if (!x) throw noExiste(id);
      if (!x.timbrado) {
        throw new ErrorNegocio(
          'conflicto',
          'factura_no_timbrada',
          `La factura ${id} aún no está timbrada.`,
          'id',
        );
      }
      return x.timbrado;
    },

    /**
     * The SAT's acuse of the cancellation, verbatim as the PAC returned it; only once the cancellation is final
     * (an acuse of a request still pending or refused proves the request, not the cancellation).
     */
    async acuse(a: Alcance, id: string): Promise<string> {
      const r = await repo.acuseCancelacion(a, id);
      if (!r) throw noExiste(id);
      if (r.estado !== 'cancelada') {
        const c = r.cancelacion ? `cancelación ${r.cancelacion.estado}` : 'sin cancelación solicitada';
        throw new ErrorNegocio(
          'conflicto',
          'factura_no_cancelada',
          `La factura ${id} no está cancelada (${r.estado}, ${c}): el acuse se entrega cuando el SAT concluye la cancelación.`,
          'id',
        );
      }
      if (!r.acuse) {
        throw new ErrorNegocio(
          'conflicto',
          'acuse_no_disponible',
          `La factura ${id} está cancelada, pero no hay acuse guardado de su cancelación (el PAC no lo entregó, o se canceló antes de que el servicio los guardara): consulte su estado con GET /v1/facturas/${id}/estado_sat.`,
          'id',
        );
      }
      return r.acuse.xml;
    },

    /** What the SAT says of the invoice's CFDI now, asked through the PAC of the scope's mode. */
    async estadoSat(a: Alcance, id: string): Promise<EstadoSat> {
      const f = await fila(a, id);
      if (!f.uuid) {
        throw new ErrorNegocio(
          'conflicto',
          'factura_no_timbrada',
          `La factura ${id} aún no está timbrada (estado ${f.estado}): no tiene UUID que consultar en el SAT.`,
          'id',
        );
      }
      const doc = f.documento;
      const s = await deps
        .sat(a.modo, {
          rfcEmisor: doc.entrada.emisor.rfc,
          rfcReceptor: doc.entrada.receptor.rfc,
          total: doc.importes.total,
          uuid: f.uuid,
        })
        .catch(satNoDisponible);
      return dtoEstadoSat({ id, modo: f.modo, uuid: f.uuid }, s, ahora());
    },

    async pdf(a: Alcance, id: string): Promise<Buffer> {
      const x = await repo.pdf(a, id);
      if (!x) throw noExiste(id);
      if (x.pdf) return x.pdf;
      if (!x.timbrada) {
        throw new ErrorNegocio(
          'conflicto',
          'factura_no_timbrada',
          `La factura ${id} aún no está timbrada (estado ${x.estado}): el PDF existe desde que se timbra.`,
          'id',
        );
      }
      // Stamped, PDF still in the rendering queue: rendered now, answered in the same request.
      await deps.timbrador.pedirPdf(a, id);
      const listo = await repo.pdf(a, id);
      if (listo?.pdf) return listo.pdf;
      throw new ErrorNegocio(
        'conflicto',
        'pdf_en_proceso',
        `El PDF de la factura ${id} se está generando: reintente en unos segundos.`,
        'id',
        { reintentarEnSegundos: 2 },
      );
    },
  };
}

export type ServicioFacturas = ReturnType<typeof crearServicioFacturas>;
