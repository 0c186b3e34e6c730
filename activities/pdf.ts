import type { Knex } from 'knex';
import type { EntradaTimbrado } from './timbrado';

/** Renders the printed representation of a stamped CFDI (pdf/ implements it over a warm Chromium). */
export interface GeneradorPdf {
  generar(xmlTimbrado: string, colorAcento: string): Promise<Buffer>;
}

export function crearActividadesPdf(d: { db: Knex; pdf: GeneradorPdf }) {
  return {
    /** Renders and stores the PDF once; a retry after a crash renders again and overwrites the same row. */
    async generarPdf(e: EntradaTimbrado): Promise<void> {
      const f = await d
        .db('facturas as f')
        .join('organizaciones as o', 'o.id', 'f.organizacion_id')
        .where({ 'f.id': e.facturaId, 'f.cuenta_id': e.cuentaId, 'f.modo': e.modo })
        .first('f.xml_timbrado', 'f.pdf', 'o.color_acento');
      if (!f?.xml_timbrado || f.pdf) return;
      const pdf = await d.pdf.generar(f.xml_timbrado, f.color_acento);
      await d.db('facturas').where({ id: e.facturaId }).update({ pdf });
    },
  };
}
