/**
 * Input and output of the Pagos 2.0 calculator. Amounts, rates and exchange rates are decimal strings (never
 * numbers: they go through decimal.js only). Output names follow the API (snake_case, like the payment
 * resource of the spec); each field says which attribute of the complement it becomes.
 */

/** A tax row: of the paid invoice (to be prorated) or an already prorated DoctoRelacionado row. */
export interface LineaImpuestoPago {
  /** c_Impuesto: "001" ISR, "002" IVA, "003" IEPS. */
  impuesto: string;
  /** "Tasa", "Cuota" or "Exento" (retenciones are never Exento). */
  tipo_factor: string;
  /** Rate or quota, up to 6 decimals ("0.16" is written "0.160000"); absent for Exento. */
  tasa_o_cuota?: string | null;
  /** Base of the row, up to 6 decimals, in the currency of the invoice. */
  base: string;
  /**
   * Tax amount. For invoice rows it is informational: ImporteDR is recomputed from the prorated BaseDR
   * (see calcularPagos). For already prorated rows it is taken as given, and required unless Exento.
   */
  importe?: string | null;
}

export interface DesgloseImpuestosPago {
  traslados?: LineaImpuestoPago[] | null;
  retenciones?: LineaImpuestoPago[] | null;
}

/** A paid invoice (DoctoRelacionado). All amounts are in the invoice currency (MonedaDR). */
export interface DocumentoPagadoEntrada {
  /** UUID of the paid invoice (IdDocumento). */
  uuid: string;
  serie?: string | null;
  folio?: string | null;
  /** Currency of the invoice (MonedaDR). */
  moneda: string;
  /** Decimals of `moneda` from c_Moneda (MXN and USD 2, JPY 0, CLF 4). */
  decimales_moneda: number;
  /**
   * EquivalenciaDR: units of MonedaDR per 1 MonedaP, up to 10 decimals. Required when the currencies differ;
   * when they are equal it may be omitted and is written "1".
   */
  equivalencia?: string | null;
  /** 1 for the first payment of the invoice, then 2, 3… The caller knows the payment history. */
  num_parcialidad: number;
  /** Invoice Total for the first payment, otherwise the previous ImpSaldoInsoluto. */
  imp_saldo_anterior: string;
  imp_pagado: string;
  /** The invoice's ObjetoImp (c_ObjetoImp "01"–"08"). */
  objeto_imp: string;
  /** Invoice Total: with `impuestos_factura`, the taxes are prorated by imp_pagado / total_factura. */
  total_factura?: string | null;
  /** The invoice's taxes, one row per impuesto/tipo_factor/tasa, each with the summed Base of its concepts. */
  impuestos_factura?: DesgloseImpuestosPago | null;
  /**
   * Instead of the two above: ImpuestosDR already prorated (e.g. read from a stored complement), used as given.
   */
  impuestos_dr?: DesgloseImpuestosPago | null;
}

/** A payment received (one Pago node). */
export interface PagoEntrada {
  /** Local time of the place of issue, `YYYY-MM-DDThh:mm:ss`; a bare date means 12:00:00. */
  fecha_pago: string;
  /** c_FormaPago, never "99". */
  forma_pago: string;
  /** MonedaP, never "XXX". */
  moneda: string;
  /** Decimals of `moneda` from c_Moneda. */
  decimales_moneda: number;
  /** TipoCambioP: MXN per 1 MonedaP, up to 6 decimals. Absent or "1" for MXN; required otherwise. */
  tipo_cambio?: string | null;
  /** Monto in MonedaP; when absent, the minimum (Σ ImpPagado / EquivalenciaDR, truncated) is used. */
  monto?: string | null;
  documentos: DocumentoPagadoEntrada[];
}

/** A Pagos 2.0 complement may carry several Pago nodes. */
export interface EntradaPagos {
  pagos: PagoEntrada[];
}

/** A traslado or retención row of ImpuestosDR, or a traslado row of ImpuestosP. 6-decimal strings. */
export interface ImpuestoPagoCalculado {
  /** BaseDR / BaseP. */
  base: string;
  impuesto: string;
  tipo_factor: string;
  /** Absent for Exento. */
  tasa_o_cuota?: string;
  /** ImporteDR / ImporteP; absent for Exento. */
  importe?: string;
}

/** A RetencionP row: one per impuesto. */
export interface RetencionPagoCalculada {
  impuesto: string;
  importe: string;
}

export interface DocumentoCalculado {
  /** IdDocumento. */
  uuid: string;
  serie?: string;
  folio?: string;
  /** MonedaDR. */
  moneda: string;
  /** EquivalenciaDR: "1" for equal currencies (CRP20238), otherwise the given value. */
  equivalencia: string;
  /** NumParcialidad. */
  num_parcialidad: string;
  /** ImpSaldoAnt, ImpPagado and ImpSaldoInsoluto with the decimals of MonedaDR. */
  imp_saldo_anterior: string;
  imp_pagado: string;
  imp_saldo_insoluto: string;
  /** ObjetoImpDR. */
  objeto_imp: string;
  /** ImpuestosDR; absent when the document carries no taxes (ObjetoImpDR other than 02…). */
  impuestos?: { traslados: ImpuestoPagoCalculado[]; retenciones: ImpuestoPagoCalculado[] };
}

export interface PagoCalculado {
  /** FechaPago. */
  fecha_pago: string;
  /** FormaDePagoP. */
  forma_pago: string;
  /** MonedaP. */
  moneda: string;
  /** TipoCambioP ("1" for MXN). */
  tipo_cambio: string;
  /** Monto: the given amount, or the minimum, with the decimals of MonedaP. */
  monto: string;
  /** The smallest Monto the documents allow (not an attribute of the complement). */
  monto_minimo: string;
  documentos: DocumentoCalculado[];
  /** ImpuestosP, in MonedaP; absent when no document carries taxes. */
  impuestos?: { traslados: ImpuestoPagoCalculado[]; retenciones: RetencionPagoCalculada[] };
}

/** Totales, always MXN with 2 decimals. Each field is present only when some Pago has such a row. */
export interface TotalesPagos {
  total_retenciones_iva?: string;
  total_retenciones_isr?: string;
  total_retenciones_ieps?: string;
  total_traslados_base_iva16?: string;
  total_traslados_impuesto_iva16?: string;
  total_traslados_base_iva8?: string;
  total_traslados_impuesto_iva8?: string;
  total_traslados_base_iva0?: string;
  total_traslados_impuesto_iva0?: string;
  total_traslados_base_iva_exento?: string;
  monto_total_pagos: string;
}

export interface ComplementoPagosCalculado {
  totales: TotalesPagos;
  pagos: PagoCalculado[];
}
