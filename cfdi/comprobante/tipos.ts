/** What the builder needs to produce a CFDI 4.0 of type I or E. Amounts are decimal strings. */

export interface ImpuestoConcepto {
  impuesto: string;
  tipo_factor: 'Tasa' | 'Cuota' | 'Exento';
  tasa_o_cuota?: string;
}

export interface ConceptoEntrada {
  clave_prod_serv: string;
  no_identificacion?: string;
  cantidad: string;
  clave_unidad: string;
  unidad?: string;
  descripcion: string;
  valor_unitario: string;
  descuento?: string;
  objeto_imp: string;
  impuestos?: { traslados?: ImpuestoConcepto[]; retenciones?: ImpuestoConcepto[] };
}

export interface ComprobanteEntrada {
  tipo: 'I' | 'E';
  serie?: string;
  folio?: string;
  /** Local time of the place of issue, `YYYY-MM-DDThh:mm:ss`. */
  fecha: string;
  forma_pago?: string;
  metodo_pago?: 'PUE' | 'PPD';
  condiciones_pago?: string;
  moneda: string;
  /** Decimals of the currency, from c_Moneda. */
  decimales_moneda: number;
  tipo_cambio?: string;
  exportacion: string;
  lugar_expedicion: string;
  informacion_global?: { periodicidad: string; meses: string; anio: string };
  relaciones?: { tipo_relacion: string; uuids: string[] }[];
  emisor: { rfc: string; nombre: string; regimen_fiscal: string };
  receptor: {
    rfc: string;
    nombre: string;
    domicilio_fiscal: string;
    regimen_fiscal: string;
    uso_cfdi: string;
    residencia_fiscal?: string;
    num_reg_id_trib?: string;
  };
  conceptos: ConceptoEntrada[];
  /** From the organization's active CSD. */
  no_certificado: string;
  certificado?: string;
}

export interface ImpuestoCalculado {
  base: string;
  impuesto: string;
  tipo_factor: string;
  tasa_o_cuota?: string;
  importe?: string;
}

export interface ConceptoCalculado extends ConceptoEntrada {
  importe: string;
  traslados: ImpuestoCalculado[];
  retenciones: ImpuestoCalculado[];
}

export interface ImportesCalculados {
  conceptos: ConceptoCalculado[];
  subtotal: string;
  descuento?: string;
  traslados: ImpuestoCalculado[];
  retenciones: { impuesto: string; importe: string }[];
  total_impuestos_trasladados?: string;
  total_impuestos_retenidos?: string;
  total: string;
}
