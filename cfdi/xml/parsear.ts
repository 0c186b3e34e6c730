import { AMBITO_VACIO, partesNombre, type Ambito } from './espacios';
import type { Nodo } from './nodo';

/**
 * XML text → Nodo. A small, strict parser for the XML a CFDI uses (elements and attributes only), written
 * by hand so attribute values come out exactly as a conforming parser (libxml2, which runs the SAT XSLT)
 * sees them: line ends normalized, literal tabs/newlines in attributes turned into spaces, entity and
 * character references decoded. Attribute order and prefixed names are kept as written.
 *
 * Whitespace-only text is ignored; any other text content is refused, because the Nodo model has no place
 * for it and dropping it silently would change the document (`parsearConTexto` keeps it, for SOAP). Comments and processing instructions are
 * skipped. A DOCTYPE is refused (a CFDI never has one, and it is the door to entity-expansion attacks).
 *
 * What libxml2 refuses is refused here too, namespace errors included (unbound prefixes, `xmlns:p=""`,
 * one attribute twice through two prefixes): test/unit/cfdi-xml-diferencial.test.ts compares both on
 * generated documents. Stricter than libxml2 on purpose: XML declarations other than version 1.0 and
 * UTF-8 (the text arrives already decoded as UTF-8), and the DOCTYPE.
 */
export function parsear(xml: string): Nodo {
  // Without text, every child is an element: the tree is a Nodo.
  return new Lector(xml, false).documento() as Nodo;
}

/** An element whose children may also be text (SOAP envelopes, the signed cancellation request). */
export interface ElementoConTexto {
  nombre: string;
  atributos: Record<string, string>;
  /** Elements and text in document order; adjacent text (CDATA included) is merged. */
  hijos: (ElementoConTexto | string)[];
}

/** The same parser, keeping text content (decoded) and CDATA instead of refusing them. */
export function parsearConTexto(xml: string): ElementoConTexto {
  return new Lector(xml, true).documento();
}

export class ErrorXml extends Error {
  constructor(
    mensaje: string,
    readonly posicion: number,
  ) {
    super(`XML mal formado en la posición ${posicion}: ${mensaje}`);
    this.name = 'ErrorXml';
  }
}

// In a raw attribute value: references to decode, literal whitespace to turn into spaces, and characters
// XML does not allow at all.
// eslint-disable-next-line no-control-regex
const REQUIERE_TRATO = /[&\t\n\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
// eslint-disable-next-line no-control-regex
const PROHIBIDOS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

const ENTIDADES = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);

const NS_XML = 'http://www.w3.org/XML/1998/namespace';
const NS_XMLNS = 'http://www.w3.org/2000/xmlns/';

// XML 1.0 (fifth edition) Name characters, without ':' (namespaces split names there).
const INICIO_NCNAME =
  'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D' +
  '\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const RESTO_NCNAME = `${INICIO_NCNAME}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040`;
const NCNAME = `[${INICIO_NCNAME}][${RESTO_NCNAME}]*`;
// The rule reads the ranges' code points (U+200C, combining marks) as glyphs; they are ranges of the spec.
/* eslint-disable no-misleading-character-class */
/** A QName: `local` or `prefix:local`. */
const QNAME = new RegExp(`^${NCNAME}(?::${NCNAME})?$`, 'u');
const NCNAME_SOLO = new RegExp(`^${NCNAME}$`, 'u');
/* eslint-enable no-misleading-character-class */

// version 1.0 only; an optional encoding (checked afterwards) and standalone, in that order.
const DECLARACION =
  /<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(?:"1\.0"|'1\.0')(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(?:"([A-Za-z][\w.-]*)"|'([A-Za-z][\w.-]*)'))?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(?:"(?:yes|no)"|'(?:yes|no)'))?[ \t\n]*\?>/y;

// Non-ASCII names that passed QNAME (names repeat: each distinct one is checked once).
const nombresValidos = new Set<string>();

const tablaAscii = (caracteres: RegExp): Uint8Array =>
  Uint8Array.from({ length: 0x80 }, (_, c) => (caracteres.test(String.fromCharCode(c)) ? 1 : 0));
const INICIO_ASCII = tablaAscii(/[A-Za-z_]/);
const PARTE_ASCII = tablaAscii(/[A-Za-z0-9._-]/);

const esEspacio = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Characters that end a name: whitespace, `/`, `>`, `=`, quotes, `<`. */
const terminaNombre = (c: number): boolean =>
  esEspacio(c) || c === 0x2f || c === 0x3e || c === 0x3d || c === 0x22 || c === 0x27 || c === 0x3c;

class Lector {
  private readonly s: string;
  private i = 0;
  /** Position of the ':' in the last name read, relative to its start (-1: none). */
  private dos = -1;
  /** In the element being read: namespace declarations and prefixed attributes seen. */
  private declaraciones = 0;
  private prefijados = 0;

