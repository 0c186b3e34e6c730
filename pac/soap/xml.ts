import { ambitoDe, partesNombre, type Ambito } from '../../cfdi/xml/espacios';
import { escaparAtributo } from '../../cfdi/xml/serializar';

/**
 * XML with text content, for SOAP envelopes and the signed cancellation request. The fiscal core's
 * parser (cfdi/xml/parsear) refuses text on purpose (a CFDI has none); SOAP is made of text fields, so
 * this is its small sibling: same namespace helpers (cfdi/xml/espacios) and the same attribute escaping,
 * plus text and CDATA. Still no DOCTYPE (entity-expansion attacks) and no external anything.
 */

export interface ElementoXml {
  /** As written, with its prefix: `senv:Envelope`, `s0:xml`, `Cancelacion`. */
  nombre: string;
  atributos: Record<string, string>;
  /** Elements and text, in document order; adjacent text is merged. */
  hijos: NodoXml[];
}

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

export class ErrorXmlSoap extends Error {
  constructor(mensaje: string, posicion: number) {
    super(`XML mal formado en la posición ${posicion}: ${mensaje}`);
    this.name = 'ErrorXmlSoap';
  }
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

const ENTIDADES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
// eslint-disable-next-line no-control-regex
const PROHIBIDOS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const esEspacio = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const terminaNombre = (c: number) =>
  esEspacio(c) || c === 0x2f || c === 0x3e || c === 0x3d || c === 0x22 || c === 0x27 || c === 0x3c;

export function leerXml(texto: string): ElementoXml {
  return new Lector(texto).documento();
}

class Lector {
  private readonly s: string;
  private i = 0;

  constructor(xml: string) {
    const sinBom = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
    // XML 1.0 §2.11: line ends become LF before parsing.
    this.s = sinBom.includes('\r') ? sinBom.replace(/\r\n?/g, '\n') : sinBom;
  }

  private error(mensaje: string): never {
    throw new ErrorXmlSoap(mensaje, this.i);
  }

  documento(): ElementoXml {
    this.fueraDeRaiz();
    if (this.s.charCodeAt(this.i) !== 0x3c) this.error('se esperaba el elemento raíz');
    const raiz = this.elemento();
    this.fueraDeRaiz();
    if (this.i < this.s.length) this.error('contenido después del elemento raíz');
    return raiz;
  }

  private fueraDeRaiz(): void {
    for (;;) {
      while (this.i < this.s.length && esEspacio(this.s.charCodeAt(this.i))) this.i++;
      if (this.s.startsWith('<?', this.i)) this.saltarHasta('?>');
      else if (this.s.startsWith('<!--', this.i)) this.saltarHasta('-->');
      else if (this.s.startsWith('<!', this.i)) this.error('DOCTYPE no permitido');
      else return;
    }
  }

  private saltarHasta(fin: string): void {
    const j = this.s.indexOf(fin, this.i + 2);
    if (j < 0) this.error(`falta "${fin}"`);
    this.i = j + fin.length;
  }

  private nombre(): string {
    const inicio = this.i;
    while (this.i < this.s.length && !terminaNombre(this.s.charCodeAt(this.i))) this.i++;
    if (this.i === inicio) this.error('se esperaba un nombre');
    return this.s.slice(inicio, this.i);
  }

