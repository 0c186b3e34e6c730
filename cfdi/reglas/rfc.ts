import { violacion, type Violacion } from './tipos';

export type Persona = 'moral' | 'fisica';

/** Público en general: the receiver of sales to anonymous customers and of global invoices. */
export const RFC_PUBLICO_EN_GENERAL = 'XAXX010101000';
/** Foreign residents without a Mexican RFC. */
export const RFC_EXTRANJERO = 'XEXX010101000';

export const esRfcGenerico = (rfc: string): boolean =>
  rfc === RFC_PUBLICO_EN_GENERAL || rfc === RFC_EXTRANJERO;

/**
 * The persona type an RFC implies: companies get 3 letters (12 characters), individuals 4 (13).
 * Decided on the length alone so that callers can tell the type of an RFC whose format they report apart.
 */
export function personaDeRfc(rfc: string): Persona | null {
  if (rfc.length === 12) return 'moral';
  if (rfc.length === 13) return 'fisica';
  return null;
}

export const nombrePersona = (persona: Persona): string =>
  persona === 'moral' ? 'persona moral' : 'persona física';

// Anexo 20 pattern: name letters, YYMMDD, two-character homoclave, check digit (0-9 or A).
const PATRON_RFC = /^[A-Z&Ñ]{3,4}(\d{2})(\d{2})(\d{2})[A-Z0-9]{2}[0-9A]$/;

/**
 * Format of an RFC (registration with the SAT is checked by the PAC, not here). The generic RFCs
 * XAXX010101000 and XEXX010101000 fit the pattern as 13-character RFCs.
 */
export function validarRfc(rfc: string, parametro = 'rfc'): Violacion[] {
  if (rfc.length !== 12 && rfc.length !== 13) {
    return [
      violacion(
        'rfc_invalido',
        `El RFC debe tener 12 caracteres (persona moral) o 13 (persona física); tiene ${rfc.length}.`,
        parametro,
      ),
    ];
  }
  const partes = PATRON_RFC.exec(rfc);
  if (!partes) {
    // The CFDI stores the RFC as written and the SAT compares it exactly: say why instead of fixing it.
    const mensaje = PATRON_RFC.test(rfc.toUpperCase())
      ? 'El RFC debe escribirse en mayúsculas.'
      : 'El RFC no tiene el formato del SAT: 3 o 4 letras, fecha AAMMDD y homoclave de 3 caracteres.';
    return [violacion('rfc_invalido', mensaje, parametro)];
  }
  const [, aa, mm, dd] = partes as unknown as [string, string, string, string];
  if (!esFechaReal(Number(aa), Number(mm), Number(dd))) {
    return [
      violacion(
        'rfc_fecha_invalida',
        `La fecha del RFC (${aa}${mm}${dd}) no es una fecha válida (formato AAMMDD).`,
        parametro,
      ),
    ];
  }
  return [];
}

/** YYMMDD with a two-digit year: February 29 is real if the year is leap in 19YY or in 20YY. */
function esFechaReal(aa: number, mes: number, dia: number): boolean {
  if (mes < 1 || mes > 12 || dia < 1) return false;
  const bisiesto = aa % 4 === 0; // 2000 was leap, so every YY divisible by 4 is leap in one century.
  const dias = [31, bisiesto ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mes - 1] ?? 0;
  return dia <= dias;
}
