/**
 * Every code of the SAT's CFDI 4.0 error matrix (MatrizDeErrores_CFDI_v40, 122 rules) and whether
 * `validarComprobante` enforces it. `local: false` rules need what only a PAC or the SAT has.
 */
export interface ReglaMatriz {
  readonly sat: string;
  readonly local: boolean;
  /** Why the rule is left to the PAC, or a condition on the local check. */
  readonly razon?: string;
}

const codigos = (...numeros: number[]) => numeros.map((n) => `CFDI40${n}`);
const locales = (...numeros: number[]): ReglaMatriz[] =>
  codigos(...numeros).map((sat) => ({ sat, local: true }));
const delPac = (razon: string, ...numeros: number[]): ReglaMatriz[] =>
  codigos(...numeros).map((sat) => ({ sat, local: false, razon }));
const rango = (desde: number, hasta: number) =>
  Array.from({ length: hasta - desde + 1 }, (_, i) => desde + i);

const REGLAS: readonly ReglaMatriz[] = [
  ...locales(101, 103, 104, 105),
  ...locales(107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 119),
  ...locales(121, 122, 123, 124, 125, 126),
  ...locales(...rango(130, 137), 140, 141, 146, 149),
  // c_Pais is not in CatalogosEnMemoria yet: these two run only with a store that has `pais`.
  ...codigos(150, 156).map((sat) => ({
    sat,
    local: true,
    razon: 'requiere la consulta opcional catalogos.pais (c_Pais)',
  })),
  ...locales(151, 152, 153, 154, 155, 157, 158, 159, 160, 161, 162, 165),
  ...locales(...rango(166, 186), 188, 191, 195, 196, 197, 198, 200),
  ...locales(...rango(201, 221)),

  ...delPac('el sello se calcula después de validar; el PAC lo verifica contra la cadena original', 102),
  ...delPac('certificado: validez, emisión por el SAT y titular los verifica el PAC', 106, 138, 139),
  ...delPac(
    'requiere el tipo de cambio oficial o el límite de la RMF y las claves de confirmación que emite el PAC',
    118,
    120,
    127,
    128,
    129,
  ),
  ...delPac('requiere el servicio del SAT de validación de RFC para facturación por el adquirente', 142),
  ...delPac(
    'requiere la lista de RFC inscritos no cancelados (LCO) con su nombre y código postal',
    143,
    144,
    145,
    147,
    148,
    187,
    189,
    190,
    192,
    193,
  ),
  ...delPac(
    'nuestra copia de c_ClaveProdServ no trae los complementos ni los impuestos obligatorios por clave',
    163,
    164,
  ),
  ...delPac(
    'el número de pedimento se valida contra c_NumPedimentoAduana y c_PatenteAduanal, que no tenemos',
    194,
    199,
  ),
  ...delPac('código genérico del PAC para errores no clasificados', 999),
];

export const MATRIZ: readonly ReglaMatriz[] = [...REGLAS].sort((a, b) => a.sat.localeCompare(b.sat));
