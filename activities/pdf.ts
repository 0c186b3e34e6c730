import { Context } from '@temporalio/activity';
import type { RepositorioFacturas } from '../db/repositorios/facturas';
import { alcanceSistema } from '../dominio/alcance';
import type { EntradaTimbrado } from './timbrado';

/** Renders the printed representation of a stamped CFDI (pdf/ implements it over a warm Chromium). */
export interface GeneradorPdf {
  generar(xmlTimbrado: string, colorAcento: string): Promise<Buffer>;
}

/** Starts (or joins) the PDF workflow of a stamped CFDI (`pdf:<factura>`, temporal/pdf.ts). */
export interface ColaPdf {
  encolar(e: EntradaTimbrado): Promise<void>;
}

// A render under load takes a second or two; the heartbeat lets a dead worker's render be retried within
// the heartbeat timeout instead of the start-to-close one.
const LATIDO_MS = 5_000;

function conLatidos<T>(trabajo: Promise<T>): Promise<T> {
  const ctx = Context.current();
  if (ctx.info.isLocal) return trabajo;
  // The server times the heartbeat from the start: no heartbeat before the first interval (a render usually ends
  // sooner, and each heartbeat is a call and a write on the server).
  const reloj = setInterval(() => ctx.heartbeat(), LATIDO_MS);
  return trabajo.finally(() => clearInterval(reloj));
}

export function crearActividadesPdf(d: { facturas: RepositorioFacturas; pdf: GeneradorPdf }) {
  return {
    /** Renders and stores the PDF once; a render that finds it stored (by a concurrent one) leaves it. */
    async generarPdf(e: EntradaTimbrado): Promise<void> {
      const a = alcanceSistema(e);
      const f = await d.facturas.datosPdf(a, e.facturaId);
      if (!f?.xmlTimbrado || f.tienePdf) return;
      const pdf = await conLatidos(d.pdf.generar(f.xmlTimbrado, f.colorAcento));
      await d.facturas.guardarPdf(a, e.facturaId, pdf);
    },
  };
}
