import type { ConsultaCatalogos } from './catalogos';
import { nombrePersona, personaDeRfc } from './rfc';
import { violacion, type Violacion } from './tipos';

/** Use in c_UsoCFDI (currently valid). */
export function validarUsoCfdi(
  uso: string,
  catalogos: ConsultaCatalogos,
  parametro = 'uso_cfdi',
): Violacion[] {
  if (catalogos.usoCfdi(uso)) return [];
  return [
    violacion(
      'uso_cfdi_invalido',
      `El uso de CFDI "${uso}" no existe o no está vigente en el catálogo c_UsoCFDI.`,
      parametro,
      'CFDI40160',
    ),
  ];
}

/**
 * Warnings, not errors: a client may be saved with a use its regime does not allow (the data may be
 * corrected later, or each invoice may override uso_cfdi), but the PAC would reject such an invoice
 * (CFDI40161). At most one warning: a use wrong for the persona type is nearly always wrong for the regime too.
 */
export function advertenciasUsoCfdi(
  uso: string,
  regimenReceptor: string,
  rfc: string,
  catalogos: ConsultaCatalogos,
  parametro = 'uso_cfdi',
): Violacion[] {
  const registro = catalogos.usoCfdi(uso);
  if (!registro) return []; // already an error of validarUsoCfdi

  const persona = personaDeRfc(rfc);
  if (persona !== null && !(persona === 'moral' ? registro.aplica_moral : registro.aplica_fisica)) {
    return [
      advertencia(
        `El uso de CFDI ${registro.clave} (${registro.descripcion}) no aplica a una ${nombrePersona(persona)};` +
          ' el SAT rechazaría la factura.',
        parametro,
      ),
    ];
  }
  // An unknown regime is already an error of validarRegimen: no point in also warning about it.
  if (catalogos.regimenFiscal(regimenReceptor) && !registro.regimenes_receptor.includes(regimenReceptor)) {
    return [
      advertencia(
        `El uso de CFDI ${registro.clave} (${registro.descripcion}) no es compatible con el régimen fiscal ` +
          `${regimenReceptor}; regímenes permitidos: ${registro.regimenes_receptor.join(', ')}. ` +
          'El SAT rechazaría la factura.',
        parametro,
      ),
    ];
  }
  return [];
}

const advertencia = (mensaje: string, parametro: string): Violacion =>
  violacion('uso_cfdi_incompatible', mensaje, parametro, 'CFDI40161');
