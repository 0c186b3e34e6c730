import { d, decimalesDe } from '../cfdi/decimal';
import { calcularPagos } from '../cfdi/pagos';
import type { DesgloseImpuestosPago, DocumentoPagadoEntrada, LineaImpuestoPago } from '../cfdi/pagos';
import type { FilaFactura } from '../db/repositorios/facturas';
import { cancelacionEnCurso, type DocumentoFactura } from '../dominio/factura';
import type { ParcialidadPago, RechazoPago, SolicitudPago } from '../dominio/pago';

/** Anexo 20 fixes the one concept of a type P CFDI. */
const CONCEPTO_PAGO = {
  clave_prod_serv: '84111506',
  cantidad: '1',
  clave_unidad: 'ACT',
  descripcion: 'Pago',
  valor_unitario: '0',
  objeto_imp: '01',
};

export interface DatosEmisor {
  rfc: string;
  nombre: string;
  regimen_fiscal: string;
  codigo_postal: string;
}

export type PagoArmado =
  | {
      ok: true;
      parcialidades: Omit<ParcialidadPago, 'vigente'>[];
      documento: DocumentoFactura;
      /** The receiver's client, as the first paid invoice names it. */
      clienteId: string | null;
    }
  | { ok: false; rechazo: RechazoPago };

interface Entrada {
  pagoId: string;
  solicitud: SolicitudPago;
  organizacionId: string;
  emisor: DatosEmisor;
  husoHorario: string;
  /** The paid invoices, locked, with their vigente instalments. */
  facturas: FilaFactura[];
  /** The CFDI's Fecha until it is sealed (sealing writes the final one). */
  fecha: string;
}

const rechazo = (
  tipo: RechazoPago['tipo'],
  codigo: string,
  mensaje: string,
  parametro?: string,
): PagoArmado => ({ ok: false, rechazo: { tipo, codigo, mensaje, ...(parametro ? { parametro } : {}) } });

/** The invoice's ObjetoImp for DoctoRelacionado: 02 when any concept carried taxes. */
const objetoImp = (f: FilaFactura) =>
  f.documento.importes.conceptos.some((c) => c.objeto_imp === '02') ? '02' : '01';

/**
 * The invoice's tax rows with the summed Base of their concepts, as the calculator prorates them. Retenciones
 * are summed from the concepts: the invoice summary keeps only their amounts.
 */
function impuestosFactura(f: FilaFactura): DesgloseImpuestosPago {
  const agrupar = (filas: LineaImpuestoPago[]) => {
    const grupos = new Map<string, LineaImpuestoPago>();
    for (const r of filas) {
      const k = `${r.impuesto}|${r.tipo_factor}|${r.tasa_o_cuota ?? ''}`;
      const g = grupos.get(k);
      grupos.set(k, g ? { ...g, base: d(g.base).plus(r.base).toString() } : { ...r });
    }
    return [...grupos.values()];
  };
  const conceptos = f.documento.importes.conceptos;
  return {
    traslados: agrupar(conceptos.flatMap((c) => c.traslados)),
    retenciones: agrupar(conceptos.flatMap((c) => c.retenciones)),
  };
}

/**
 * Checks a payment against its invoices (locked by the caller, with their instalments) and, when every rule
 * holds, gives the ledger rows and the payment CFDI's document. Pure: the caller writes.
 */
/** The request's fields a calculator path names (`pagos[0].monto`, `pagos[0].documentos[1].equivalencia`). */
const CAMPOS_PAGO = new Set(['fecha_pago', 'forma_pago', 'moneda', 'tipo_cambio', 'monto']);
const CAMPOS_FACTURA = new Set(['imp_pagado', 'equivalencia']);

/**
 * The calculator's path in the request's words: one payment, whose documents are `facturas_pagadas` in the
 * order asked; a document's other values (its balance, taxes) come from the invoice, named by `factura`.
 */
export function campoDeSolicitud(ruta: string | undefined): string | undefined {
  const m = /^pagos\[0\]\.(?:documentos\[(\d+)\]\.)?([a-z_]+)/.exec(ruta ?? '');
  if (!m) return undefined;
  const [, documento, campo] = m;
  if (documento === undefined) return CAMPOS_PAGO.has(campo!) ? campo : undefined;
  return `facturas_pagadas[${documento}].${CAMPOS_FACTURA.has(campo!) ? campo : 'factura'}`;
}

