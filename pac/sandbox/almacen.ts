import type { Knex } from 'knex';
import { esDuplicado } from '../../db/repositorios/con-alcance';
import type { EsCancelable, EstatusCancelacion } from '../puerto';
import type { EstadoCancelacion, TimbreCancelable } from './reglas-cancelacion';

/**
 * The sandbox's stamps, in MySQL so restarts keep them (table from db/migrations/009_timbres_sandbox).
 * Keyed by the SHA-256 of the sealed XML as received, with the SHA-256 of its Sello as a second key, so
 * the same document re-serialized is still recognized as the same, and by UUID.
 */

export const TABLA_TIMBRES = 'pac_sandbox_timbres';

export interface FilaTimbre {
  huella: string;
  huella_sello: string;
  uuid: string;
  rfc_emisor: string;
  rfc_receptor: string;
  total: string;
  total_mxn: string;
  tipo_comprobante: string;
  xml_timbrado: string;
  fecha_timbrado: Date;
  fecha_timbrado_local: string;
  no_certificado_sat: string;
  sello_sat: string;
  estado: 'Vigente' | 'Cancelado';
  /** Decided by the document alone at stamping (the time window is applied when asked). */
  es_cancelable: EsCancelable;
  estatus_cancelacion: EstatusCancelacion;
  cancelacion_solicitada_en: Date | null;
  motivo: string | null;
  folio_sustitucion: string | null;
  /** UUIDs this CFDI relates to (other than as a replacement), comma-separated. */
  relacionados: string | null;
  forzar_aceptacion: number;
  plazo_aceptacion_ms: number | null;
}

export const comoCancelable = (f: FilaTimbre): TimbreCancelable => ({
  sinAceptacionPorDocumento: f.es_cancelable === 'Cancelable sin aceptación',
  forzarAceptacion: Boolean(f.forzar_aceptacion),
  fechaTimbrado: f.fecha_timbrado,
  estado: f.estado,
  estatusCancelacion: f.estatus_cancelacion,
  cancelacionSolicitadaEn: f.cancelacion_solicitada_en,
  plazoAceptacionMs: f.plazo_aceptacion_ms,
});

/** What the handlers need from the store: an interface, so tests can hand them a fake. */
export interface AlmacenTimbres {
  porHuellas(huella: string, huellaSello: string): Promise<FilaTimbre | undefined>;
  porUuid(uuid: string): Promise<FilaTimbre | undefined>;
  insertar(fila: FilaTimbre): Promise<{ nueva: true } | { nueva: false; existente: FilaTimbre }>;
  tieneRelacionadosVigentes(uuid: string): Promise<boolean>;
  cambiarEstado(
    uuid: string,
    desde: EstadoCancelacion,
    hacia: EstadoCancelacion,
    extra?: CamposSolicitud,
  ): Promise<boolean>;
}

/** What a cancellation request writes besides the state. */
export type CamposSolicitud = Partial<
  Pick<FilaTimbre, 'cancelacion_solicitada_en' | 'motivo' | 'folio_sustitucion'>
>;

export class AlmacenTimbresMysql implements AlmacenTimbres {
  constructor(private readonly db: Knex) {}

  /** Fails with a hint when the migrations have not run: the sandbox no longer creates its table. */
  async verificarTabla(): Promise<void> {
    if (!(await this.db.schema.hasTable(TABLA_TIMBRES))) {
      throw new Error(`falta la tabla ${TABLA_TIMBRES}: ejecute las migraciones (npm run -s db:migrar)`);
    }
  }

  async porHuellas(huella: string, huellaSello: string): Promise<FilaTimbre | undefined> {
    const filas = (await this.db(TABLA_TIMBRES)
      .where({ huella })
      .orWhere({ huella_sello: huellaSello })
      .limit(1)) as FilaTimbre[];
    return filas[0];
  }

  async porUuid(uuid: string): Promise<FilaTimbre | undefined> {
    return (await this.db(TABLA_TIMBRES).where({ uuid: uuid.toUpperCase() }).first()) as
      | FilaTimbre
      | undefined;
  }

  /** Inserts a new stamp; when a concurrent request stored the same document first, returns that one. */
  async insertar(fila: FilaTimbre): Promise<{ nueva: true } | { nueva: false; existente: FilaTimbre }> {
    try {
      await this.db(TABLA_TIMBRES).insert(fila);
      return { nueva: true };
    } catch (e) {
      if (!esDuplicado(e)) throw e;
      const existente = await this.porHuellas(fila.huella, fila.huella_sello);
      if (!existente) throw e;
      return { nueva: false, existente };
    }
  }

  /** Live (Vigente) CFDIs that relate to this UUID: while any exists it cannot be cancelled. */
  async tieneRelacionadosVigentes(uuid: string): Promise<boolean> {
    const fila = await this.db(TABLA_TIMBRES)
      .where({ estado: 'Vigente' })
      .andWhere('relacionados', 'like', `%${uuid.toUpperCase()}%`)
      .first('uuid');
    return fila !== undefined;
  }

  /**
   * Writes a new cancellation state only if the row still has the state the decision was made on, so
   * an answer racing with another (or with the term running out) cannot overwrite it. True if written.
   */
  async cambiarEstado(
    uuid: string,
    desde: EstadoCancelacion,
    hacia: EstadoCancelacion,
    extra: CamposSolicitud = {},
  ): Promise<boolean> {
    const n = await this.db(TABLA_TIMBRES)
      .where({
        uuid: uuid.toUpperCase(),
        estado: desde.estado,
        estatus_cancelacion: desde.estatusCancelacion,
      })
      .update({ estado: hacia.estado, estatus_cancelacion: hacia.estatusCancelacion, ...extra });
    return n > 0;
  }
}
