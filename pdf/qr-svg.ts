import { create } from 'qrcode';

/**
 * The QR code as inline SVG, drawn here from the module matrix so rendering stays synchronous and the
 * printed symbol is vector (sharp at any resolution). Error correction M, as the SAT asks; `ladoMm` is
 * the side of the symbol itself, without the quiet zone (the page margin around it provides that).
 */
export function qrSvg(texto: string, ladoMm: number): string {
  const { modules } = create(texto, { errorCorrectionLevel: 'M' });
  const n = modules.size;
  let trazo = '';
  for (let y = 0; y < n; y++) {
    // One rectangle per horizontal run of dark modules keeps the path short.
    for (let x = 0; x < n; x++) {
      if (!modules.get(y, x)) continue;
      const inicio = x;
      while (x + 1 < n && modules.get(y, x + 1)) x++;
      trazo += `M${inicio} ${y}h${x - inicio + 1}v1h${-(x - inicio + 1)}z`;
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${n} ${n}" width="${ladoMm}mm" height="${ladoMm}mm"` +
    ` shape-rendering="crispEdges" role="img" aria-label="Código QR de verificación">` +
    `<rect width="${n}" height="${n}" fill="#fff"/><path fill="#000" d="${trazo}"/></svg>`
  );
}
