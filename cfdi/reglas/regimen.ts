import type { ConsultaCatalogos } from './catalogos';
import { esRfcGenerico, nombrePersona, personaDeRfc } from './rfc';
import { violacion, type Rol, type Violacion } from './tipos';

const SAT_NO_EXISTE: Record<Rol, string> = { emisor: 'CFDI40140', receptor: 'CFDI40157' };
const SAT_PERSONA: Record<Rol, string> = { emisor: 'CFDI40141', receptor: 'CFDI40158' };

/** Regime in c_RegimenFiscal (currently valid) and allowed for the persona type of the RFC. */
export function validarRegimen(
  regimen: string,
  rfc: string,
  catalogos: ConsultaCatalogos,
  parametro = 'regimen_fiscal',
  rol: Rol = 'emisor',
): Violacion[] {
  const registro = catalogos.regimenFiscal(regimen);
  if (!registro) {
    return [
      violacion(
        'regimen_fiscal_invalido',
        `El régimen fiscal "${regimen}" no existe o no está vigente en el catálogo c_RegimenFiscal.`,
        parametro,
        SAT_NO_EXISTE[rol],
      ),
    ];
  }
  // A malformed RFC is reported by validarRfc; without a persona type there is nothing to compare.
  const persona = personaDeRfc(rfc);
  if (persona === null) return [];
  const aplica = persona === 'moral' ? registro.aplica_moral : registro.aplica_fisica;
  if (aplica) return [];
  return [
    violacion(
      'regimen_no_aplica_persona',
      `El régimen fiscal ${registro.clave} (${registro.descripcion}) no aplica a una ${nombrePersona(persona)}` +
        ` (RFC de ${rfc.length} caracteres).`,
      parametro,
      SAT_PERSONA[rol],
    ),
  ];
}

/** The generic RFCs (público en general, extranjero) only take regime 616 "Sin obligaciones fiscales". */
export function validarRegimenRfcGenerico(
  regimen: string,
  rfc: string,
  parametro = 'regimen_fiscal',
): Violacion[] {
  if (!esRfcGenerico(rfc) || regimen === '616') return [];
  return [
    violacion(
      'regimen_rfc_generico',
      `Con el RFC genérico ${rfc} el régimen fiscal debe ser 616 (Sin obligaciones fiscales).`,
      parametro,
      'CFDI40159',
    ),
  ];
}