export function armarPago(e: Entrada): PagoArmado {
  const s = e.solicitud;
  const porId = new Map(e.facturas.map((f) => [f.id, f]));
  const parcialidades: Omit<ParcialidadPago, 'vigente'>[] = [];
  const documentos: DocumentoPagadoEntrada[] = [];
  let receptor: FilaFactura | undefined;

  for (const [i, pedida] of s.facturas_pagadas.entries()) {
    const p = `facturas_pagadas[${i}]`;
    const f = porId.get(pedida.factura);
    if (!f)
      return rechazo(
        'no_encontrado',
        'factura_no_encontrada',
        `La factura ${pedida.factura} no existe.`,
        `${p}.factura`,
      );
    if (f.organizacion_id !== e.organizacionId) {
      return rechazo(
        'regla_de_negocio',
        'factura_de_otra_organizacion',
        `La factura ${f.id} es de otra organización.`,
        `${p}.factura`,
      );
    }
    if (f.estado !== 'timbrada') {
      return rechazo(
        'conflicto',
        'factura_no_timbrada',
        `Solo se pagan facturas timbradas; la factura ${f.id} está ${f.estado}.`,
        `${p}.factura`,
      );
    }
    if (cancelacionEnCurso(f.cancelacion)) {
      return rechazo(
        'conflicto',
        'cancelacion_en_curso',
        `La factura ${f.id} tiene una cancelación en curso: no admite pagos mientras el SAT la resuelve.`,
        `${p}.factura`,
      );
    }
    if (f.tipo === 'pago' || f.metodo_pago !== 'PPD') {
      return rechazo(
        'regla_de_negocio',
        'factura_no_ppd',
        f.tipo === 'pago'
          ? `${f.id} es un CFDI de pago: solo se pagan facturas de ingreso PPD.`
          : `La factura ${f.id} no es PPD: una factura PUE se considera pagada al emitirse y no lleva pagos.`,
        `${p}.factura`,
      );
    }
    receptor ??= f;
    if (f.documento.cliente.rfc !== receptor.documento.cliente.rfc) {
      return rechazo(
        'regla_de_negocio',
        'receptores_distintos',
        `La factura ${f.id} es de ${f.documento.cliente.rfc} y la ${receptor.id} de ${receptor.documento.cliente.rfc}: un pago ampara facturas de un solo receptor.`,
        `${p}.factura`,
      );
    }
    const entrada = f.documento.entrada;
    const mismaMoneda = entrada.moneda === s.moneda;
    if (!mismaMoneda && !pedida.equivalencia) {
      return rechazo(
        'solicitud_invalida',
        'equivalencia_requerida',
        `La factura ${f.id} está en ${entrada.moneda} y el pago en ${s.moneda}: indique ${p}.equivalencia (${entrada.moneda} por cada ${s.moneda}).`,
        `${p}.equivalencia`,
      );
    }
    if (decimalesDe(pedida.imp_pagado) > entrada.decimales_moneda) {
      return rechazo(
        'regla_de_negocio',
        'decimales_excedidos',
        `${p}.imp_pagado tiene más decimales de los que admite ${entrada.moneda} (${entrada.decimales_moneda}).`,
        `${p}.imp_pagado`,
      );
    }
    // By calendar day: money received on the invoice's day is fine, whatever the hour.
    if (s.fecha_pago.slice(0, 10) < entrada.fecha.slice(0, 10)) {
      return rechazo(
        'regla_de_negocio',
        'fecha_pago_anterior',
        `fecha_pago ${s.fecha_pago} es anterior a la fecha de la factura ${f.id} (${entrada.fecha}).`,
        'fecha_pago',
      );
    }
    const pagado = f.parcialidades.reduce((t, x) => t.plus(x.imp_pagado), d(0));
    const saldo = d(f.documento.importes.total).minus(pagado);
    if (d(pedida.imp_pagado).gt(saldo)) {
      return rechazo(
        'regla_de_negocio',
        'importe_excede_saldo',
        `${p}.imp_pagado ${pedida.imp_pagado} excede el saldo insoluto de la factura ${f.id}: ${saldo.toFixed(entrada.decimales_moneda)} ${entrada.moneda}.`,
        `${p}.imp_pagado`,
      );
    }
    // After a cancelled instalment, numbering goes on from the highest one still counting.
    const num = f.parcialidades.reduce((m, x) => Math.max(m, x.num_parcialidad), 0) + 1;
    const equivalencia = mismaMoneda ? null : pedida.equivalencia;
    documentos.push({
      uuid: f.uuid!,
      serie: entrada.serie ?? null,
      folio: entrada.folio ?? null,
      moneda: entrada.moneda,
      decimales_moneda: entrada.decimales_moneda,
      equivalencia,
      num_parcialidad: num,
      imp_saldo_anterior: saldo.toFixed(entrada.decimales_moneda),
      imp_pagado: pedida.imp_pagado,
      objeto_imp: objetoImp(f),
      total_factura: f.documento.importes.total,
      impuestos_factura: impuestosFactura(f),
    });
    parcialidades.push({
      factura: f.id,
      uuid: f.uuid!,
      moneda: entrada.moneda,
      decimales: entrada.decimales_moneda,
      equivalencia,
      num_parcialidad: num,
      imp_saldo_anterior: saldo.toFixed(entrada.decimales_moneda),
      imp_pagado: pedida.imp_pagado,
      imp_saldo_insoluto: saldo.minus(pedida.imp_pagado).toFixed(entrada.decimales_moneda),
      objeto_imp: objetoImp(f),
    });
  }

  // Each invoice's amount in the payment's currency, truncated as the SAT computes the minimum Monto.
  const minimo = documentos.reduce((t, x) => t.plus(d(x.imp_pagado).div(x.equivalencia ?? '1')), d(0));
  if (d(s.monto).lt(minimo.toDecimalPlaces(s.decimales_moneda, 1))) {
    return rechazo(
      'regla_de_negocio',
      'monto_insuficiente',
      `monto ${s.monto} ${s.moneda} no cubre lo aplicado a las facturas: al menos ${minimo.toDecimalPlaces(s.decimales_moneda, 1).toFixed(s.decimales_moneda)} ${s.moneda}.`,
      'monto',
    );
  }

  const calculo = calcularPagos({
    pagos: [
      {
        fecha_pago: s.fecha_pago,
        forma_pago: s.forma_pago,
        moneda: s.moneda,
        decimales_moneda: s.decimales_moneda,
        tipo_cambio: s.tipo_cambio,
        monto: s.monto,
        documentos,
      },
    ],
  });
  if (!calculo.ok) {
    const [v, ...resto] = calculo.violaciones;
    const mas = resto.length ? ` También: ${resto.map((x) => x.mensaje).join(' ')}` : '';
    return rechazo('regla_de_negocio', v!.codigo, `${v!.mensaje}${mas}`, campoDeSolicitud(v!.parametro));
  }

  const f0 = receptor!;
  const cliente = { ...f0.documento.cliente, uso_cfdi: 'CP01' };
  const documento: DocumentoFactura = {
    entrada: {
      tipo: 'P',
      serie: s.serie,
      fecha: e.fecha,
      moneda: 'XXX',
      decimales_moneda: 0,
      exportacion: '01',
      lugar_expedicion: e.emisor.codigo_postal,
      emisor: { rfc: e.emisor.rfc, nombre: e.emisor.nombre, regimen_fiscal: e.emisor.regimen_fiscal },
      receptor: { ...f0.documento.entrada.receptor, uso_cfdi: 'CP01' },
      conceptos: [CONCEPTO_PAGO],
    },
    productos: [null],
    importes: {
      conceptos: [{ ...CONCEPTO_PAGO, importe: '0', traslados: [], retenciones: [] }],
      subtotal: '0',
      traslados: [],
      retenciones: [],
      total: '0',
    },
    cliente,
    huso_horario: e.husoHorario,
    pago: { id: e.pagoId, complemento: calculo.complemento },
  };
  return { ok: true, parcialidades, documento, clienteId: f0.cliente_id };
}
