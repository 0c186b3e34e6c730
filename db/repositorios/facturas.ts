import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import type {
  Cancelacion,
  DocumentoFactura,
  ErrorTimbrado,
  EstadoFactura,
  EstadoTimbrado,
  TipoFactura,
} from '../../dominio/factura';
import { mapearTramo, type Pagina, type Tramo } from '../../dominio/paginacion';
import { paginar } from '../paginacion';
import { conexion, type Transaccion } from '../transacciones';
import { columnasAlcance, conAlcance, leerJson, sinDuplicar } from './con-alcance';

export interface FilaFactura {
  id: string;
  modo: Modo;
  organizacion_id: string;
  cliente_id: string | null;
  tipo: TipoFactura;
  estado: EstadoFactura;
  documento: DocumentoFactura;
  total: string;
  metodo_pago: string | null;
  uuid: string | null;
  fecha_timbrado: string | null;
  no_certificado: string | null;
  no_certificado_sat: string | null;
  timbrado_estado: EstadoTimbrado;
  timbrado_intentos: number;
  timbrado_error: ErrorTimbrado | null;
  cancelacion: Cancelacion | null;
  /** The vigente instalments paid to this invoice (a PPD invoice), oldest first. */
  parcialidades: ParcialidadFactura[];
  /** Of a payment CFDI: the payment that issued it. */
  pago_id: string | null;
  creado_en: Date;
  actualizado_en: Date;
}

/** An instalment as the paid invoice lists it. Amounts as the ledger keeps them (6 decimals). */
export interface ParcialidadFactura {
  pago: string;
  factura_pago: string;
  num_parcialidad: number;
  imp_saldo_anterior: string;
  imp_pagado: string;
  imp_saldo_insoluto: string;
}

/** Everything but the XML and PDF payloads, which only their own endpoints read. */
const COLUMNAS = [
  'id',
  'modo',
  'organizacion_id',
  'cliente_id',
  'tipo',
  'estado',
  'documento',
  'total',
  'metodo_pago',
  'uuid',
  'fecha_timbrado',
  'no_certificado',
  'no_certificado_sat',
  'timbrado_estado',
  'timbrado_intentos',
  'timbrado_error',
  'cancelacion',
  'creado_en',
  'actualizado_en',
];

// Derived from the ledger on every read, so the balance can never disagree with it. Amounts as text: a JSON
// number would come back as a float.
const PARCIALIDADES = `(SELECT JSON_ARRAYAGG(JSON_OBJECT(
    'pago', pf.pago_id, 'factura_pago', p.factura_pago_id, 'num_parcialidad', pf.num_parcialidad,
    'imp_saldo_anterior', CAST(pf.imp_saldo_anterior AS CHAR), 'imp_pagado', CAST(pf.imp_pagado AS CHAR),
    'imp_saldo_insoluto', CAST(pf.imp_saldo_insoluto AS CHAR)))
  FROM pagos_facturas pf JOIN pagos p ON p.id = pf.pago_id
  WHERE pf.factura_id = facturas.id AND pf.vigente) AS parcialidades`;
const PAGO = '(SELECT p.id FROM pagos p WHERE p.factura_pago_id = facturas.id) AS pago_id';

type FilaBd = Omit<FilaFactura, 'documento' | 'timbrado_error' | 'cancelacion' | 'parcialidades'> & {
  documento: unknown;
  timbrado_error: unknown;
  cancelacion: unknown;
  parcialidades: unknown;
};

/** What a locking read returns: the row alone. The ledger is read after the lock, by a plain read. */
export type FilaFacturaBloqueada = Omit<FilaFactura, 'parcialidades' | 'pago_id'>;

const leerBloqueada = (f: Omit<FilaBd, 'parcialidades' | 'pago_id'>): FilaFacturaBloqueada => ({
  ...f,
  documento: leerJson<DocumentoFactura>(f.documento),
  timbrado_error: f.timbrado_error === null ? null : leerJson<ErrorTimbrado>(f.timbrado_error),
  cancelacion: f.cancelacion === null ? null : leerJson<Cancelacion>(f.cancelacion),
});

