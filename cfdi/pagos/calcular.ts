import { violacion, type Violacion } from '../reglas/tipos';
import { CERO, dec, Dec, DECIMALES_IMPUESTOS, DECIMALES_TOTALES, redondear, tal, truncar } from './numeros';
import type {
  ComplementoPagosCalculado,
  DocumentoCalculado,
  DocumentoPagadoEntrada,
  EntradaPagos,
  ImpuestoPagoCalculado,
  LineaImpuestoPago,
  PagoCalculado,
  PagoEntrada,
  RetencionPagoCalculada,
  TotalesPagos,
} from './tipos';
import { SAT_LINEA_PAGO, tieneFilas, validarEntradaPagos } from './validar';

export type ResultadoCalculoPagos =
  | { ok: true; complemento: ComplementoPagosCalculado }
  | { ok: false; violaciones: Violacion[] };

/** Attribute of pago20:Totales that each field of TotalesPagos becomes. */
export const ATRIBUTOS_TOTALES: Readonly<Record<keyof TotalesPagos, string>> = {
  total_retenciones_iva: 'TotalRetencionesIVA',
  total_retenciones_isr: 'TotalRetencionesISR',
  total_retenciones_ieps: 'TotalRetencionesIEPS',
  total_traslados_base_iva16: 'TotalTrasladosBaseIVA16',
  total_traslados_impuesto_iva16: 'TotalTrasladosImpuestoIVA16',
  total_traslados_base_iva8: 'TotalTrasladosBaseIVA8',
  total_traslados_impuesto_iva8: 'TotalTrasladosImpuestoIVA8',
  total_traslados_base_iva0: 'TotalTrasladosBaseIVA0',
  total_traslados_impuesto_iva0: 'TotalTrasladosImpuestoIVA0',
  total_traslados_base_iva_exento: 'TotalTrasladosBaseIVAExento',
  monto_total_pagos: 'MontoTotalPagos',
};

/**
 * Every value of the Pagos 2.0 complement for one or more payments. Where it rounds (half up) or truncates:
 * - ImpuestosDR prorated from the invoice: BaseDR = round6(Base × ImpPagado / Total); ImporteDR =
 *   round6(BaseDR × TasaOCuota), from the rounded BaseDR so it stays inside the SAT limits (CRP20254/20261).
 * - ImpuestosP: Σ (DR value as written / EquivalenciaDR) per group, rounded to 6 once, after the sum.
 * - Minimum Monto: Σ (ImpPagado / EquivalenciaDR) truncated to the MonedaP decimals.
 * - Totales: Σ over pagos of (ImpuestosP value as written × TipoCambioP), rounded to 2 once; MontoTotalPagos
 *   = round2(Σ Monto × TipoCambioP).
 * ImpSaldoInsoluto = ImpSaldoAnt − ImpPagado is exact. Nothing goes through a binary float.
 */
export function calcularPagos(entrada: EntradaPagos): ResultadoCalculoPagos {
  const errores = validarEntradaPagos(entrada.pagos);
  if (errores.length > 0) return { ok: false, violaciones: errores };

  const violaciones: Violacion[] = [];
  const pagos = entrada.pagos.map((pago, i) => calcularPago(pago, `pagos[${i}]`, violaciones));
  if (violaciones.length > 0) return { ok: false, violaciones };
  return { ok: true, complemento: { totales: calcularTotales(pagos), pagos } };
}

function calcularPago(pago: PagoEntrada, ruta: string, violaciones: Violacion[]): PagoCalculado {
  const documentos = pago.documentos.map((d, j) =>
    calcularDocumento(d, pago, `${ruta}.documentos[${j}]`, violaciones),
  );

  // ImpPagado is in MonedaDR; EquivalenciaDR converts it to MonedaP. Truncated, so the minimum never exceeds the sum.
  const suma = documentos.reduce((s, d) => s.plus(dec(d.imp_pagado).div(d.equivalencia)), CERO);
  const montoMinimo = truncar(suma, pago.decimales_moneda);
  const montoDado = pago.monto ?? undefined;
  const monto = montoDado === undefined ? montoMinimo : dec(montoDado).toFixed(pago.decimales_moneda);
  if (dec(monto).lessThan(montoMinimo)) {
    violaciones.push(
      violacion(
        'monto_insuficiente',
        `El monto del pago (${monto} ${pago.moneda}) es menor que la suma de los importes pagados convertidos ` +
          `a la moneda del pago (mínimo ${montoMinimo}).`,
        `${ruta}.monto`,
        'CRP20217',
      ),
    );
  }

  const impuestos = impuestosDelPago(documentos);
  return {
    fecha_pago: pago.fecha_pago.length === 10 ? `${pago.fecha_pago}T12:00:00` : pago.fecha_pago,
    forma_pago: pago.forma_pago,
    moneda: pago.moneda,
    tipo_cambio: pago.moneda === 'MXN' ? '1' : tal(dec(pago.tipo_cambio!)),
    monto,
    monto_minimo: montoMinimo,
    documentos,
    ...(impuestos ? { impuestos } : {}),
  };
}