  /** `conTexto`: keep text and CDATA as children; otherwise only whitespace may stand between tags. */
  constructor(
    xml: string,
    private readonly conTexto: boolean,
  ) {
    // XML 1.0 §2.11: every CR LF / lone CR becomes LF before parsing.
    let texto = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
    if (texto.includes('\r')) texto = texto.replace(/\r\n?/g, '\n');
    this.s = texto;
  }

  documento(): ElementoConTexto {
    this.declaracion();
    this.prologoOEpilogo();
    if (this.s.charCodeAt(this.i) !== 0x3c) this.error('se esperaba el elemento raíz');
    const raiz = this.elemento();
    this.prologoOEpilogo();
    if (this.i < this.s.length) this.error('contenido después del elemento raíz');
    return raiz;
  }

  private error(mensaje: string): never {
    throw new ErrorXml(mensaje, this.i);
  }

  /** The XML declaration, only at the very start; anything but version 1.0 in UTF-8 is refused. */
  private declaracion(): void {
    if (!/^<\?xml[\s?]/.test(this.s.slice(0, 6))) return;
    DECLARACION.lastIndex = 0;
    const m = DECLARACION.exec(this.s);
    if (!m) this.error('declaración XML mal formada o no admitida (solo versión 1.0)');
    const codificacion = m[1] ?? m[2];
    if (codificacion !== undefined && codificacion.toUpperCase() !== 'UTF-8') {
      this.error(`codificación ${codificacion} no admitida (solo UTF-8)`);
    }
    this.i = DECLARACION.lastIndex;
  }

  /** Skips whitespace, comments and PIs outside the root element. */
  private prologoOEpilogo(): void {
    for (;;) {
      this.saltarEspacios();
      if (this.s.startsWith('<?', this.i)) this.instruccion();
      else if (this.s.startsWith('<!--', this.i)) this.comentario();
      else if (this.s.startsWith('<!', this.i)) this.error('DOCTYPE no permitido');
      else return;
    }
  }

  private saltarEspacios(): void {
    while (this.i < this.s.length && esEspacio(this.s.charCodeAt(this.i))) this.i++;
  }

  /** Index of `fin` after `desde`, or an error. */
  private buscar(fin: string, desde: number): number {
    const j = this.s.indexOf(fin, desde);
    if (j < 0) this.error(`falta "${fin}"`);
    return j;
  }

  private comentario(): void {
    const fin = this.buscar('-->', this.i + 4);
    const t = this.s.slice(this.i + 4, fin);
    // `--` may not appear inside, nor `-` right before the closing `-->`.
    if (t.includes('--') || t.endsWith('-')) this.error('"--" dentro de un comentario');
    if (PROHIBIDOS.test(t)) this.error('carácter no permitido en un comentario');
    this.i = fin + 3;
  }

  /** A processing instruction (skipped): its target is a name without ':' and is not `xml`. */
  private instruccion(): void {
    let j = this.i + 2;
    while (j < this.s.length && !esEspacio(this.s.charCodeAt(j)) && this.s.charCodeAt(j) !== 0x3f) j++;
    const destino = this.s.slice(this.i + 2, j);
    if (!NCNAME_SOLO.test(destino) || destino.toLowerCase() === 'xml') {
      this.error(`instrucción de procesamiento con destino inválido "${destino}"`);
    }
    const fin = this.buscar('?>', j);
    if (fin > j && !esEspacio(this.s.charCodeAt(j))) this.error('se esperaba un espacio tras el destino');
    if (PROHIBIDOS.test(this.s.slice(j, fin))) this.error('carácter no permitido en una instrucción');
    this.i = fin + 2;
  }

  private nombre(): string {
    const inicio = this.i;
    // ASCII names ([A-Za-z_][A-Za-z0-9._-]*, one ':' between two such parts) are checked while scanning;
    // anything else goes through the QName pattern once per distinct name.
    let ascii = true;
    let dos = -1;
    for (; this.i < this.s.length; this.i++) {
      const c = this.s.charCodeAt(this.i);
      if (terminaNombre(c)) break;
      if (c === 0x3a && dos < 0) dos = this.i;
      else if (!(c < 0x80 && PARTE_ASCII[c])) ascii = false;
    }
    if (this.i === inicio) this.error('se esperaba un nombre');
    const nombre = this.s.slice(inicio, this.i);
    this.dos = dos < 0 ? -1 : dos - inicio;
    const valido = ascii
      ? INICIO_ASCII[this.s.charCodeAt(inicio)] === 1 &&
        (dos < 0 || (dos > inicio && INICIO_ASCII[this.s.charCodeAt(dos + 1)] === 1))
      : nombresValidos.has(nombre) || QNAME.test(nombre);
    if (!valido) this.error(`nombre inválido "${nombre}"`);
    if (!ascii && nombresValidos.size < 1000) nombresValidos.add(nombre);
    return nombre;
  }

