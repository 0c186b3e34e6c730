import { html, type Html } from './html';

export interface Serie {
  nombre: string;
  /** A fill with AA contrast against white. */
  color: string;
  valores: number[];
}

const ANCHO = 720;
const ALTO = 220;
const MARGEN = { izq: 64, der: 8, arr: 10, aba: 28 };

/** 1, 2 or 5 times a power of ten: round gridlines above the largest value. */
function escala(maximo: number): number {
  if (maximo <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(maximo));
  return [1, 2, 5, 10].map((k) => k * p).find((v) => v >= maximo)!;
}

/**
 * Grouped bars as inline SVG (no script, no library): one group per period, one bar per series, four gridlines.
 * The figure is named for screen readers and its numbers follow in a table, so nothing is only in the picture.
 */
export function graficaBarras(d: {
  id: string;
  titulo: string;
  etiquetas: string[];
  series: Serie[];
  /** The axis' labels. */
  formato: (v: number) => string;
  /** Each bar's and the table's figures (the axis' by default). */
  formatoDatos?: (v: number) => string;
}): Html {
  const datos = d.formatoDatos ?? d.formato;
  const n = d.etiquetas.length;
  const tope = escala(Math.max(0, ...d.series.flatMap((s) => s.valores)));
  const anchoUtil = ANCHO - MARGEN.izq - MARGEN.der;
  const altoUtil = ALTO - MARGEN.arr - MARGEN.aba;
  const grupo = n ? anchoUtil / n : anchoUtil;
  const barra = Math.max(1, (grupo * 0.8) / Math.max(1, d.series.length));
  const y = (v: number) => MARGEN.arr + altoUtil - (v / tope) * altoUtil;
  // At most ~12 labels under the axis, whatever the number of periods.
  const cada = Math.max(1, Math.ceil(n / 12));
  const lineas = [0, 0.25, 0.5, 0.75, 1].map((k) => k * tope);
  return html`<figure class="grafica" aria-labelledby="${d.id}-titulo">
    <figcaption id="${d.id}-titulo"><strong>${d.titulo}</strong></figcaption>
    <svg viewBox="0 0 ${ANCHO} ${ALTO}" role="img" aria-labelledby="${d.id}-titulo" focusable="false">
      ${lineas.map(
        (v) =>
          html`<line
              x1="${MARGEN.izq}"
              x2="${ANCHO - MARGEN.der}"
              y1="${y(v).toFixed(1)}"
              y2="${y(v).toFixed(1)}"
              stroke="#d0d5db"
              stroke-width="1"
            />
            <text
              x="${MARGEN.izq - 6}"
              y="${(y(v) + 4).toFixed(1)}"
              text-anchor="end"
              font-size="11"
              fill="#4d5660"
              >${d.formato(v)}</text
            >`,
      )}
      ${d.etiquetas.map((et, i) => {
        const x0 = MARGEN.izq + i * grupo + grupo * 0.1;
        return html`<g
          >${d.series.map((s, j) => {
            const v = s.valores[i] ?? 0;
            return html`<rect
              x="${(x0 + j * barra).toFixed(1)}"
              y="${y(v).toFixed(1)}"
              width="${Math.max(1, barra - 1).toFixed(1)}"
              height="${(MARGEN.arr + altoUtil - y(v)).toFixed(1)}"
              fill="${s.color}"
              ><title>${et} · ${s.nombre}: ${datos(v)}</title></rect
            >`;
          })}${i % cada === 0
            ? html`<text
                x="${(MARGEN.izq + i * grupo + grupo / 2).toFixed(1)}"
                y="${ALTO - 8}"
                text-anchor="middle"
                font-size="11"
                fill="#4d5660"
                >${et}</text
              >`
            : ''}</g
        >`;
      })}
    </svg>
    <ul class="leyenda">
      ${d.series.map(
        // A fill attribute, not a style: the console's CSP allows no inline styles.
        (s) =>
          html`<li>
            <svg width="14" height="14" aria-hidden="true">
              <rect width="14" height="14" fill="${s.color}" />
            </svg>
            ${s.nombre}
          </li>`,
      )}
    </ul>
    <details>
      <summary>Ver los datos</summary>
      <div class="tabla">
        <table>
          <thead>
            <tr>
              <th scope="col">Periodo</th>
              ${d.series.map((s) => html`<th scope="col" class="num">${s.nombre}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${d.etiquetas.map(
              (et, i) =>
                html`<tr>
                  <th scope="row">${et}</th>
                  ${d.series.map((s) => html`<td class="num">${datos(s.valores[i] ?? 0)}</td>`)}
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>
  </figure>`;
}
