import type { Knex } from 'knex';
import type { EsCancelable, EstatusCancelacion } from '../puerto';
import type { EstadoCancelacion, TimbreCancelable } from './reglas-cancelacion';

/**
 * The sandbox's stamps, in MySQL so restarts keep them. The table belongs to the sandbox (not to the
 * application's migrations): it creates it at start. Keyed by the SHA-256 of the sealed XML as
 * received, with the SHA-256 of its Sello as a second key, so the same document re-serialized is still
 * recognized as the same, and by UUID.
 */

export const TABLA_TIMBRES = 'pac_sandbox_timbres';

const CREAR = `CREATE TABLE IF NOT EXISTS ${TABLA_TIMBRES} (
  huella CHAR(64) NOT NULL,
  huella_sello CHAR(64) NOT NULL,
  uuid CHAR(36) NOT NULL,
  rfc_emisor VARCHAR(13) NOT NULL,
  rfc_receptor VARCHAR(13) NOT NULL,
  total VARCHAR(40) NOT NULL,
  total_mxn VARCHAR(60) NOT NULL,
  tipo_comprobante CHAR(1) NOT NULL,
  xml_timbrado LONGTEXT NOT NULL,
  fecha_timbrado DATETIME(3) NOT NULL,
  fecha_timbrado_local CHAR(19) NOT NULL,
  no_certificado_sat CHAR(20) NOT NULL,
  sello_sat TEXT NOT NULL,
  estado VARCHAR(20) NOT NULL DEFAULT 'Vigente',
  es_cancelable VARCHAR(40) NOT NULL,
  estatus_cancelacion VARCHAR(40) NOT NULL DEFAULT '',
  cancelacion_solicitada_en DATETIME(3) NULL,
  motivo CHAR(2) NULL,
  folio_sustitucion CHAR(36) NULL,
  relacionados TEXT NULL,
  forzar_aceptacion TINYINT(1) NOT NULL DEFAULT 0,
  plazo_aceptacion_ms INT NULL,
  PRIMARY KEY (huella),
  UNIQUE KEY uq_${TABLA_TIMBRES}_sello (huella_sello),
  UNIQUE KEY uq_${TABLA_TIMBRES}_uuid (uuid)
) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`;

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

const esDuplicado = (e: unknown) => (e as { code?: string }).code === 'ER_DUP_ENTRY';

export class AlmacenTimbres {
  constructor(private readonly db: Knex) {}

  async preparar(): Promise<void> {
    await this.db.raw(CREAR);
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
    extra: Partial<Pick<FilaTimbre, 'cancelacion_solicitada_en' | 'motivo' | 'folio_sustitucion'>> = {},
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