  /** Parses one element (at `<`) with its subtree; iterative so depth never hits the JS stack. */
  private elemento(): ElementoConTexto {
    const pila: ElementoConTexto[] = [];
    const ambitos: Ambito[] = [];
    let raiz: ElementoConTexto | undefined;
    do {
      const c = this.s.charCodeAt(this.i);
      if (c !== 0x3c) {
        this.texto(pila[pila.length - 1]);
        continue;
      }
      const sig = this.s.charCodeAt(this.i + 1);
      if (sig === 0x2f) {
        // </nombre>
        this.i += 2;
        const nombre = this.nombre();
        const abierto = pila.pop();
        ambitos.pop();
        if (!abierto || abierto.nombre !== nombre) this.error(`cierre </${nombre}> inesperado`);
        this.saltarEspacios();
        if (this.s.charCodeAt(this.i) !== 0x3e) this.error('se esperaba ">"');
        this.i++;
      } else if (sig === 0x21) {
        if (this.s.startsWith('<!--', this.i)) this.comentario();
        else if (this.s.startsWith('<![CDATA[', this.i)) this.cdata(pila[pila.length - 1]);
        else this.error('DOCTYPE no permitido');
      } else if (sig === 0x3f) {
        this.instruccion();
      } else {
        this.i++;
        const nodo: ElementoConTexto = { nombre: this.nombre(), atributos: {}, hijos: [] };
        const dosElemento = this.dos;
        const vacio = this.atributos(nodo);
        const ambito = this.espacios(nodo, ambitos[ambitos.length - 1] ?? AMBITO_VACIO);
        if (dosElemento >= 0) this.prefijoDeclarado(nodo.nombre.slice(0, dosElemento), ambito);
        const padre = pila[pila.length - 1];
        if (padre) padre.hijos.push(nodo);
        else raiz = nodo;
        if (!vacio) {
          pila.push(nodo);
          ambitos.push(ambito);
        }
      }
    } while (pila.length > 0 && this.i < this.s.length);
    if (pila.length > 0 || !raiz) this.error('documento incompleto');
    return raiz;
  }

  /**
   * Namespaces in XML 1.0: declarations that are allowed, every prefix bound, no attribute twice under
   * two prefixes of one namespace. Returns the scope inside the element.
   */
  private espacios(nodo: ElementoConTexto, padre: Ambito): Ambito {
    // Most CFDI elements declare nothing and have no prefixed attribute: nothing to look at.
    if (this.declaraciones === 0 && this.prefijados === 0) return padre;
    let ambito = padre;
    for (const k in nodo.atributos) {
      const prefijo = k === 'xmlns' ? '' : k.startsWith('xmlns:') ? k.slice(6) : undefined;
      if (prefijo === undefined) continue;
      const uri = nodo.atributos[k] as string;
      this.declaracionEspacio(k, prefijo, uri);
      // A copy as ambitoDe makes it; declarations may come after the prefixed attributes they bind.
      if (ambito === padre) ambito = Object.assign(Object.create(null) as Record<string, string>, padre);
      (ambito as Record<string, string>)[prefijo] = uri;
    }
    if (this.prefijados > 0) this.atributosPrefijados(nodo, ambito);
    return ambito;
  }

  private prefijoDeclarado(prefijo: string, ambito: Ambito): void {
    if (prefijo !== 'xml' && ambito[prefijo] === undefined) this.error(`prefijo ${prefijo} sin declarar`);
  }

  /** `xml` is bound to its namespace only, `xmlns` to none; xmlns="" undoes a default, xmlns:p="" is not allowed. */
  private declaracionEspacio(atributo: string, prefijo: string, uri: string): void {
    const valida =
      prefijo === 'xml'
        ? uri === NS_XML
        : prefijo !== 'xmlns' && uri !== NS_XML && uri !== NS_XMLNS && (uri !== '' || prefijo === '');
    if (!valida) this.error(`declaración de espacio de nombres no permitida ${atributo}="${uri}"`);
  }

  /** Bound prefixes, and no attribute twice through two prefixes of one namespace (`p:a`, `q:a`). */
  private atributosPrefijados(nodo: ElementoConTexto, ambito: Ambito): void {
    const vistos = new Set<string>();
    for (const k in nodo.atributos) {
      const [p, local] = partesNombre(k);
      if (!p || p === 'xmlns') continue;
      this.prefijoDeclarado(p, ambito);
      const uri = p === 'xml' ? NS_XML : (ambito[p] as string);
      if (vistos.has(`${uri} ${local}`)) this.error(`atributo repetido ${local} en el espacio ${uri}`);
      vistos.add(`${uri} ${local}`);
    }
  }

