import { create, toBuffer } from 'qrcode';

/**
 * The QR code as inline SVG, drawn here from the module matrix so rendering stays synchronous and the
 * printed symbol is vector (sharp at any resolution). Error correction M, as the SAT asks; `ladoMm` is
 * the side of the symbol itself, without the quiet zone (the page margin around it provides that).
 */
export function qrSvg(texto: string, ladoMm: number): string {
  return dibujarSvg(texto, 0, `width="${ladoMm}mm" height="${ladoMm}mm"`, 'Código QR de verificación');
}

/** Modules of quiet zone a standalone symbol carries (ISO/IEC 18004): nothing around it on a ticket provides it. */
const ZONA_SILENCIO = 4;

/** A standalone QR image (a receipt's ticket): SVG with its own quiet zone, scaled by whoever prints it. */
export function qrSvgDocumento(texto: string, etiqueta: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${dibujarSvg(texto, ZONA_SILENCIO, 'width="256" height="256"', etiqueta)}`;
}

/** The same symbol as PNG, 8 pixels per module, from the same library. */
export function qrPng(texto: string): Promise<Buffer> {
  return toBuffer(texto, { errorCorrectionLevel: 'M', margin: ZONA_SILENCIO, scale: 8, type: 'png' });
}

function dibujarSvg(texto: string, margen: number, tamano: string, etiqueta: string): string {
  const { modules } = create(texto, { errorCorrectionLevel: 'M' });
  const n = modules.size;
  const lado = n + 2 * margen;
  let trazo = '';
  for (let y = 0; y < n; y++) {
    // One rectangle per horizontal run of dark modules keeps the path short.
    for (let x = 0; x < n; x++) {
      if (!modules.get(y, x)) continue;
      const inicio = x;
      while (x + 1 < n && modules.get(y, x + 1)) x++;
      trazo += `M${inicio + margen} ${y + margen}h${x - inicio + 1}v1h${-(x - inicio + 1)}z`;
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${lado} ${lado}" ${tamano}` +
    ` shape-rendering="crispEdges" role="img" aria-label="${etiqueta}">` +
    `<rect width="${lado}" height="${lado}" fill="#fff"/><path fill="#000" d="${trazo}"/></svg>`
  );
}