function calcularDocumento(
  documento: DocumentoPagadoEntrada,
  pago: PagoEntrada,
  ruta: string,
  violaciones: Violacion[],
): DocumentoCalculado {
  const decimales = documento.decimales_moneda;
  const saldoAnterior = dec(documento.imp_saldo_anterior);
  const pagado = dec(documento.imp_pagado);
  // CRP20238: equal currencies are written "1", whatever decimals the caller used.
  const equivalencia = documento.moneda === pago.moneda ? '1' : tal(dec(documento.equivalencia!));

  let impuestos: DocumentoCalculado['impuestos'];
  if (documento.impuestos_dr && tieneFilas(documento.impuestos_dr)) {
    impuestos = {
      traslados: (documento.impuestos_dr.traslados ?? []).map(filaDada),
      retenciones: (documento.impuestos_dr.retenciones ?? []).map(filaDada),
    };
  } else if (documento.impuestos_factura && tieneFilas(documento.impuestos_factura)) {
    impuestos = prorratear(documento, ruta, violaciones);
  }

  return {
    uuid: documento.uuid,
    ...(documento.serie ? { serie: documento.serie } : {}),
    ...(documento.folio ? { folio: documento.folio } : {}),
    moneda: documento.moneda,
    equivalencia,
    num_parcialidad: String(documento.num_parcialidad),
    imp_saldo_anterior: saldoAnterior.toFixed(decimales),
    imp_pagado: pagado.toFixed(decimales),
    imp_saldo_insoluto: saldoAnterior.minus(pagado).toFixed(decimales),
    objeto_imp: documento.objeto_imp,
    ...(impuestos ? { impuestos } : {}),
  };
}

const tasa6 = (tasa: string) => dec(tasa).toFixed(DECIMALES_IMPUESTOS);

/** An already prorated row: kept as given, written with 6 decimals. */
function filaDada(linea: LineaImpuestoPago): ImpuestoPagoCalculado {
  const base = redondear(dec(linea.base), DECIMALES_IMPUESTOS);
  if (linea.tipo_factor === 'Exento') return { base, impuesto: linea.impuesto, tipo_factor: 'Exento' };
  return {
    base,
    impuesto: linea.impuesto,
    tipo_factor: linea.tipo_factor,
    tasa_o_cuota: tasa6(linea.tasa_o_cuota!),
    importe: redondear(dec(linea.importe!), DECIMALES_IMPUESTOS),
  };
}

/** The invoice's taxes in proportion ImpPagado / Total, one row per impuesto/tipo_factor/tasa. */
function prorratear(
  documento: DocumentoPagadoEntrada,
  ruta: string,
  violaciones: Violacion[],
): NonNullable<DocumentoCalculado['impuestos']> {
  const pagado = dec(documento.imp_pagado);
  const total = dec(documento.total_factura!);

  const filas = (
    lineas: readonly LineaImpuestoPago[] | null | undefined,
    clase: 'traslados' | 'retenciones',
  ) => {
    // Rows that repeat a key (e.g. one per concept) add up: the DR carries one row per key.
    const grupos = new Map<string, { linea: LineaImpuestoPago; base: Dec }>();
    for (const linea of lineas ?? []) {
      const clave = claveTraslado(linea.impuesto, linea.tipo_factor, linea.tasa_o_cuota);
      const g = grupos.get(clave);
      if (g) g.base = g.base.plus(linea.base);
      else grupos.set(clave, { linea, base: dec(linea.base) });
    }
    return [...grupos.values()].map(({ linea, base }, i): ImpuestoPagoCalculado => {
      // Multiply before dividing: one inexact operation instead of two.
      const baseDR = redondear(base.times(pagado).div(total), DECIMALES_IMPUESTOS);
      if (dec(baseDR).isZero()) {
        violaciones.push(
          violacion(
            'base_dr_cero',
            'El pago es tan pequeño que la base prorrateada del impuesto queda en cero (debe ser mayor que cero).',
            `${ruta}.impuestos_factura.${clase}[${i}].base`,
            SAT_LINEA_PAGO[clase === 'traslados' ? 'traslado' : 'retencion'].base,
          ),
        );
      }
      if (linea.tipo_factor === 'Exento')
        return { base: baseDR, impuesto: linea.impuesto, tipo_factor: 'Exento' };
      const tasa = tasa6(linea.tasa_o_cuota!);
      return {
        base: baseDR,
        impuesto: linea.impuesto,
        tipo_factor: linea.tipo_factor,
        tasa_o_cuota: tasa,
        importe: redondear(dec(baseDR).times(tasa), DECIMALES_IMPUESTOS),
      };
    });
  };

  return {
    traslados: filas(documento.impuestos_factura?.traslados, 'traslados'),
    retenciones: filas(documento.impuestos_factura?.retenciones, 'retenciones'),
  };
}

