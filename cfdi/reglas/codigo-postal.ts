import type { ConsultaCatalogos } from './catalogos';
import { violacion, type Rol, type Violacion } from './tipos';

/**
 * Postal code in c_CodigoPostal. The organization's code becomes the invoice's LugarExpedicion, whose
 * catalog check is CFDI40126; the matrix has no catalog check for the receiver's DomicilioFiscalReceptor
 * (the PAC matches it against the SAT registry instead), so that case carries no SAT code.
 */
export function validarCodigoPostal(
  codigoPostal: string,
  catalogos: ConsultaCatalogos,
  parametro = 'codigo_postal',
  rol: Rol = 'emisor',
): Violacion[] {
  if (/^\d{5}$/.test(codigoPostal) && catalogos.codigoPostal(codigoPostal)) return [];
  return [
    violacion(
      'codigo_postal_invalido',
      `El código postal "${codigoPostal}" no existe en el catálogo c_CodigoPostal (5 dígitos).`,
      parametro,
      rol === 'emisor' ? 'CFDI40126' : undefined,
    ),
  ];
}
