import type { Esquema } from '../contrato';
import type { FilaCertificado } from '../db/repositorios/certificados';
import { iso } from './fechas';

/** Metadata only: the key and its password never leave the vault through the API. */
export function dtoCertificado(f: FilaCertificado): Esquema<'Certificado'> {
  return {
    id: f.id,
    objeto: 'certificado' as const,
    modo: f.modo,
    organizacion: f.organizacion_id,
    rfc: f.rfc,
    nombre_titular: f.nombre_titular,
    no_certificado: f.no_certificado,
    valido_desde: iso(f.valido_desde),
    valido_hasta: iso(f.valido_hasta),
    activo: Boolean(f.activo),
    de_prueba: Boolean(f.de_prueba),
    creado_en: iso(f.creado_en),
    actualizado_en: iso(f.actualizado_en),
  };
}

/** The one wording of an expired CSD, for the API's 422 and the stamping's rejection alike. */
export function mensajeCertificadoVencido(
  c: Pick<FilaCertificado, 'id' | 'no_certificado' | 'valido_hasta'>,
) {
  return `El certificado ${c.no_certificado} (${c.id}) venció el ${iso(c.valido_hasta).slice(0, 10)} y ya no puede sellar: suba un CSD vigente con POST /v1/certificados.`;
}
