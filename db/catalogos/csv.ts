/** A CSV syntax error, located by the line where the offending record starts. */
export class ErrorCsv extends Error {
  constructor(
    mensaje: string,
    readonly linea: number,
  ) {
    super(`${mensaje} (línea ${linea})`);
    this.name = 'ErrorCsv';
  }
}

export interface RegistroCsv {
  campos: string[];
  /** 1-based line where the record starts; records with quoted line breaks span several lines. */
  linea: number;
}

const COMILLA = 0x22;
const COMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Reads RFC 4180 records from a whole text: fields may be quoted, and quoted fields may hold commas,
 * line breaks and doubled quotes (`""` → `"`). Lines end in CRLF or LF; the last one may lack it.
 * Fields are returned as written (no trimming, `""` and an empty field are both ''). Empty lines are
 * skipped, so a trailing blank line does not become a one-field record.
 */
export function* registrosCsv(texto: string): Generator<RegistroCsv> {
  const n = texto.length;
  let i = texto.charCodeAt(0) === 0xfeff ? 1 : 0;
  let linea = 1;

  while (i < n) {
    // An empty line: skip it rather than yield a record with a single empty field.
    if (texto.charCodeAt(i) === LF || (texto.charCodeAt(i) === CR && texto.charCodeAt(i + 1) === LF)) {
      i += texto.charCodeAt(i) === CR ? 2 : 1;
      linea++;
      continue;
    }

    const inicio = linea;
    const campos: string[] = [];
    for (;;) {
      if (texto.charCodeAt(i) === COMILLA) {
        let valor = '';
        let desde = i + 1;
        for (;;) {
          const cierre = texto.indexOf('"', desde);
          if (cierre === -1) throw new ErrorCsv('Campo entre comillas sin cerrar', inicio);
          if (texto.charCodeAt(cierre + 1) === COMILLA) {
            valor += texto.slice(desde, cierre + 1);
            desde = cierre + 2;
            continue;
          }
          valor += texto.slice(desde, cierre);
          i = cierre + 1;
          break;
        }
        linea += contarSaltos(valor);
        campos.push(valor);
      } else {
        const desde = i;
        while (i < n) {
          const c = texto.charCodeAt(i);
          if (c === COMA || c === LF || c === CR) break;
          if (c === COMILLA) throw new ErrorCsv('Comilla dentro de un campo sin comillas', linea);
          i++;
        }
        campos.push(texto.slice(desde, i));
      }

      if (i >= n) break;
      const c = texto.charCodeAt(i);
      if (c === COMA) {
        i++;
        continue;
      }
      if (c === LF || (c === CR && texto.charCodeAt(i + 1) === LF)) {
        i += c === CR ? 2 : 1;
        linea++;
        break;
      }
      throw new ErrorCsv(`Carácter inesperado ${JSON.stringify(texto[i])} después de un campo`, linea);
    }
    yield { campos, linea: inicio };
  }
}

/** Every record of a text, for small inputs and tests. */
export function parsearCsv(texto: string): string[][] {
  return Array.from(registrosCsv(texto), (r) => r.campos);
}

function contarSaltos(valor: string): number {
  let saltos = 0;
  for (let i = valor.indexOf('\n'); i !== -1; i = valor.indexOf('\n', i + 1)) saltos++;
  return saltos;
}
