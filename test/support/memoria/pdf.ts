import type { GeneradorPdf } from '../../../activities/pdf';
import type { Navegador } from '../../../pdf/navegador';

/** Renders a recognisable stand-in and records what it was asked to print. */
export function crearGeneradorPdfEnMemoria() {
  const llamadas: { xml: string; color: string }[] = [];
  const generador: GeneradorPdf = {
    async generar(xml, color) {
      llamadas.push({ xml, color });
      return Buffer.from(`%PDF-1.7 falso ${color} ${xml.length}`);
    },
  };
  return { ...generador, llamadas };
}

/** The browser as the health probe sees it: a version, or the error Chromium failed with. */
export const navegadorEnMemoria = (
  r: { version: string } | { error: Error },
): Pick<Navegador, 'version'> => ({
  version: async () => {
    if ('error' in r) throw r.error;
    return r.version;
  },
});
