import type { Esquema } from '../contrato';
import type { FilaRecibo } from '../db/repositorios/recibos';
import { clave } from './claves';
import { dtoConceptos, dtoImpuestos } from './factura';
import { iso, isoONulo } from './fechas';

/** Where the buyer invoices a receipt: the self-invoicing portal with its key. */
export const urlAutofactura = (base: string, claveComprador: string) =>
  `${base.replace(/\/+$/, '')}/autofactura?clave=${encodeURIComponent(claveComprador)}`;

/**
 * A receipt as the API and its events show it. `acceso` is the buyer's key and its portal address, given only
 * to the receipt's own account: events go without them (the event log is kept in clear, for years).
 */
export function dtoRecibo(f: FilaRecibo, acceso: { clave: string; url: string } | null): Esquema<'Recibo'> {
  const doc = f.documento;
  const i = doc.importes;
  return {
    id: f.id,
    objeto: 'recibo',
    modo: f.modo,
    organizacion: f.organizacion_id,
    estado: f.estado,
    fecha: f.fecha,
    folio: f.folio,
    sucursal: f.sucursal,
    forma_pago: clave('FormaPago', doc.forma_pago),
    moneda: doc.moneda,
    tipo_cambio: doc.tipo_cambio ?? null,
    lugar_expedicion: doc.lugar_expedicion,
    conceptos: dtoConceptos(i, doc.productos),
    impuestos: dtoImpuestos(i),
    subtotal: i.subtotal,
    descuento: i.descuento ?? null,
    total: i.total,
    clave: acceso?.clave ?? null,
    url_autofactura: acceso?.url ?? null,
    vence_en: iso(f.vence_en),
    factura: f.factura_id,
    factura_global: f.factura_global_id,
    cancelado_en: isoONulo(f.cancelado_en),
    creado_en: iso(f.creado_en),
    actualizado_en: iso(f.actualizado_en),
  };
}

export type Recibo = ReturnType<typeof dtoRecibo>;
