/** Markup already escaped: what `html` builds, safe to put into more markup. */
export class Html {
  constructor(readonly texto: string) {}
  toString() {
    return this.texto;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapar = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Valor = Html | string | number | null | undefined | false | readonly Valor[];

function aTexto(v: Valor): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.texto;
  if (Array.isArray(v)) return v.map(aTexto).join('');
  return escapar(String(v));
}

/**
 * The console's only way to write markup: every interpolated value is escaped unless it is `Html` itself, so
 * data from invoices, clients or webhook answers can never become markup or script.
 */
export function html(partes: TemplateStringsArray, ...valores: Valor[]): Html {
  let s = partes[0]!;
  valores.forEach((v, i) => (s += aTexto(v) + partes[i + 1]!));
  return new Html(s);
}

/** A query string from the values present, for links that keep filters. */
export function consulta(q: Record<string, string | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '';
}
