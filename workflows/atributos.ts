import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Search attributes let ops and finance filter workflows in the Temporal UI and CLI.
// Keep this list the only definition: the dev server registration and the workflows use it.
export const ATRIBUTOS = {
  CuentaId: defineSearchAttributeKey('CuentaId', SearchAttributeType.KEYWORD),
  Modo: defineSearchAttributeKey('Modo', SearchAttributeType.KEYWORD),
  OrganizacionId: defineSearchAttributeKey('OrganizacionId', SearchAttributeType.KEYWORD),
  FacturaId: defineSearchAttributeKey('FacturaId', SearchAttributeType.KEYWORD),
  EstadoFactura: defineSearchAttributeKey('EstadoFactura', SearchAttributeType.KEYWORD),
  PagoId: defineSearchAttributeKey('PagoId', SearchAttributeType.KEYWORD),
  /** The invoices a payment workflow paid: `FacturasPagadas="fac_…"` finds every payment of an invoice. */
  FacturasPagadas: defineSearchAttributeKey('FacturasPagadas', SearchAttributeType.KEYWORD_LIST),
  EventoId: defineSearchAttributeKey('EventoId', SearchAttributeType.KEYWORD),
} as const;

const NOMBRE_TIPO: Record<string, string> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

/** `Name=Type` pairs, as `temporal server start-dev --search-attribute` takes them. */
export function atributosParaCli(): string[] {
  return Object.values(ATRIBUTOS).map((k) => `${k.name}=${NOMBRE_TIPO[k.type]}`);
}

/** The search attributes every invoice workflow starts with (`estado`: timbrando, cancelando…). */
export function atributosFactura(
  a: { cuentaId: string; modo: string },
  factura: { id: string; organizacionId: string },
  estado: string,
) {
  return [
    { key: ATRIBUTOS.FacturaId, value: factura.id },
    { key: ATRIBUTOS.CuentaId, value: a.cuentaId },
    { key: ATRIBUTOS.Modo, value: a.modo },
    { key: ATRIBUTOS.OrganizacionId, value: factura.organizacionId },
    { key: ATRIBUTOS.EstadoFactura, value: estado },
  ];
}

/** The search attributes a payment workflow starts with; `FacturaId` (its CFDI) is set once it is registered. */
export function atributosPago(
  a: { cuentaId: string; modo: string },
  pago: { id: string; organizacionId: string; facturas: string[] },
) {
  return [
    { key: ATRIBUTOS.PagoId, value: pago.id },
    { key: ATRIBUTOS.CuentaId, value: a.cuentaId },
    { key: ATRIBUTOS.Modo, value: a.modo },
    { key: ATRIBUTOS.OrganizacionId, value: pago.organizacionId },
    { key: ATRIBUTOS.FacturasPagadas, value: pago.facturas },
    { key: ATRIBUTOS.EstadoFactura, value: 'registrando' },
  ];
}
