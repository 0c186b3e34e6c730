import { AMBITO_VACIO, ambitoDe, partesNombre, type Ambito } from '../../cfdi/xml/espacios';
import type { ElementoXml } from './xml';

/**
 * Canonical XML 1.0 (http://www.w3.org/TR/2001/REC-xml-c14n-20010315), inclusive, without comments:
 * the algorithm the SAT's cancellation signature names. Enough of it for the documents it signs
 * (elements, attributes, text; no PIs, no xml:* attribute inheritance):
 *
 * - no XML declaration, start-and-end tags for empty elements;
 * - namespace declarations first, sorted by prefix (default first), each written only where its value
 *   differs from the one the output parent has in scope;
 * - attributes sorted by namespace URI, then local name;
 * - text escapes `& < >` and CR; attributes escape `& < "` and TAB, LF, CR.
 *
 * `heredado` is the scope of the apex's parent. Canonicalizing a subset (SignedInfo) is "inclusive": every
 * namespace in scope at the apex is rendered on it, which is why the SignedInfo of a Cancelacion carries
 * the root's `xmlns:xsd` and `xmlns:xsi` even though it uses neither.
 */
export function canonicalizar(apex: ElementoXml, heredado: Ambito = AMBITO_VACIO): string {
  const partes: string[] = [];
  escribir(apex, heredado, AMBITO_VACIO, partes);
  return partes.join('');
}

const NS_XML = 'http://www.w3.org/XML/1998/namespace';

function escribir(el: ElementoXml, ambitoPadre: Ambito, renderizado: Ambito, partes: string[]): void {
  const ambito = ambitoDe(el, ambitoPadre);
  let apertura = `<${el.nombre}`;

  const prefijos = Object.keys(ambito)
    .filter((p) => p !== 'xml')
    .sort();
  for (const p of prefijos) {
    const valor = ambito[p] ?? '';
    if (p === '') {
      // xmlns="" only undoes a default namespace the output parent actually rendered.
      if (valor !== (renderizado[''] ?? '')) apertura += ` xmlns="${escaparAtributoC14n(valor)}"`;
    } else if (valor !== renderizado[p]) {
      apertura += ` xmlns:${p}="${escaparAtributoC14n(valor)}"`;
    }
  }

  const atributos = Object.entries(el.atributos)
    .filter(([k]) => k !== 'xmlns' && !k.startsWith('xmlns:'))
    .map(([k, v]) => {
      const [prefijo, local] = partesNombre(k);
      const uri = prefijo === '' ? '' : prefijo === 'xml' ? NS_XML : (ambito[prefijo] ?? '');
      return { k, v, uri, local };
    })
    .sort((a, b) => comparar(a.uri, b.uri) || comparar(a.local, b.local));
  for (const a of atributos) apertura += ` ${a.k}="${escaparAtributoC14n(a.v)}"`;

  partes.push(`${apertura}>`);
  for (const h of el.hijos) {
    if (typeof h === 'string') partes.push(escaparTextoC14n(h));
    else escribir(h, ambito, ambito, partes);
  }
  partes.push(`</${el.nombre}>`);
}

// Code-unit order, as the specification's "lexicographic" means for the ASCII names used here.
const comparar = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const escaparTextoC14n = (t: string): string =>
  t.replace(/[&<>\r]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' })[c] as string);

const escaparAtributoC14n = (t: string): string =>
  t.replace(
    /[&<"\t\n\r]/g,
    (c) =>
      ({ '&': '&amp;', '<': '&lt;', '"': '&quot;', '\t': '&#x9;', '\n': '&#xA;', '\r': '&#xD;' })[
        c
      ] as string,
  );
