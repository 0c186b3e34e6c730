/**
 * What text may hold, in one place. Two layers:
 * - every string a request carries must be representable in XML 1.0 (`Char` production) and free of control
 *   characters: no U+0000–U+001F (tab, LF and CR included: an XML parser reads them back as spaces inside an
 *   attribute, so the stamped CFDI would say something else than the stored JSON), no U+FFFE/U+FFFF and no
 *   lone UTF-16 surrogate (no UTF-8 encoding exists for it, so neither MySQL's JSON nor XML can hold it);
 * - the CFDI's free-text attributes follow their cfdv40.xsd type, `[^|]{1,N}` after whitespace collapse: no
 *   `|` (the cadena original's separator) and at least one character that is not a space.
 */

/** cfdv40.xsd / Pagos20.xsd free-text attributes (`[^|]{1,N}`, whiteSpace collapse) and their maximum length. */
export const TEXTOS_SAT = {
  Nombre: 300,
  Descripcion: 1000,
  Unidad: 20,
  NoIdentificacion: 100,
  Serie: 25,
  Folio: 40,
  CondicionesDePago: 1000,
} as const;

export type AtributoTextoSat = keyof typeof TEXTOS_SAT;

/**
 * The JSON Schema pattern of those attributes (openapi.yaml uses it verbatim): no `|`, not only spaces.
 * Control characters never get this far (see `caracterNoPermitido`).
 */
export const PATRON_TEXTO_SAT = '^(?! *$)[^|]+$';

export interface CaracterNoPermitido {
  /** Position in UTF-16 code units, as JavaScript counts. */
  indice: number;
  /** `U+0001` style. */
  codigo: string;
}

const hex = (n: number) => `U+${n.toString(16).toUpperCase().padStart(4, '0')}`;

/** The first character of `s` that no request may carry, or undefined. Linear, allocation-free on success. */
export function caracterNoPermitido(s: string): CaracterNoPermitido | undefined {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0xd800) continue;
    if (c < 0x20 || c === 0xfffe || c === 0xffff) return { indice: i, codigo: hex(c) };
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      return { indice: i, codigo: hex(c) };
    }
    if (c >= 0xdc00 && c <= 0xdfff) return { indice: i, codigo: hex(c) };
  }
  return undefined;
}

/** The Spanish explanation of a refused character, for a field named `campo`. */
export function mensajeCaracterNoPermitido(campo: string, x: CaracterNoPermitido): string {
  return (
    `${campo} contiene el carácter ${x.codigo} en la posición ${x.indice + 1}: no se admiten caracteres de ` +
    'control (tampoco tabuladores ni saltos de línea), U+FFFE, U+FFFF ni sustitutos UTF-16 sueltos.'
  );
}