  /** Reads attributes up to `>` or `/>`; returns true for an empty-element tag. */
  private atributos(nodo: ElementoConTexto): boolean {
    this.declaraciones = 0;
    this.prefijados = 0;
    for (;;) {
      const antes = this.i;
      this.saltarEspacios();
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
      this.saltarEspacios();
      if (this.s.charCodeAt(this.i) !== 0x3d) this.error(`se esperaba "=" tras ${nombre}`);
      this.i++;
      this.saltarEspacios();
      const comilla = this.s.charCodeAt(this.i);
      if (comilla !== 0x22 && comilla !== 0x27) this.error('se esperaba una comilla');
      const fin = this.s.indexOf(comilla === 0x22 ? '"' : "'", this.i + 1);
      if (fin < 0) this.error('valor de atributo sin cerrar');
      const crudo = this.s.slice(this.i + 1, fin);
      if (crudo.includes('<')) this.error(`"<" en el valor de ${nombre}`);
      if (Object.prototype.hasOwnProperty.call(nodo.atributos, nombre))
        this.error(`atributo repetido ${nombre}`);
      nodo.atributos[nombre] = this.valorAtributo(crudo);
      if (nombre === 'xmlns' || (this.dos === 5 && nombre.startsWith('xmlns:'))) this.declaraciones++;
      else if (this.dos >= 0) this.prefijados++;
      this.i = fin + 1;
    }
  }

  /** XML 1.0 §3.3.3 attribute-value normalization for CDATA attributes, then reference decoding. */
  private valorAtributo(crudo: string): string {
    if (!REQUIERE_TRATO.test(crudo)) return crudo;
    if (PROHIBIDOS.test(crudo)) this.error('carácter no permitido en un atributo');
    // Literal whitespace becomes a space first; characters produced by references are kept as they are.
    return this.decodificar(crudo.replace(/[\t\n]/g, ' '));
  }

  private decodificar(t: string): string {
    let amp = t.indexOf('&');
    if (amp < 0) return t;
    const partes: string[] = [];
    let desde = 0;
    while (amp >= 0) {
      const pc = t.indexOf(';', amp);
      if (pc < 0) this.error('referencia sin ";"');
      partes.push(t.slice(desde, amp), this.referencia(t.slice(amp + 1, pc)));
      desde = pc + 1;
      amp = t.indexOf('&', desde);
    }
    partes.push(t.slice(desde));
    return partes.join('');
  }

  private referencia(ref: string): string {
    if (ref.charCodeAt(0) === 0x23) {
      const hex = ref.charCodeAt(1) === 0x78;
      const digitos = ref.slice(hex ? 2 : 1);
      if (!(hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digitos)) this.error(`referencia inválida &${ref};`);
      const cp = parseInt(digitos, hex ? 16 : 10);
      if (!esCaracterXml(cp)) this.error(`carácter no permitido &${ref};`);
      return String.fromCodePoint(cp);
    }
    const valor = ENTIDADES.get(ref);
    if (valor === undefined) this.error(`entidad desconocida &${ref};`);
    return valor;
  }

  private texto(padre: ElementoConTexto | undefined): void {
    const fin = this.s.indexOf('<', this.i);
    const t = this.s.slice(this.i, fin < 0 ? this.s.length : fin);
    if (this.conTexto) {
      if (PROHIBIDOS.test(t)) this.error('carácter no permitido');
      if (t.includes(']]>')) this.error('"]]>" en el texto');
      agregarTexto(padre, this.decodificar(t));
    } else {
      this.soloEspacios(t, padre);
    }
    this.i = fin < 0 ? this.s.length : fin;
  }

  private cdata(padre: ElementoConTexto | undefined): void {
    const inicio = this.i + 9;
    const fin = this.s.indexOf(']]>', inicio);
    if (fin < 0) this.error('CDATA sin cerrar');
    const t = this.s.slice(inicio, fin);
    if (PROHIBIDOS.test(t)) this.error('carácter no permitido en CDATA');
    if (this.conTexto) agregarTexto(padre, t);
    else this.soloEspacios(t, padre);
    this.i = fin + 3;
  }

  private soloEspacios(t: string, padre: ElementoConTexto | undefined): void {
    for (let k = 0; k < t.length; k++) {
      if (!esEspacio(t.charCodeAt(k))) this.error(`texto no admitido dentro de <${padre?.nombre ?? ''}>`);
    }
  }
}

function agregarTexto(padre: ElementoConTexto | undefined, texto: string): void {
  if (!padre) return;
  const ultimo = padre.hijos.length - 1;
  const previo = padre.hijos[ultimo];
  if (typeof previo === 'string') padre.hijos[ultimo] = previo + texto;
  else padre.hijos.push(texto);
}

/** XML 1.0 Char production. */
function esCaracterXml(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}
