import type { Alcance } from '../../api/alcance';
import { ApiError } from '../../api/errores';
import { paginar, type Pagina } from '../../api/paginacion';
import type { ConsultaCatalogos } from '../../cfdi/reglas/catalogos';
import { nuevoId } from '../../db/ids';
import type { RepositorioClientes } from '../../db/repositorios/clientes';
import type { RepositorioEventos } from '../../db/repositorios/eventos';
import {
  json,
  type FilaFactura,
  type FiltrosFacturas,
  type RepositorioFacturas,
} from '../../db/repositorios/facturas';
import type { ServicioOrganizaciones } from '../organizaciones';
import type { ServicioProductos } from '../productos';
import { armarDocumento, type FacturaNueva } from './armar';
import type { DocumentoFactura } from './documento';
import { dtoFactura, type ErrorTimbrado } from './dto';

/** Starts (or joins) the one stamping workflow of an invoice and waits for it a bounded time. */
export interface Timbrador {
  /** Refuses before anything is stored when stamping cannot happen at all in this mode (503). */
  exigirDisponible(a: Alcance): void;
  timbrar(a: Alcance, factura: { id: string; organizacionId: string }): Promise<void>;
}

/** Starts (or joins) the one cancellation workflow of an invoice and waits for the PAC's first answer. */
export interface Cancelador {
  cancelar(a: Alcance, factura: { id: string; organizacionId: string }): Promise<void>;
}

export interface SolicitudCancelacion {
  motivo: '01' | '02' | '03' | '04';
  uuid_sustitucion?: string;
}

export interface DepsFacturas {
  facturas: RepositorioFacturas;
  eventos: RepositorioEventos;
  clientes: RepositorioClientes;
  organizaciones: ServicioOrganizaciones;
  productos: ServicioProductos;
  catalogos: ConsultaCatalogos;
  timbrador: Timbrador;
  cancelador: Cancelador;
  ahora?: () => Date;
}

export type RespuestaFactura = { status: 200 | 201 | 202; factura: ReturnType<typeof dtoFactura> };

