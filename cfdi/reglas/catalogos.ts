/**
 * What the rules need from the SAT catalogs, kept synchronous so the fiscal core stays free of I/O:
 * the API implements it over an in-memory copy of the cat_* tables, tests over the CSV files.
 *
 * Every lookup answers only records that are currently valid (vigencia_desde ≤ today ≤ vigencia_hasta,
 * empty bounds meaning open): an expired or not-yet-valid code is `undefined`, exactly like an unknown one.
 * Keys are matched exactly (codes are case-sensitive, as in the CFDI: "g03" is not "G03").
 * Records are read, never changed, so implementations may hand out their own frozen or shared objects.
 */

/** A row of cat_regimen_fiscal. */
export interface RegimenFiscal {
  readonly clave: string;
  readonly descripcion: string;
  /** May be used by personas físicas (13-character RFC). */
  readonly aplica_fisica: boolean;
  /** May be used by personas morales (12-character RFC). */
  readonly aplica_moral: boolean;
}

/** A row of cat_uso_cfdi. */
export interface UsoCfdi {
  readonly clave: string;
  readonly descripcion: string;
  readonly aplica_fisica: boolean;
  readonly aplica_moral: boolean;
  /** Receiver regimes the use is allowed with: the column regimenes_fiscales_receptores split on commas. */
  readonly regimenes_receptor: readonly string[];
}

/**
 * A row of cat_tasa_o_cuota: a rule, not a code. Decimals stay strings as stored ("0.160000"), so that no
 * value goes through a float.
 */
export interface ReglaTasaOCuota {
  /** Fijo: the value must equal `valor`. Rango: `minimo` ≤ value ≤ `valor`. */
  readonly tipo: 'Fijo' | 'Rango';
  /** Lower bound of a Rango (null means 0); null for Fijo. */
  readonly minimo: string | null;
  /** The fixed value, or the upper bound of a Rango. */
  readonly valor: string;
  /**
   * The tax as the catalog writes it: "ISR", "IVA", "IEPS" or "IVA Crédito aplicado del 50%" (the 8 %
   * border rate, which is IVA). The c_Impuesto codes "001", "002", "003" are accepted as well.
   */
  readonly impuesto: string;
  /** "Tasa" or "Cuota". */
  readonly factor: string;
  /** The rule applies to traslados. */
  readonly traslado: boolean;
  /** The rule applies to retenciones. */
  readonly retencion: boolean;
}

/** A code and its description, for catalogs where the rules only need to know the code exists. */
export interface ClaveDescripcion {
  readonly clave: string;
  readonly descripcion: string;
}

/** A row of cat_moneda: the decimals bound every document-level amount (CFDI40107 and following). */
export interface Moneda {
  readonly clave: string;
  readonly descripcion: string;
  readonly decimales: number;
}

export interface ConsultaCatalogos {
  regimenFiscal(clave: string): RegimenFiscal | undefined;
  usoCfdi(clave: string): UsoCfdi | undefined;
  codigoPostal(clave: string): { readonly clave: string; readonly huso_horario: string } | undefined;
  claveProdServ(clave: string): ClaveDescripcion | undefined;
  claveUnidad(clave: string): ClaveDescripcion | undefined;
  objetoImp(clave: string): ClaveDescripcion | undefined;
  formaPago(clave: string): ClaveDescripcion | undefined;
  metodoPago(clave: string): ClaveDescripcion | undefined;
  moneda(clave: string): Moneda | undefined;
  exportacion(clave: string): ClaveDescripcion | undefined;
  tipoRelacion(clave: string): ClaveDescripcion | undefined;
  /** Every currently valid row of cat_tasa_o_cuota. */
  reglasTasaOCuota(): readonly ReglaTasaOCuota[];
}
