import { ambitoDe, partesNombre, type Ambito } from '../../cfdi/xml/espacios';
import { parsearConTexto, type ElementoConTexto } from '../../cfdi/xml/parsear';
import { escaparAtributo } from '../../cfdi/xml/serializar';

/**
 * XML with text content, for SOAP envelopes and the signed cancellation request: the fiscal core's parser
 * in its text-keeping mode, its namespace helpers (cfdi/xml/espacios) and its attribute escaping, plus text
 * escaping and a writer. Still no DOCTYPE (entity-expansion attacks) and no external anything.
 */

/** Names as written, with their prefix: `senv:Envelope`, `s0:xml`, `Cancelacion`. */
export type ElementoXml = ElementoConTexto;

export type NodoXml = ElementoXml | string;

export function elemento(
  nombre: string,
  atributos: Record<string, string | undefined> = {},
  hijos: readonly (NodoXml | undefined)[] = [],
): ElementoXml {
  const limpios: Record<string, string> = {};
  for (const [k, v] of Object.entries(atributos)) if (v !== undefined) limpios[k] = v;
  return { nombre, atributos: limpios, hijos: hijos.filter((h): h is NodoXml => h !== undefined) };
}

export const localDe = (nombre: string): string => partesNombre(nombre)[1];

/** Element children with that local name (any prefix). */
export const hijosDe = (el: ElementoXml | undefined, local: string): ElementoXml[] =>
  el ? el.hijos.filter((h): h is ElementoXml => typeof h !== 'string' && localDe(h.nombre) === local) : [];

export const hijoDe = (el: ElementoXml | undefined, local: string): ElementoXml | undefined =>
  hijosDe(el, local)[0];

export const elementosDe = (el: ElementoXml): ElementoXml[] =>
  el.hijos.filter((h): h is ElementoXml => typeof h !== 'string');

/** The text directly inside an element (CDATA included), or '' when absent. */
export const textoDe = (el: ElementoXml | undefined): string =>
  el ? el.hijos.filter((h): h is string => typeof h === 'string').join('') : '';

/** Namespace URI of an element given the scope of its parent. */
export function uriDe(el: ElementoXml, ambitoPadre?: Ambito): string | undefined {
  return ambitoDe(el, ambitoPadre)[partesNombre(el.nombre)[0]];
}

/** Parsed by the fiscal core's parser in its text-keeping mode: one XML reader for the whole project. */
export const leerXml = (texto: string): ElementoXml => parsearConTexto(texto);

/** Text content escaping: what cannot appear literally between tags, and CR so it survives parsing. */
export const escaparTexto = (t: string): string =>
  /[&<>\r]/.test(t)
    ? t.replace(/[&<>\r]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&#13;'))
    : t;

/** One line, attributes in insertion order, `<x/>` for empty elements. */
export function escribirXml(raiz: ElementoXml, declaracion = true): string {
  const partes: string[] = declaracion ? ['<?xml version="1.0" encoding="UTF-8"?>'] : [];
  escribir(raiz, partes);
  return partes.join('');
}

function escribir(el: ElementoXml, partes: string[]): void {
  let apertura = `<${el.nombre}`;
  for (const [k, v] of Object.entries(el.atributos)) apertura += ` ${k}="${escaparAtributo(v)}"`;
  if (el.hijos.length === 0) {
    partes.push(`${apertura}/>`);
    return;
  }
  partes.push(`${apertura}>`);
  for (const h of el.hijos) {
    if (typeof h === 'string') partes.push(escaparTexto(h));
    else escribir(h, partes);
  }
  partes.push(`</${el.nombre}>`);
}
