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
  WebhookId: defineSearchAttributeKey('WebhookId', SearchAttributeType.KEYWORD),
  TipoEvento: defineSearchAttributeKey('TipoEvento', SearchAttributeType.KEYWORD),
  /**
   * What ops know an invoice by: its issuer's and client's RFC, serie-folio and, once stamped, its UUID
   * (`Referencias="AAA010101AAA"`). One list, since SQL visibility allows only 10 Keyword attributes.
   */
  Referencias: defineSearchAttributeKey('Referencias', SearchAttributeType.KEYWORD_LIST),
  /**
   * Why a stamping waits or failed: its step and code (`ErrorTimbrado="pac_no_disponible"`,
   * `ErrorTimbrado="sellado"`); empty again once stamped.
   */
  ErrorTimbrado: defineSearchAttributeKey('ErrorTimbrado', SearchAttributeType.KEYWORD_LIST),
  /** The attempt a delivery is on or waits for: `IntentosEntrega > 1 AND ExecutionStatus="Running"` is failing. */
  IntentosEntrega: defineSearchAttributeKey('IntentosEntrega', SearchAttributeType.INT),
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

/** The search attributes of an email workflow: the invoice it sends, so the workflows of an invoice include it. */
export function atributosCorreo(
  a: { cuentaId: string; modo: string },
  c: { facturaId: string; organizacionId: string },
) {
  return [
    { key: ATRIBUTOS.FacturaId, value: c.facturaId },
    { key: ATRIBUTOS.CuentaId, value: a.cuentaId },
    { key: ATRIBUTOS.Modo, value: a.modo },
    { key: ATRIBUTOS.OrganizacionId, value: c.organizacionId },
  ];
}

/**
 * The search attributes of a delivery workflow: its event, webhook and event type, and the invoice or payment
 * the event is about, so the workflows of an invoice include the deliveries of its events.
 */
export function atributosEntrega(
  a: { cuentaId: string; modo: string },
  e: { eventoId: string; webhookId: string; tipo: string; datos: Record<string, unknown> },
) {
  const texto = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const id = texto(e.datos.id);
  const organizacion = texto(e.datos.organizacion);
  const facturaPago = texto(e.datos.factura_pago);
  const pago = texto(e.datos.pago);
  const factura = e.tipo.startsWith('factura.')
    ? id
    : e.tipo.startsWith('correo.')
      ? texto(e.datos.factura)
      : facturaPago;
  const pagoId = e.tipo.startsWith('pago.') ? id : pago;
  // A payment's event belongs to every invoice it paid, as its registration workflow does.
  const pagadas = Array.isArray(e.datos.facturas_pagadas)
    ? (e.datos.facturas_pagadas as { factura?: unknown }[])
        .map((f) => texto(f.factura))
        .filter((f) => f !== undefined)
    : [];
  return [
    { key: ATRIBUTOS.EventoId, value: e.eventoId },
    { key: ATRIBUTOS.WebhookId, value: e.webhookId },
    { key: ATRIBUTOS.TipoEvento, value: e.tipo },
    { key: ATRIBUTOS.CuentaId, value: a.cuentaId },
    { key: ATRIBUTOS.Modo, value: a.modo },
    { key: ATRIBUTOS.IntentosEntrega, value: 1 },
    ...(organizacion ? [{ key: ATRIBUTOS.OrganizacionId, value: organizacion }] : []),
    ...(factura ? [{ key: ATRIBUTOS.FacturaId, value: factura }] : []),
    ...(pagoId ? [{ key: ATRIBUTOS.PagoId, value: pagoId }] : []),
    ...(pagadas.length ? [{ key: ATRIBUTOS.FacturasPagadas, value: pagadas }] : []),
  ];
}
