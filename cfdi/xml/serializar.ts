import type { Nodo } from './nodo';

/**
 * Nodo → XML text: `<?xml version="1.0" encoding="UTF-8"?>` and the tree on one line, attributes in the
 * node's order, no indentation, so the stored bytes are exactly what was built and sealed.
 *
 * Written by hand rather than through xmlbuilder2: for a 10-concept invoice xmlbuilder2 takes 0.36–0.76 ms
 * (its DOM or its callback writer), more than the RSA seal and beyond the 2,000 invoices/s budget, while
 * this takes a few µs. It also writes exactly the Nodo: xmlbuilder2 drops namespace declarations that
 * repeat an ancestor's, keeps an `&` that already looks like a reference (`a&amp;b` would read back as
 * `a&b`) and writes tabs and newlines literally (a parser turns them into spaces). The tests check that
 * both produce the same bytes wherever xmlbuilder2 is right.
 */
export function serializar(nodo: Nodo): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${elemento(nodo)}`;
}

function elemento(nodo: Nodo): string {
  const nombre = nombreValido(nodo.nombre);
  let xml = `<${nombre}`;
  const atributos = nodo.atributos;
  for (const a in atributos) xml += ` ${nombreValido(a)}="${escaparAtributo(atributos[a] as string)}"`;
  if (nodo.hijos.length === 0) return `${xml}/>`;
  xml += '>';
  for (const hijo of nodo.hijos) xml += elemento(hijo);
  return `${xml}</${nombre}>`;
}

// Anything escaparAtributo has to look at: controls, & < > ", surrogates, U+FFFE/U+FFFF.
// eslint-disable-next-line no-control-regex
const ESPECIALES = /[\u0000-\u001f&<>"\ud800-\udfff\ufffe\uffff]/;

/**
 * Escapes what a double-quoted attribute value cannot carry literally: `&`, `<`, `"`, and `>` like
 * xmlbuilder2 does; tab, LF and CR as character references so they survive attribute-value
 * normalization. Characters XML cannot represent at all are refused.
 */
export function escaparAtributo(valor: string): string {
  // The usual value needs nothing: one regex scan answers that (several times faster than a JS loop
  // over a 2 KB Certificado).
  if (!ESPECIALES.test(valor)) return valor;
  let k = 0;
  for (; k < valor.length; k++) {
    const c = valor.charCodeAt(k);
    if (c < 0x20 || c === 0x26 || c === 0x3c || c === 0x3e || c === 0x22 || c >= 0xd800) break;
  }
  let salida = valor.slice(0, k);
  for (; k < valor.length; k++) {
    const c = valor.charCodeAt(k);
    switch (c) {
      case 0x26:
        salida += '&amp;';
        break;
      case 0x3c:
        salida += '&lt;';
        break;
      case 0x3e:
        salida += '&gt;';
        break;
      case 0x22:
        salida += '&quot;';
        break;
      case 0x09:
        salida += '&#9;';
        break;
      case 0x0a:
        salida += '&#10;';
        break;
      case 0x0d:
        salida += '&#13;';
        break;
      default:
        if (c < 0x20 || c === 0xfffe || c === 0xffff) throw caracterInvalido(valor, k);
        if (c >= 0xd800 && c <= 0xdfff) {
          // Only a high surrogate followed by a low one is a character (outside the BMP, e.g. emoji).
          const siguiente = valor.charCodeAt(k + 1);
          if (c > 0xdbff || !(siguiente >= 0xdc00 && siguiente <= 0xdfff)) throw caracterInvalido(valor, k);
          salida += valor[k] as string;
          k++;
        }
        salida += valor[k] as string;
    }
  }
  return salida;
}

function caracterInvalido(valor: string, k: number): Error {
  const codigo = valor.charCodeAt(k).toString(16).toUpperCase().padStart(4, '0');
  return new Error(`Carácter U+${codigo} no permitido en XML, en el valor "${valor}"`);
}

// Names repeat a lot (cfdi:Concepto, Importe…): each distinct one is checked once.
const nombresVistos = new Set<string>();
// Letters (any script), digits, `_`, `-`, `.`, `:`; not starting with a digit, `-`, `.` or `:`.
const NOMBRE = /^[\p{L}_][\p{L}\p{N}_.:\-\u00B7]*$/u;

function nombreValido(nombre: string): string {
  if (nombresVistos.has(nombre)) return nombre;
  if (!NOMBRE.test(nombre)) throw new Error(`Nombre XML inválido: "${nombre}"`);
  if (nombresVistos.size < 1000) nombresVistos.add(nombre);
  return nombre;
}
