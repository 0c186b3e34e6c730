import type { ConsultaCatalogos } from './catalogos';
import { violacion, type Violacion } from './tipos';

/** Product/service code in c_ClaveProdServ (currently valid). */
export function validarClaveProdServ(
  clave: string,
  catalogos: ConsultaCatalogos,
  parametro = 'clave_prod_serv',
): Violacion[] {
  if (catalogos.claveProdServ(clave)) return [];
  return [
    violacion(
      'clave_prod_serv_invalida',
      `La clave de producto o servicio "${clave}" no existe o no está vigente en el catálogo c_ClaveProdServ.`,
      parametro,
      'CFDI40162',
    ),
  ];
}

/** Unit code in c_ClaveUnidad (currently valid). */
export function validarClaveUnidad(
  clave: string,
  catalogos: ConsultaCatalogos,
  parametro = 'clave_unidad',
): Violacion[] {
  if (catalogos.claveUnidad(clave)) return [];
  return [
    violacion(
      'clave_unidad_invalida',
      `La clave de unidad "${clave}" no existe o no está vigente en el catálogo c_ClaveUnidad.`,
      parametro,
      'CFDI40165',
    ),
  ];
}