  /** Iterative, so a deeply nested hostile document cannot exhaust the stack. */
  private elemento(): ElementoXml {
    const pila: ElementoXml[] = [];
    let raiz: ElementoXml | undefined;
    do {
      const padre = pila[pila.length - 1];
      if (this.s.charCodeAt(this.i) !== 0x3c) {
        const fin = this.s.indexOf('<', this.i);
        if (fin < 0) this.error('documento incompleto');
        agregarTexto(padre, this.decodificar(this.s.slice(this.i, fin)));
        this.i = fin;
        continue;
      }
      const sig = this.s.charCodeAt(this.i + 1);
      if (sig === 0x2f) {
        this.i += 2;
        const nombre = this.nombre();
        if (pila.pop()?.nombre !== nombre) this.error(`cierre </${nombre}> inesperado`);
        while (esEspacio(this.s.charCodeAt(this.i))) this.i++;
        if (this.s.charCodeAt(this.i) !== 0x3e) this.error('se esperaba ">"');
        this.i++;
      } else if (this.s.startsWith('<!--', this.i)) {
        this.saltarHasta('-->');
      } else if (this.s.startsWith('<![CDATA[', this.i)) {
        const fin = this.s.indexOf(']]>', this.i + 9);
        if (fin < 0) this.error('CDATA sin cerrar');
        agregarTexto(padre, this.s.slice(this.i + 9, fin));
        this.i = fin + 3;
      } else if (sig === 0x21) {
        this.error('DOCTYPE no permitido');
      } else if (sig === 0x3f) {
        this.saltarHasta('?>');
      } else {
        this.i++;
        const nuevo: ElementoXml = { nombre: this.nombre(), atributos: {}, hijos: [] };
        const vacio = this.atributos(nuevo);
        if (padre) padre.hijos.push(nuevo);
        else raiz = nuevo;
        if (!vacio) pila.push(nuevo);
      }
    } while (pila.length > 0 && this.i < this.s.length);
    if (pila.length > 0 || !raiz) this.error('documento incompleto');
    return raiz;
  }

  private atributos(el: ElementoXml): boolean {
    for (;;) {
      const antes = this.i;
      while (esEspacio(this.s.charCodeAt(this.i))) this.i++;
      const c = this.s.charCodeAt(this.i);
      if (c === 0x3e) {
        this.i++;
        return false;
      }
      if (c === 0x2f) {
        if (this.s.charCodeAt(this.i + 1) !== 0x3e) this.error('se esperaba "/>"');
        this.i += 2;
        return true;
      }
      if (this.i === antes) this.error('se esperaba un espacio antes del atributo');
      const nombre = this.nombre();
      while (esEspacio(this.s.charCodeAt(this.i))) this.i++;
      if (this.s.charCodeAt(this.i) !== 0x3d) this.error(`se esperaba "=" tras ${nombre}`);
      this.i++;
      while (esEspacio(this.s.charCodeAt(this.i))) this.i++;
      const comilla = this.s[this.i];
      if (comilla !== '"' && comilla !== "'") this.error('se esperaba una comilla');
      const fin = this.s.indexOf(comilla, this.i + 1);
      if (fin < 0) this.error('valor de atributo sin cerrar');
      const crudo = this.s.slice(this.i + 1, fin);
      if (crudo.includes('<')) this.error(`"<" en el valor de ${nombre}`);
      if (Object.prototype.hasOwnProperty.call(el.atributos, nombre))
        this.error(`atributo repetido ${nombre}`);
      // Attribute-value normalization (XML 1.0 §3.3.3): literal tab and newline become spaces.
      el.atributos[nombre] = this.decodificar(crudo.replace(/[\t\n]/g, ' '));
      this.i = fin + 1;
    }
  }

  private decodificar(t: string): string {
    if (PROHIBIDOS.test(t)) this.error('carácter no permitido');
    if (!t.includes('&')) return t;
    return t.replace(/&([^;&\s]*);?/g, (todo, ref: string) => {
      if (!todo.endsWith(';')) this.error('referencia sin ";"');
      if (ref.startsWith('#')) {
        const hex = ref[1] === 'x';
        const digitos = ref.slice(hex ? 2 : 1);
        if (!(hex ? /^[0-9a-fA-F]{1,6}$/ : /^[0-9]{1,7}$/).test(digitos)) this.error(`referencia &${ref};`);
        const cp = parseInt(digitos, hex ? 16 : 10);
        if (cp > 0x10ffff || (cp < 0x20 && cp !== 0x9 && cp !== 0xa && cp !== 0xd)) {
          this.error(`carácter no permitido &${ref};`);
        }
        return String.fromCodePoint(cp);
      }
      const valor = ENTIDADES[ref];
      if (valor === undefined) this.error(`entidad desconocida &${ref};`);
      return valor;
    });
  }
}

function agregarTexto(padre: ElementoXml | undefined, texto: string): void {
  if (!padre) {
    if (texto.trim() !== '') throw new ErrorXmlSoap('texto fuera del elemento raíz', 0);
    return;
  }
  const ultimo = padre.hijos.length - 1;
  const previo = padre.hijos[ultimo];
  if (typeof previo === 'string') padre.hijos[ultimo] = previo + texto;
  else padre.hijos.push(texto);
}

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