const leer = (f: FilaBd): FilaFactura => ({
  ...leerBloqueada(f),
  pago_id: f.pago_id,
  parcialidades:
    f.parcialidades === null
      ? []
      : leerJson<ParcialidadFactura[]>(f.parcialidades).sort((x, y) => x.num_parcialidad - y.num_parcialidad),
});

export interface FiltrosFacturas {
  organizacionId?: string;
  clienteId?: string;
  /** Any client with this RFC (the copy the invoice keeps). */
  clienteRfc?: string;
  estado?: string;
  tipo?: string;
  timbradoEstado?: string;
  /** Created strictly before / at or after this instant: the age of a pending stamping. */
  creadaAntes?: Date;
  creadaDesde?: Date;
  /** The fiscal UUID, upper case as stored (`facturas.uuid` is unique). */
  uuid?: string;
  /** Any of these serie-folio readings (dominio/cobranza `candidatosSerieFolio`); a null serie is any serie. */
  serieFolio?: { serie: string | null; folio: string }[];
}

export interface FacturaNueva {
  id: string;
  organizacion_id: string;
  cliente_id: string | null;
  tipo: TipoFactura;
  documento: DocumentoFactura;
  timbrado_estado: Extract<EstadoTimbrado, 'pendiente' | 'no_solicitado'>;
}

export interface TimbreGuardado {
  uuid: string;
  xml: string;
  fechaTimbrado: string;
  noCertificadoSat: string;
}

/** The SAT's acknowledgement of a cancellation request, as the PAC returned it. */
export interface AcuseCancelacion {
  /** The acuse's XML, verbatim: it is the issuer's evidence. */
  xml: string;
  /** Its date as the PAC wrote it (the SAT's local time, no zone). */
  fecha: string;
}

/** What rendering the PDF needs: the stamped XML and the organization's accent color. */
export interface DatosPdf {
  xmlTimbrado: string | null;
  tienePdf: boolean;
  colorAcento: string;
}

