import { clave, claveONula, impuestos } from './claves';
import type { Esquema } from '../contrato';
import { d, fijo } from '../cfdi/decimal';
import type { ImportesCalculados } from '../cfdi/comprobante/tipos';
import type { FilaFactura } from '../db/repositorios/facturas';
import { iso } from './fechas';
import { saldosParcialidad } from './importes';

/** A PPD invoice owes its total minus what its vigente instalments paid; others owe nothing here. */
function saldoInsoluto(f: FilaFactura): string | null {
  if (f.metodo_pago !== 'PPD' || f.estado === 'cancelada') return null;
  const pagado = f.parcialidades.reduce((s, p) => s.plus(p.imp_pagado), d(0));
  return fijo(d(f.documento.importes.total).minus(pagado), f.documento.entrada.decimales_moneda);
}

/** Computed concepts as invoices and receipts show them, each with the product it came from. */
export const dtoConceptos = (i: ImportesCalculados, productos: (string | null)[]) =>
  i.conceptos.map((c, k) => ({
    producto: productos[k] ?? null,
    no_identificacion: c.no_identificacion ?? null,
    cantidad: c.cantidad,
    clave_prod_serv: c.clave_prod_serv,
    clave_unidad: c.clave_unidad,
    unidad: c.unidad ?? null,
    descripcion: c.descripcion,
    valor_unitario: c.valor_unitario,
    importe: c.importe,
    descuento: c.descuento ?? null,
    objeto_imp: clave('ObjetoImp', c.objeto_imp),
    impuestos: { traslados: impuestos(c.traslados), retenciones: impuestos(c.retenciones) },
  }));

/** The document's tax summary. */
export const dtoImpuestos = (i: ImportesCalculados) => ({
  total_impuestos_trasladados: i.total_impuestos_trasladados ?? null,
  total_impuestos_retenidos: i.total_impuestos_retenidos ?? null,
  traslados: impuestos(i.traslados),
  retenciones: impuestos(i.retenciones),
});

/** The invoice as the API and its events show it: request data, computed amounts, fiscal identity and process states. */
export function dtoFactura(f: FilaFactura): Esquema<'Factura'> {
  const doc = f.documento;
  const e = doc.entrada;
  const i = doc.importes;
  return {
    id: f.id,
    objeto: 'factura' as const,
    modo: f.modo,
    organizacion: f.organizacion_id,
    cliente: {
      ...doc.cliente,
      regimen_fiscal: clave('RegimenFiscal', doc.cliente.regimen_fiscal),
      uso_cfdi: clave('UsoCfdi', doc.cliente.uso_cfdi),
    },
    tipo: f.tipo,
    estado: f.estado,
    serie: e.serie ?? null,
    folio: e.folio ?? null,
    fecha: e.fecha,
    forma_pago: claveONula('FormaPago', e.forma_pago),
    metodo_pago: e.metodo_pago ?? null,
    moneda: e.moneda,
    tipo_cambio: e.tipo_cambio ?? null,
    exportacion: clave('Exportacion', e.exportacion),
    lugar_expedicion: e.lugar_expedicion,
    condiciones_pago: e.condiciones_pago ?? null,
    conceptos: dtoConceptos(i, doc.productos),
    impuestos: dtoImpuestos(i),
    relaciones: (e.relaciones ?? []).map((r) => ({
      ...r,
      tipo_relacion: clave('TipoRelacion', r.tipo_relacion),
    })),
    subtotal: i.subtotal,
    descuento: i.descuento ?? null,
    total: i.total,
    uuid: f.uuid,
    fecha_timbrado: f.fecha_timbrado,
    no_certificado: f.no_certificado,
    no_certificado_sat: f.no_certificado_sat,
    timbrado: {
      estado: f.timbrado_estado,
      intentos: f.timbrado_intentos,
      ultimo_error: f.timbrado_error,
    },
    cancelacion: f.cancelacion && {
      estado: f.cancelacion.estado,
      motivo: clave('MotivoCancelacion', f.cancelacion.motivo),
      uuid_sustitucion: f.cancelacion.uuid_sustitucion,
      solicitada_en: f.cancelacion.solicitada_en,
      actualizada_en: f.cancelacion.actualizada_en,
      error: f.cancelacion.error ?? null,
    },
    saldo_insoluto: saldoInsoluto(f),
    num_parcialidades: f.parcialidades.length,
    parcialidades: f.parcialidades.map((p) => ({
      pago: p.pago,
      factura_pago: p.factura_pago,
      num_parcialidad: p.num_parcialidad,
      ...saldosParcialidad(p, e.decimales_moneda),
    })),
    pago: f.pago_id,
    enviar_correo: doc.correo?.enviar ?? true,
    correos_adicionales: doc.correo?.adicionales ?? [],
    factura_global:
      doc.global && e.informacion_global
        ? {
            periodicidad: clave('Periodicidad', e.informacion_global.periodicidad),
            meses: e.informacion_global.meses,
            anio: e.informacion_global.anio,
            desde: doc.global.desde,
            hasta: doc.global.hasta,
            reemplaza: doc.global.reemplaza,
          }
        : null,
    creado_en: iso(f.creado_en),
    actualizado_en: iso(f.actualizado_en),
  };
}

export type Factura = ReturnType<typeof dtoFactura>;