export function crearServicioFacturas(deps: DepsFacturas) {
  const ahora = deps.ahora ?? (() => new Date());
  const repo = deps.facturas;

  async function fila(a: Alcance, id: string): Promise<FilaFactura> {
    const f = await repo.obtener(a, id);
    if (!f) throw new ApiError('no_encontrado', 'factura_no_encontrada', `La factura ${id} no existe.`, 'id');
    return f;
  }

  /**
   * A draft is stamped with its issuer and client as they are now: correcting the client's SAT data (or the
   * organization's) after a rejection is what lets the draft be stamped. A deleted client keeps its copy.
   */
  async function conPartesActuales(a: Alcance, f: FilaFactura): Promise<DocumentoFactura> {
    const doc = json<DocumentoFactura>(f.documento)!;
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

  /** After a stamping attempt: stamped → `exito`, rejected → 422 naming the invoice, still running → 202. */
  async function resultado(a: Alcance, id: string, exito: 200 | 201): Promise<RespuestaFactura> {
    const f = await fila(a, id);
    if (f.timbrado_estado === 'fallido') {
      const e = json<ErrorTimbrado>(f.timbrado_error)!;
      const error = new ApiError(
        'regla_de_negocio',
        'timbrado_rechazado',
        `El timbrado de la factura ${id} fue rechazado: ${e.codigo} ${e.mensaje}`,
      );
      error.factura = id;
      throw error;
    }
    return { status: f.timbrado_estado === 'timbrada' ? exito : 202, factura: dtoFactura(f) };
  }

  return {
    async crear(a: Alcance, entrada: FacturaNueva): Promise<RespuestaFactura> {
      const documento = await armarDocumento({ ...deps, ahora }, a, entrada);
      const org = await deps.organizaciones.resolver(a, entrada.organizacion, 'organizacion');
      const autoTimbrar = entrada.auto_timbrar !== false;
      if (autoTimbrar) deps.timbrador.exigirDisponible(a);
      const id = nuevoId('fac');
      await repo.db.transaction(async (trx) => {
        if (documento.entrada.folio === undefined) {
          documento.entrada.folio = await repo.siguienteFolio(trx, org.id, documento.entrada.serie ?? '');
        }
        await repo.insertar(trx, a, {
          id,
          organizacion_id: org.id,
          cliente_id: documento.cliente.id,
          tipo: entrada.tipo,
          estado: 'borrador',
          documento: JSON.stringify(documento),
          total: documento.importes.total,
          metodo_pago: documento.entrada.metodo_pago ?? null,
          timbrado_estado: autoTimbrar ? 'pendiente' : 'no_solicitado',
        });
        if (!autoTimbrar) {
          const creada = dtoFactura((await repo.obtener(a, id, trx))!);
          await deps.eventos.registrar(trx, a, 'factura.creada', creada);
        }
      });
      if (!autoTimbrar) return { status: 201, factura: dtoFactura(await fila(a, id)) };
      await deps.timbrador.timbrar(a, { id, organizacionId: org.id });
      return resultado(a, id, 201);
    },

    /** POST …/timbrar: only a draft that is not already being stamped. */
    async timbrar(a: Alcance, id: string): Promise<RespuestaFactura> {
      const f = await fila(a, id);
      if (f.estado !== 'borrador' || f.timbrado_estado === 'pendiente') {
        throw new ApiError(
          'conflicto',
          f.estado !== 'borrador' ? 'factura_no_es_borrador' : 'timbrado_en_curso',
          f.estado !== 'borrador'
            ? `Solo se timbra una factura en borrador; la factura ${id} está ${f.estado}.`
            : `La factura ${id} ya se está timbrando.`,
          'id',
        );
      }
      deps.timbrador.exigirDisponible(a);
      await repo.actualizar(repo.db, a, id, {
        timbrado_estado: 'pendiente',
        timbrado_error: null,
        documento: JSON.stringify(await conPartesActuales(a, f)),
      });
      await deps.timbrador.timbrar(a, { id, organizacionId: f.organizacion_id });
      return resultado(a, id, 200);
    },

    /**
     * POST …/cancelar: only a stamped invoice, one cancellation at a time; motivo 01 names the stamped
     * replacement, an invoice of the same organization that relates to this one with tipo_relacion 04.
     */
    async cancelar(a: Alcance, id: string, s: SolicitudCancelacion): Promise<RespuestaFactura> {
      // The request itself first: a substitution UUID belongs to motivo 01 and only to it.
      if (s.motivo === '01' && !s.uuid_sustitucion) {
        throw new ApiError(
          'solicitud_invalida',
          'uuid_sustitucion_requerido',
          'Con motivo 01 se requiere uuid_sustitucion: el UUID de la factura que sustituye a esta.',
          'uuid_sustitucion',
        );
      }
      if (s.motivo !== '01' && s.uuid_sustitucion !== undefined) {
        throw new ApiError(
          'solicitud_invalida',
          'uuid_sustitucion_no_permitido',
          `uuid_sustitucion solo se envía con motivo 01 (sustitución); el motivo ${s.motivo} no sustituye la factura.`,
          'uuid_sustitucion',
        );
      }
      // The cancellation goes through the same PAC as stamping.
      deps.timbrador.exigirDisponible(a);
      const f = await fila(a, id);
      if (f.estado !== 'timbrada') {
        throw new ApiError(
          'conflicto',
          'factura_no_timbrada',
          `Solo se cancela una factura timbrada; la factura ${id} está ${f.estado}.`,
          'id',
        );
      }
      const previa = json<{ estado: string }>(f.cancelacion);
      if (previa && ['solicitada', 'en_proceso'].includes(previa.estado)) {
        throw new ApiError(
          'conflicto',
          'cancelacion_en_curso',
          `La cancelación de ${id} ya está en curso.`,
          'id',
        );
      }
      if (s.motivo === '01' && s.uuid_sustitucion) {
        const sustituta = await repo
          .consulta(a, { organizacionId: f.organizacion_id, estado: 'timbrada' })
          .where('uuid', s.uuid_sustitucion.toUpperCase())
          .first();
        const relaciones = sustituta
          ? (dtoFactura(sustituta).relaciones as { tipo_relacion: string; uuids: string[] }[])
          : [];
        const relaciona = relaciones.some(
          (r) => r.tipo_relacion === '04' && r.uuids.some((u) => u.toUpperCase() === f.uuid),
        );
        if (!relaciona) {
          throw new ApiError(
            'regla_de_negocio',
            'sustitucion_invalida',
            `uuid_sustitucion debe ser una factura timbrada de la misma organización que relacione ${f.uuid} con tipo_relacion 04.`,
            'uuid_sustitucion',
          );
        }
      }
      const ahoraIso = ahora().toISOString();
      await repo.actualizar(repo.db, a, id, {
        cancelacion: JSON.stringify({
          estado: 'solicitada',
          motivo: s.motivo,
          uuid_sustitucion: s.uuid_sustitucion?.toUpperCase() ?? null,
          solicitada_en: ahoraIso,
          actualizada_en: ahoraIso,
        }),
      });
      await deps.cancelador.cancelar(a, { id, organizacionId: f.organizacion_id });
      const final = await fila(a, id);
      return { status: final.estado === 'cancelada' ? 200 : 202, factura: dtoFactura(final) };
    },

    obtener: async (a: Alcance, id: string) => dtoFactura(await fila(a, id)),

    async listar(
      a: Alcance,
      filtros: { organizacion?: string; cliente?: string; estado?: string; tipo?: string },
      pagina: Pagina,
    ) {
      const f: FiltrosFacturas = {
        organizacionId: await deps.organizaciones.idDeFiltro(a, filtros.organizacion),
        estado: filtros.estado,
        tipo: filtros.tipo,
      };
      if (filtros.cliente) {
        // The filter takes a client id, or an RFC (any client with it, in any organization of the scope).
        f.clienteId = filtros.cliente.startsWith('cli_') ? filtros.cliente : undefined;
        if (!f.clienteId) {
          const q = repo
            .consulta(a, f)
            .whereRaw("JSON_UNQUOTE(JSON_EXTRACT(documento, '$.cliente.rfc')) = ?", [
              filtros.cliente.toUpperCase(),
            ]);
          return paginar(q, pagina, dtoFactura);
        }
      }
      return paginar(repo.consulta(a, f), pagina, dtoFactura);
    },

    /** The stamped XML exactly as the PAC returned it. */
    async xml(a: Alcance, id: string): Promise<string> {
      const x = await repo.xml(a, id);
      if (!x)
        throw new ApiError('no_encontrado', 'factura_no_encontrada', `La factura ${id} no existe.`, 'id');
      if (!x.timbrado) {
        throw new ApiError(
          'conflicto',
          'factura_sin_timbrar',
          `La factura ${id} aún no está timbrada.`,
          'id',
        );
      }
      return x.timbrado;
    },

    async pdf(a: Alcance, id: string): Promise<Buffer> {
      const x = await repo.pdf(a, id);
      if (!x)
        throw new ApiError('no_encontrado', 'factura_no_encontrada', `La factura ${id} no existe.`, 'id');
      if (!x.pdf) {
        throw new ApiError(
          'conflicto',
          x.estado === 'borrador' ? 'factura_sin_timbrar' : 'pdf_en_proceso',
          x.estado === 'borrador'
            ? `La factura ${id} aún no está timbrada: el PDF se genera al timbrarla.`
            : `El PDF de la factura ${id} se está generando: reintente en unos segundos.`,
          'id',
          x.estado === 'borrador' ? {} : { 'Retry-After': '2' },
        );
      }
      return x.pdf;
    },
  };
}

export type ServicioFacturas = ReturnType<typeof crearServicioFacturas>;