export function crearRepositorioFacturas(db: Knex) {
  const tabla = (a: Alcance, tx?: Transaccion) => conAlcance(conexion(db, tx), 'facturas', a);
  const columnas = [...COLUMNAS, db.raw(PARCIALIDADES), db.raw(PAGO)];

  async function obtener(a: Alcance, id: string, tx?: Transaccion): Promise<FilaFactura | undefined> {
    const f = (await tabla(a, tx).select(columnas).where({ id }).first()) as FilaBd | undefined;
    return f && leer(f);
  }

  async function actualizar(a: Alcance, id: string, cambios: Record<string, unknown>, tx?: Transaccion) {
    await tabla(a, tx)
      .where({ id })
      .update({ ...cambios, actualizado_en: new Date() });
  }

  return {
    obtener,

    /** The invoice and its sealed XML in one read: what every stamping step starts from. */
    async obtenerConSellado(
      a: Alcance,
      id: string,
    ): Promise<(FilaFactura & { xmlSellado: string | null }) | undefined> {
      const f = (await tabla(a)
        .select([...columnas, 'xml_sellado'])
        .where({ id })
        .first()) as (FilaBd & { xml_sellado: string | null }) | undefined;
      return f && { ...leer(f), xmlSellado: f.xml_sellado };
    },

    async listar(a: Alcance, f: FiltrosFacturas, pagina: Pagina): Promise<Tramo<FilaFactura>> {
      const c = tabla(a).select(columnas);
      if (f.organizacionId) c.where('organizacion_id', f.organizacionId);
      if (f.clienteId) c.where('cliente_id', f.clienteId);
      if (f.clienteRfc) {
        // The receiver's RFC as migration 023 keeps it: an index range, not a JSON parse per row.
        c.where('cliente_rfc', f.clienteRfc);
      }
      if (f.estado) c.where('estado', f.estado);
      if (f.tipo) c.where('tipo', f.tipo);
      if (f.timbradoEstado) c.where('timbrado_estado', f.timbradoEstado);
      if (f.creadaAntes) c.where('creado_en', '<', f.creadaAntes);
      if (f.creadaDesde) c.where('creado_en', '>=', f.creadaDesde);
      if (f.uuid) c.where('uuid', f.uuid);
      // Virtual columns of the document's serie and folio, indexed with the scope (023): an index range each.
      if (f.serieFolio?.length) {
        const candidatos = f.serieFolio;
        c.where((w) => {
          for (const sf of candidatos)
            w.orWhere((o) => {
              o.where('folio', sf.folio);
              if (sf.serie !== null) o.where('serie', sf.serie);
            });
        });
      }
      return mapearTramo(await paginar<FilaBd>(c, pagina), leer);
    },

    /** A stamped invoice of an organization by its UUID (the replacement a cancellation names). */
    async timbradaPorUuid(
      a: Alcance,
      organizacionId: string,
      uuid: string,
    ): Promise<FilaFactura | undefined> {
      const f = (await tabla(a)
        .select(columnas)
        .where({ organizacion_id: organizacionId, estado: 'timbrada', uuid: uuid.toUpperCase() })
        .first()) as FilaBd | undefined;
      return f && leer(f);
    },

    /**
     * Locks several invoices in id order (two transactions locking overlapping sets never deadlock), then
     * reads them with their ledger: every ledger write of an invoice holds its lock, so this read is current.
     */
    async bloquearVarias(tx: Transaccion, a: Alcance, ids: string[]): Promise<FilaFactura[]> {
      await tabla(a, tx).select('id').whereIn('id', ids).orderBy('id').forUpdate();
      const filas = (await tabla(a, tx).select(columnas).whereIn('id', ids).orderBy('id')) as FilaBd[];
      return filas.map(leer);
    },

    /** Locks the row for a state transition inside `tx`. */
    async bloquear(tx: Transaccion, a: Alcance, id: string): Promise<FilaFacturaBloqueada | undefined> {
      const f = await tabla(a, tx).select(COLUMNAS).where({ id }).forUpdate().first();
      return f && leerBloqueada(f);
    },

    async insertar(tx: Transaccion, a: Alcance, n: FacturaNueva): Promise<void> {
      await conexion(
        db,
        tx,
      )('facturas').insert({
        ...n,
        ...columnasAlcance(a),
        estado: 'borrador',
        documento: JSON.stringify(n.documento),
        total: n.documento.importes.total,
        metodo_pago: n.documento.entrada.metodo_pago ?? null,
      });
    },

    /** Next automatic folio of an organization and series, atomically (inside the creating transaction). */
    async siguienteFolio(tx: Transaccion, organizacionId: string, serie: string): Promise<string> {
      const [r] = await conexion(db, tx).raw(
        `INSERT INTO folios (organizacion_id, serie, ultimo) VALUES (?, ?, 1)
         ON DUPLICATE KEY UPDATE ultimo = LAST_INSERT_ID(ultimo + 1)`,
        [organizacionId, serie],
      );
      const { affectedRows, insertId } = r as { affectedRows: number; insertId: number };
      return String(affectedRows === 1 ? 1 : insertId);
    },

    /** A draft asked to stamp again: its document refreshed and the last error cleared. */
    async pedirTimbrado(a: Alcance, id: string, documento: DocumentoFactura): Promise<void> {
      await actualizar(a, id, {
        timbrado_estado: 'pendiente',
        timbrado_error: null,
        documento: JSON.stringify(documento),
      });
    },

    /**
     * Keeps the first sealing only: a concurrent retry reuses it instead of sealing another Fecha. The
     * document gets the Fecha that was sealed. Answers whether this one was written; `contarIntento`: the same
     * write counts the PAC attempt about to be made with it (see contarIntento).
     */
    async guardarSello(
      a: Alcance,
      id: string,
      s: { xml: string; noCertificado: string; documento: DocumentoFactura },
      o: { contarIntento?: boolean } = {},
    ): Promise<boolean> {
      const n = await tabla(a)
        .where({ id })
        .whereNull('xml_sellado')
        .update({
          xml_sellado: s.xml,
          no_certificado: s.noCertificado,
          documento: JSON.stringify(s.documento),
          ...(o.contarIntento ? { timbrado_intentos: db.raw('timbrado_intentos + 1') } : {}),
          actualizado_en: new Date(),
        });
      return n === 1;
    },

    /** Counts an attempt to reach the PAC before making it: a later attempt knows to ask for a lost answer. */
    async contarIntento(a: Alcance, id: string): Promise<void> {
      await tabla(a)
        .where({ id })
        .update({ timbrado_intentos: db.raw('timbrado_intentos + 1'), actualizado_en: new Date() });
    },

    /**
     * Why a pending stamping is still pending (the PAC unreachable): shown in `timbrado.ultimo_error` until the
     * stamp (which clears it) or a definitive rejection (which replaces it).
     */
    async anotarErrorTransitorio(a: Alcance, id: string, error: ErrorTimbrado): Promise<void> {
      await tabla(a)
        .where({ id, timbrado_estado: 'pendiente' })
        .update({ timbrado_error: JSON.stringify(error), actualizado_en: new Date() });
    },

    /** The stamp; its UUID is unique, so a UUID of another invoice comes out as `RegistroDuplicado`. */
    async guardarTimbre(tx: Transaccion, a: Alcance, id: string, t: TimbreGuardado): Promise<void> {
      await sinDuplicar(() =>
        actualizar(
          a,
          id,
          {
            estado: 'timbrada',
            uuid: t.uuid.toUpperCase(),
            xml_timbrado: t.xml,
            fecha_timbrado: t.fechaTimbrado,
            no_certificado_sat: t.noCertificadoSat,
            timbrado_estado: 'timbrada',
            timbrado_error: null,
          },
          tx,
        ),
      );
    },

    /** A definitive rejection: never stamped, so the sealed XML is dropped (a later stamping seals anew). */
    async guardarRechazo(tx: Transaccion, a: Alcance, id: string, error: ErrorTimbrado): Promise<void> {
      await actualizar(
        a,
        id,
        { timbrado_estado: 'fallido', timbrado_error: JSON.stringify(error), xml_sellado: null },
        tx,
      );
    },

    /**
     * The cancellation's new state; `cancelada` also moves the invoice itself. `acuse`, in the same statement:
     * kept only where none is stored yet, unless `reemplazar` (a request the SAT took as new).
     */
    async guardarCancelacion(
      a: Alcance,
      id: string,
      c: Cancelacion,
      o: { cancelada?: boolean; tx?: Transaccion; acuse?: AcuseCancelacion & { reemplazar: boolean } } = {},
    ): Promise<void> {
      const acuse = o.acuse && {
        // The date first: MariaDB assigns left to right, so it must still see the old acuse.
        acuse_cancelacion_fecha: o.acuse.reemplazar
          ? o.acuse.fecha
          : db.raw('IF(acuse_cancelacion IS NULL, ?, acuse_cancelacion_fecha)', [o.acuse.fecha]),
        acuse_cancelacion: o.acuse.reemplazar
          ? o.acuse.xml
          : db.raw('COALESCE(acuse_cancelacion, ?)', [o.acuse.xml]),
      };
      await actualizar(
        a,
        id,
        { cancelacion: JSON.stringify(c), ...(o.cancelada ? { estado: 'cancelada' } : {}), ...acuse },
        o.tx,
      );
    },

    /** The stored acuse of the invoice's cancellation, with what says whether the cancellation is final. */
    async acuseCancelacion(
      a: Alcance,
      id: string,
    ): Promise<
      { estado: EstadoFactura; cancelacion: Cancelacion | null; acuse: AcuseCancelacion | null } | undefined
    > {
      const f = await tabla(a)
        .select('estado', 'cancelacion', 'acuse_cancelacion', 'acuse_cancelacion_fecha')
        .where({ id })
        .first();
      return (
        f && {
          estado: f.estado,
          cancelacion: f.cancelacion === null ? null : leerJson<Cancelacion>(f.cancelacion),
          acuse:
            f.acuse_cancelacion === null
              ? null
              : { xml: f.acuse_cancelacion, fecha: f.acuse_cancelacion_fecha ?? '' },
        }
      );
    },

    async xml(
      a: Alcance,
      id: string,
    ): Promise<{ sellado: string | null; timbrado: string | null } | undefined> {
      const f = await tabla(a).select('xml_sellado', 'xml_timbrado').where({ id }).first();
      return f && { sellado: f.xml_sellado, timbrado: f.xml_timbrado };
    },

    /** The stored PDF, and whether there is a stamped XML to render one from. */
    async pdf(
      a: Alcance,
      id: string,
    ): Promise<{ pdf: Buffer | null; estado: EstadoFactura; timbrada: boolean } | undefined> {
      const f = await tabla(a)
        .select('pdf', 'estado', db.raw('xml_timbrado IS NOT NULL AS timbrada'))
        .where({ id })
        .first();
      return f && { pdf: f.pdf, estado: f.estado, timbrada: Boolean(f.timbrada) };
    },

    async datosPdf(a: Alcance, id: string): Promise<DatosPdf | undefined> {
      const f = await tabla(a)
        .join('organizaciones as o', 'o.id', 'facturas.organizacion_id')
        .where('facturas.id', id)
        .first('facturas.xml_timbrado', db.raw('facturas.pdf IS NOT NULL AS tiene_pdf'), 'o.color_acento');
      return (
        f && { xmlTimbrado: f.xml_timbrado, tienePdf: Boolean(f.tiene_pdf), colorAcento: f.color_acento }
      );
    },

    /** The first stored PDF stays: a concurrent render of the same invoice does not replace it. */
    async guardarPdf(a: Alcance, id: string, pdf: Buffer): Promise<void> {
      await tabla(a).where({ id }).whereNull('pdf').update({ pdf });
    },

    /**
     * System work, across accounts (the start reconciler): stampings still pending and cancellations still in
     * progress, untouched since before `antesDe`, oldest first. A payment CFDI's stamping is its payment's work.
     */
    async procesosPendientes(
      antesDe: Date,
      limite: number,
    ): Promise<{ timbrados: ProcesoPendiente[]; cancelaciones: ProcesoPendiente[] }> {
      const pendientes = () =>
        db('facturas')
          .select('id', 'cuenta_id', 'modo', 'organizacion_id')
          .where('actualizado_en', '<', antesDe)
          .orderBy('actualizado_en')
          .limit(limite);
      const [timbrados, cancelaciones] = await Promise.all([
        pendientes().where('timbrado_estado', 'pendiente').whereNot('tipo', 'pago'),
        pendientes().whereIn('cancelacion_estado', ['solicitada', 'en_proceso']),
      ]);
      return { timbrados, cancelaciones };
    },

    /**
     * Operational figures for the metrics, across every account and mode on purpose: only the operator's
     * `GET /metricas` reads them, and they carry no data of any account. How many stampings are pending, and
     * how long ago the oldest pending invoice was created (from the creation rather than `actualizado_en`,
     * which every retry moves: a stamping retried for hours must not look fresh). An index range
     * (`facturas_timbrado_pendiente`): the cost follows the backlog, not the table.
     */
    async pendientesDeTimbrar(): Promise<TimbradosPendientes> {
      const fila = (await db('facturas').where('timbrado_estado', 'pendiente').first(
        db.raw('COUNT(*) AS pendientes'),
        // Both sides on the server's clock: no skew with this process's.
        db.raw('UNIX_TIMESTAMP(NOW(3)) - UNIX_TIMESTAMP(MIN(creado_en)) AS segundos'),
      )) as { pendientes: number | string; segundos: number | string | null };
      return {
        pendientes: Number(fila.pendientes),
        masAntiguoSegundos: fila.segundos === null ? 0 : Math.max(0, Number(fila.segundos)),
      };
    },
  };
}

/** Pending stampings across the whole service (see `pendientesDeTimbrar`). */
export interface TimbradosPendientes {
  pendientes: number;
  /** Age of the oldest pending one, in seconds; 0 when none is pending. */
  masAntiguoSegundos: number;
}

/** An operation MySQL says is waiting, with what its workflow needs to start. */
export interface ProcesoPendiente {
  id: string;
  cuenta_id: string;
  modo: Modo;
  organizacion_id: string;
}

export type RepositorioFacturas = ReturnType<typeof crearRepositorioFacturas>;
