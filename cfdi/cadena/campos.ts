import { conPrefijo } from '../xml/espacios';
import type { Nodo } from '../xml/nodo';

/**
 * The building blocks of the SAT cadena-original XSLTs (utilerias.xslt), as data:
 * - "Requerido": always emits `|value`, `|` alone when the attribute is missing;
 * - "Opcional": emits `|value` only when the attribute exists (even if empty);
 * - every value goes through XPath `normalize-space`.
 * The `|` separators are added by the caller with one `join('|')`, so here values are just collected.
 */
export interface Campo {
  readonly nombre: string;
  readonly requerido: boolean;
}

/** `'Version Serie? Folio?'` → fields in that order; a trailing `?` marks an Opcional. */
export function campos(especificacion: string): readonly Campo[] {
  return especificacion
    .trim()
    .split(/\s+/)
    .map((c) =>
      c.endsWith('?') ? { nombre: c.slice(0, -1), requerido: false } : { nombre: c, requerido: true },
    );
}

export function emitir(salida: string[], nodo: Nodo, lista: readonly Campo[]): void {
  const atributos = nodo.atributos;
  for (let k = 0; k < lista.length; k++) {
    const campo = lista[k] as Campo;
    const valor = atributos[campo.nombre];
    if (valor !== undefined) salida.push(normalizarEspacios(valor));
    else if (campo.requerido) salida.push('');
  }
}

/** `||a|b|c||` from the collected values. */
export const enmarcar = (valores: readonly string[]): string => `||${valores.join('|')}||`;

/**
 * XPath 1.0 normalize-space: strip leading/trailing #x20 #x9 #xD #xA and collapse inner runs to one space.
 * Only those four characters count (not NBSP or other Unicode spaces, unlike String.prototype.trim).
 * Values written by our builder are already normal, so a scan without allocation answers first.
 */
export function normalizarEspacios(valor: string): string {
  let espacioPrevio = true; // a space at position 0 is already a leading space
  for (let k = 0; k < valor.length; k++) {
    const c = valor.charCodeAt(k);
    if (c === 0x20) {
      if (espacioPrevio) return colapsar(valor);
      espacioPrevio = true;
    } else if (c === 0x09 || c === 0x0a || c === 0x0d) {
      return colapsar(valor);
    } else {
      espacioPrevio = false;
    }
  }
  return espacioPrevio && valor.length > 0 ? colapsar(valor) : valor;
}

const ESPACIOS_XPATH = /[ \t\n\r]+/;

function colapsar(valor: string): string {
  return valor
    .split(ESPACIOS_XPATH)
    .filter((p) => p !== '')
    .join(' ');
}

/**
 * Element names for one namespace prefix (`cfdi` → `cfdi:Emisor`, '' → `Emisor`), built once per prefix:
 * templates compare names with `===` instead of resolving namespaces on every element.
 */
export function tablaDeNombres<K extends string>(
  locales: readonly K[],
): (prefijo: string) => Readonly<Record<K, string>> {
  const porPrefijo = new Map<string, Record<K, string>>();
  return (prefijo) => {
    let tabla = porPrefijo.get(prefijo);
    if (!tabla) {
      tabla = {} as Record<K, string>;
      for (const local of locales) tabla[local] = conPrefijo(prefijo, local);
      // Bounded: prefixes come from the documents we read.
      if (porPrefijo.size < 16) porPrefijo.set(prefijo, tabla);
    }
    return tabla;
  };
}
