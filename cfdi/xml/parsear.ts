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

const esEspacio = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Characters that end a name: whitespace, `/`, `>`, `=`, quotes, `<`. */
const terminaNombre = (c: number): boolean =>
  esEspacio(c) || c === 0x2f || c === 0x3e || c === 0x3d || c === 0x22 || c === 0x27 || c === 0x3c;

class Lector {
  private readonly s: string;
  private i = 0;

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

  /** Skips whitespace, the XML declaration, comments and PIs outside the root element. */
  private prologoOEpilogo(): void {
    for (;;) {
      this.saltarEspacios();
      if (this.s.startsWith('<?', this.i)) this.saltarHasta('?>');
      else if (this.s.startsWith('<!--', this.i)) this.saltarHasta('-->');
      else if (this.s.startsWith('<!', this.i)) this.error('DOCTYPE no permitido');
      else return;
    }
  }

  private saltarEspacios(): void {
    while (this.i < this.s.length && esEspacio(this.s.charCodeAt(this.i))) this.i++;
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

  /** Parses one element (at `<`) with its subtree; iterative so depth never hits the JS stack. */
  private elemento(): ElementoConTexto {
    const pila: ElementoConTexto[] = [];
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
        if (!abierto || abierto.nombre !== nombre) this.error(`cierre </${nombre}> inesperado`);
        this.saltarEspacios();
        if (this.s.charCodeAt(this.i) !== 0x3e) this.error('se esperaba ">"');
        this.i++;
      } else if (sig === 0x21) {
        if (this.s.startsWith('<!--', this.i)) this.saltarHasta('-->');
        else if (this.s.startsWith('<![CDATA[', this.i)) this.cdata(pila[pila.length - 1]);
        else this.error('DOCTYPE no permitido');
      } else if (sig === 0x3f) {
        this.saltarHasta('?>');
      } else {
        this.i++;
        const nodo: ElementoConTexto = { nombre: this.nombre(), atributos: {}, hijos: [] };
        const vacio = this.atributos(nodo);
        const padre = pila[pila.length - 1];
        if (padre) padre.hijos.push(nodo);
        else raiz = nodo;
        if (!vacio) pila.push(nodo);
      }
    } while (pila.length > 0 && this.i < this.s.length);
    if (pila.length > 0 || !raiz) this.error('documento incompleto');
    return raiz;
  }

  /** Reads attributes up to `>` or `/>`; returns true for an empty-element tag. */
  private atributos(nodo: ElementoConTexto): boolean {
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
