import type { RepositorioFacturas } from '../db/repositorios/facturas';
import { alcanceSistema } from '../dominio/alcance';
import type { EntradaTimbrado } from './timbrado';

/** Renders the printed representation of a stamped CFDI (pdf/ implements it over a warm Chromium). */
export interface GeneradorPdf {
  generar(xmlTimbrado: string, colorAcento: string): Promise<Buffer>;
}

export function crearActividadesPdf(d: { facturas: RepositorioFacturas; pdf: GeneradorPdf }) {
  return {
    /** Renders and stores the PDF once; a retry after a crash renders again and overwrites the same row. */
    async generarPdf(e: EntradaTimbrado): Promise<void> {
      const a = alcanceSistema(e);
      const f = await d.facturas.datosPdf(a, e.facturaId);
      if (!f?.xmlTimbrado || f.tienePdf) return;
      await d.facturas.guardarPdf(a, e.facturaId, await d.pdf.generar(f.xmlTimbrado, f.colorAcento));
    },
  };
}
