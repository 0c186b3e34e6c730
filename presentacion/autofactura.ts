import Decimal from 'decimal.js';
import { fechaCfdi } from '../cfdi/fecha';
import type { Esquema } from '../contrato';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import type { FilaLogo } from '../db/repositorios/logos';
import type { FilaRecibo } from '../db/repositorios/recibos';
import type { Factura } from './factura';
import { dtoRecibo } from './recibo';

/** The self-invoicing portal's views: what a buyer sees, without internal ids or the key itself. */
export type ReciboAutofactura = Esquema<'ReciboAutofactura'>;
export type FacturaAutofactura = Esquema<'FacturaAutofactura'>;

const IMPUESTOS: Record<string, string> = { '001': 'ISR', '002': 'IVA', '003': 'IEPS' };

/** `0.160000` → `16`, `0.265000` → `26.5`: the rate as people read it, without a float in between. */
const porcentaje = (tasa: string) => new Decimal(tasa).mul(100).toString();

function lineaTraslado(t: {
  impuesto: string;
  tipo_factor: string;
  tasa_o_cuota?: string;
  importe?: string;
}) {
  const nombre = IMPUESTOS[t.impuesto] ?? t.impuesto;
  const descripcion =
    t.tipo_factor === 'Exento'
      ? `${nombre} exento`
      : t.tipo_factor === 'Cuota'
        ? `${nombre} cuota ${t.tasa_o_cuota}`
        : `${nombre} ${porcentaje(t.tasa_o_cuota!)} %`;
  return { tipo: 'traslado' as const, descripcion, importe: t.importe ?? null };
}

export interface Emisor {
  nombre: string;
  rfc: string;
}

/** What the buyer may do with the receipt now, and why not when they cannot. */
export interface Situacion {
  estado: ReciboAutofactura['estado'];
  facturable: boolean;
  aviso: string | null;
}

export function dtoReciboAutofactura(
  f: FilaRecibo,
  emisor: Emisor,
  logo: Pick<FilaLogo, 'tipo' | 'datos'> | undefined,
  situacion: Situacion,
  catalogos: Pick<ConsultaCatalogos, 'formaPago' | 'claveUnidad'>,
): ReciboAutofactura {
  const r = dtoRecibo(f, null);
  return {
    objeto: 'recibo_autofactura',
    modo: r.modo,
    ...situacion,
    emisor: {
      nombre: emisor.nombre,
      rfc: emisor.rfc,
      // Inline: the page's CSP admits data: images, and no second request has to carry the key.
      logo: logo ? `data:${logo.tipo};base64,${logo.datos.toString('base64')}` : null,
    },
    fecha: r.fecha,
    folio: r.folio,
    sucursal: r.sucursal,
    forma_pago: {
      clave: r.forma_pago,
      descripcion: catalogos.formaPago(r.forma_pago)?.descripcion ?? r.forma_pago,
    },
    moneda: r.moneda,
    conceptos: r.conceptos.map((c) => ({
      descripcion: c.descripcion,
      cantidad: c.cantidad,
      unidad: c.unidad ?? catalogos.claveUnidad(c.clave_unidad)?.descripcion ?? c.clave_unidad,
      valor_unitario: c.valor_unitario,
      importe: c.importe,
      descuento: c.descuento,
    })),
    impuestos: [
      ...r.impuestos.traslados.map(lineaTraslado),
      ...r.impuestos.retenciones.map((t) => ({
        tipo: 'retencion' as const,
        descripcion: `Retención de ${IMPUESTOS[t.impuesto] ?? t.impuesto}`,
        importe: t.importe,
      })),
    ],
    subtotal: r.subtotal,
    descuento: r.descuento,
    total: r.total,
    vence_en: r.vence_en,
    vence_en_local: fechaCfdi(f.vence_en, f.documento.huso_horario),
  };
}

export function dtoFacturaAutofactura(f: Factura, emisor: Emisor, pendiente: boolean): FacturaAutofactura {
  return {
    objeto: 'factura_autofactura',
    modo: f.modo,
    estado: pendiente || !f.uuid ? 'pendiente' : f.estado === 'cancelada' ? 'cancelada' : 'timbrada',
    serie: f.serie,
    folio: f.folio,
    uuid: f.uuid,
    fecha_timbrado: f.fecha_timbrado,
    emisor: { nombre: emisor.nombre, rfc: emisor.rfc },
    receptor: { nombre: f.cliente.nombre, rfc: f.cliente.rfc },
    total: f.total,
    moneda: f.moneda,
  };
}

/** `A-123_<UUID>.xml`, as the email names its attachments: nothing a file system refuses. */
export function nombreDescarga(f: Pick<Factura, 'serie' | 'folio' | 'uuid'>, extension: string): string {
  const base = [[f.serie, f.folio].filter((x) => x !== null && x !== '').join('-'), f.uuid]
    .filter(Boolean)
    .join('_');
  return `${(base || 'factura').replace(/[^0-9A-Za-z._-]+/g, '-')}.${extension}`;
}
