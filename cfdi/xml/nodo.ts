/**
 * The in-memory form of a CFDI: what the builder produces, what gets serialized to XML and what the
 * cadena original is computed from (one tree, so XML and cadena cannot disagree).
 *
 * - `nombre` carries the namespace prefix as written in the XML: `cfdi:Comprobante`, `pago20:Pagos`,
 *   `tfd:TimbreFiscalDigital`.
 * - `atributos` keeps insertion order (the XML is written in that order); values are final strings, already
 *   normalized (no leading/trailing spaces, no runs of whitespace) and never empty. Namespace declarations
 *   (`xmlns:cfdi`, `xmlns:xsi`) and `xsi:schemaLocation` are ordinary attributes of the node that declares them.
 */
export interface Nodo {
  nombre: string;
  atributos: Record<string, string>;
  hijos: Nodo[];
}

export function nodo(
  nombre: string,
  atributos: Record<string, string | undefined> = {},
  hijos: Nodo[] = [],
): Nodo {
  const limpios: Record<string, string> = {};
  // Optional attributes arrive as undefined: a CFDI never carries an empty attribute.
  for (const [k, v] of Object.entries(atributos)) if (v !== undefined) limpios[k] = v;
  return { nombre, atributos: limpios, hijos };
}

/** A wrapper with one child per item, or nothing when there are none (the schemas forbid empty wrappers). */
export function envoltura<T>(nombre: string, items: readonly T[], hijo: (item: T) => Nodo): Nodo[] {
  if (items.length === 0) return [];
  const hijos = items.map((x) => hijo(x));
  return [nodo(nombre, {}, hijos)];
}

/** First child with that name, if any. */
export const hijo = (n: Nodo, nombre: string): Nodo | undefined => n.hijos.find((h) => h.nombre === nombre);

/** All children with that name, in document order. */
export const hijos = (n: Nodo, nombre: string): Nodo[] => n.hijos.filter((h) => h.nombre === nombre);
