/**
 * CSV as spreadsheets open it (RFC 4180): comma-separated, CRLF line ends, UTF-8 with a byte order mark (Excel
 * reads accents right only with it). A cell is quoted when it holds a comma, quote or line break, its quotes
 * doubled. Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab or CR first) is prefixed with `'`:
 * a serie or a client's name is the integrator's text, and an export must never execute it.
 */

export type Celda = string | number | null;

const FORMULA = /^[=+\-@\t\r]/;

export function celdaCsv(v: Celda, o: { texto?: boolean } = {}): string {
  if (v === null) return '';
  let s = String(v);
  if (o.texto !== false && typeof v === 'string' && FORMULA.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * The document: a header and rows. `numericas` names the columns of amounts (decimal strings, never negative
 * here) written as they are, so a spreadsheet reads them as numbers.
 */
export function csv(encabezado: readonly string[], filas: Celda[][], numericas: ReadonlySet<string>): string {
  const lineas = [encabezado.map((c) => celdaCsv(c)).join(',')];
  for (const f of filas)
    lineas.push(f.map((v, i) => celdaCsv(v, { texto: !numericas.has(encabezado[i]!) })).join(','));
  return `\uFEFF${lineas.join('\r\n')}\r\n`;
}
