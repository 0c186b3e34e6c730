import type { ComprobanteEntrada, ConceptoEntrada } from '../../cfdi/comprobante/tipos';

const IVA16 = { impuesto: '002', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.160000' };

export const concepto = (c: Partial<ConceptoEntrada> = {}): ConceptoEntrada => ({
  clave_prod_serv: '80111600',
  cantidad: '1',
  clave_unidad: 'E48',
  unidad: 'Servicio',
  descripcion: 'Servicio de consultoría',
  valor_unitario: '1500',
  objeto_imp: '02',
  impuestos: { traslados: [IVA16] },
  ...c,
});

/** A valid ingreso from the SAT test issuer to a test receiver; override what a test needs. */
export const comprobante = (c: Partial<ComprobanteEntrada> = {}): ComprobanteEntrada => ({
  tipo: 'I',
  fecha: '2026-11-23T10:00:00',
  forma_pago: '03',
  metodo_pago: 'PUE',
  moneda: 'MXN',
  decimales_moneda: 2,
  exportacion: '01',
  lugar_expedicion: '42501',
  emisor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601' },
  receptor: {
    rfc: 'MASO451221PM4',
    nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
    domicilio_fiscal: '80290',
    regimen_fiscal: '612',
    uso_cfdi: 'G03',
  },
  conceptos: [concepto()],
  no_certificado: '30001000000500003416',
  ...c,
});

export { IVA16 };
