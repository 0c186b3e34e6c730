import { clave } from './claves';
import type { Esquema } from '../contrato';
import { d, fijo } from '../cfdi/decimal';
import type { FilaPago } from '../db/repositorios/pagos';
import { iso } from './fechas';
import { saldosParcialidad } from './importes';

/**
 * The payment as the API and the `pago.creado` event show it. `estado` is the payment CFDI's once the ledger
 * holds the payment; before that, `registrando` or `rechazado` (with `error`).
 */
export function dtoPago(f: FilaPago): Esquema<'Pago'> {
  const s = f.solicitud;
  // The ledger's figures once it took the payment (also after a PAC rejection gave them back).
  const enLibro = f.parcialidades.length > 0;
  return {
    id: f.id,
    objeto: 'pago' as const,
    modo: f.modo,
    organizacion: f.organizacion_id,
    factura_pago: f.factura_pago_id,
    estado: f.estado === 'registrado' ? f.factura_pago_estado! : f.estado,
    uuid: f.factura_pago_uuid,
    fecha_pago: s.fecha_pago,
    forma_pago: clave('FormaPago', s.forma_pago),
    moneda: s.moneda,
    tipo_cambio: s.tipo_cambio,
    monto: fijo(d(s.monto), s.decimales_moneda),
    facturas_pagadas: enLibro
      ? f.parcialidades.map((p) => ({
          factura: p.factura,
          uuid: p.uuid,
          moneda: p.moneda,
          equivalencia: p.equivalencia,
          num_parcialidad: p.num_parcialidad,
          ...saldosParcialidad(p, p.decimales),
          objeto_imp: clave('ObjetoImp', p.objeto_imp),
          vigente: p.vigente,
        }))
      : // Not in the ledger: what was asked, without the figures only the ledger can give.
        s.facturas_pagadas.map((p) => ({
          factura: p.factura,
          uuid: null,
          moneda: null,
          equivalencia: p.equivalencia,
          num_parcialidad: null,
          imp_saldo_anterior: null,
          imp_pagado: p.imp_pagado,
          imp_saldo_insoluto: null,
          objeto_imp: null,
          vigente: false,
        })),
    error: f.error,
    creado_en: iso(f.creado_en),
    actualizado_en: iso(f.actualizado_en),
  };
}

export type Pago = ReturnType<typeof dtoPago>;