function claveTraslado(impuesto: string, tipoFactor: string, tasa: string | null | undefined): string {
  return `${impuesto}|${tipoFactor}|${tasa === null || tasa === undefined ? '' : tasa6(tasa)}`;
}

/** ImpuestosP: traslados per impuesto/tipo_factor/tasa, retenciones per impuesto, in MonedaP. */
function impuestosDelPago(documentos: readonly DocumentoCalculado[]): PagoCalculado['impuestos'] {
  const traslados = new Map<string, { fila: ImpuestoPagoCalculado; base: Dec; importe: Dec | undefined }>();
  const retenciones = new Map<string, Dec>();
  let hay = false;

  for (const documento of documentos) {
    if (!documento.impuestos) continue;
    hay = true;
    const equivalencia = dec(documento.equivalencia);
    for (const t of documento.impuestos.traslados) {
      const clave = claveTraslado(t.impuesto, t.tipo_factor, t.tasa_o_cuota);
      const g = traslados.get(clave) ?? {
        fila: t,
        base: CERO,
        importe: t.importe === undefined ? undefined : CERO,
      };
      g.base = g.base.plus(dec(t.base).div(equivalencia));
      if (g.importe && t.importe !== undefined) g.importe = g.importe.plus(dec(t.importe).div(equivalencia));
      traslados.set(clave, g);
    }
    for (const r of documento.impuestos.retenciones) {
      retenciones.set(
        r.impuesto,
        (retenciones.get(r.impuesto) ?? CERO).plus(dec(r.importe!).div(equivalencia)),
      );
    }
  }
  if (!hay) return undefined;

  // Rounded once per group, after the sum: rounding each document first drifts (case 004 of the test vectors).
  const filasTraslado = [...traslados.values()].map(
    ({ fila, base, importe }): ImpuestoPagoCalculado => ({
      base: redondear(base, DECIMALES_IMPUESTOS),
      impuesto: fila.impuesto,
      tipo_factor: fila.tipo_factor,
      ...(fila.tasa_o_cuota !== undefined ? { tasa_o_cuota: fila.tasa_o_cuota } : {}),
      ...(importe ? { importe: redondear(importe, DECIMALES_IMPUESTOS) } : {}),
    }),
  );
  const filasRetencion = [...retenciones.entries()].map(
    ([impuesto, importe]): RetencionPagoCalculada => ({
      impuesto,
      importe: redondear(importe, DECIMALES_IMPUESTOS),
    }),
  );
  return { traslados: filasTraslado, retenciones: filasRetencion };
}

const IVA = '002';
const TASAS_TOTALES: ReadonlyArray<[Dec, 'iva16' | 'iva8' | 'iva0']> = [
  [dec('0.16'), 'iva16'],
  [dec('0.08'), 'iva8'],
  [dec('0'), 'iva0'],
];
const RETENCIONES_TOTALES: Readonly<Record<string, 'iva' | 'isr' | 'ieps'>> = {
  '001': 'isr',
  '002': 'iva',
  '003': 'ieps',
};

/**
 * Totales in MXN: each Pago's ImpuestosP as written times its TipoCambioP, added over every Pago and rounded
 * to 2 once (the wording of CRP20210/20211). IEPS traslados and IVA at other rates have no Totales field.
 */
function calcularTotales(pagos: readonly PagoCalculado[]): TotalesPagos {
  const sumas = new Map<keyof TotalesPagos, Dec>();
  const sumar = (campo: keyof TotalesPagos, valor: Dec) =>
    sumas.set(campo, (sumas.get(campo) ?? CERO).plus(valor));

  let montoTotal = CERO;
  for (const pago of pagos) {
    const tipoCambio = dec(pago.tipo_cambio);
    montoTotal = montoTotal.plus(dec(pago.monto).times(tipoCambio));
    for (const r of pago.impuestos?.retenciones ?? []) {
      const nombre = RETENCIONES_TOTALES[r.impuesto];
      if (nombre) sumar(`total_retenciones_${nombre}`, dec(r.importe).times(tipoCambio));
    }
    for (const t of pago.impuestos?.traslados ?? []) {
      if (t.impuesto !== IVA) continue;
      if (t.tipo_factor === 'Exento') {
        sumar('total_traslados_base_iva_exento', dec(t.base).times(tipoCambio));
        continue;
      }
      if (t.tipo_factor !== 'Tasa' || t.tasa_o_cuota === undefined) continue;
      const tasa = dec(t.tasa_o_cuota);
      const nombre = TASAS_TOTALES.find(([valor]) => valor.equals(tasa))?.[1];
      if (!nombre) continue;
      sumar(`total_traslados_base_${nombre}`, dec(t.base).times(tipoCambio));
      sumar(`total_traslados_impuesto_${nombre}`, dec(t.importe ?? 0).times(tipoCambio));
    }
  }

  const totales: TotalesPagos = { monto_total_pagos: redondear(montoTotal, DECIMALES_TOTALES) };
  for (const [campo, suma] of sumas) totales[campo] = redondear(suma, DECIMALES_TOTALES);
  return totales;
}
