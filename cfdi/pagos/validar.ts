import { decimalesDe, esDecimal } from '../decimal';
import {
  validarLineaImpuesto,
  type CodigosSatLinea,
  type PerfilLineaImpuesto,
} from '../reglas/linea-impuesto';
import type { ClaseImpuesto } from '../reglas/tasa-o-cuota';
import { violacion, type Violacion } from '../reglas/tipos';
import { dec } from './numeros';
import type { DesgloseImpuestosPago, DocumentoPagadoEntrada, PagoEntrada } from './tipos';

// Codes of the Pagos 2.0 error matrix (CRP20xxx) are given only where a PAC's answer confirms them; checks that
// come from the XSD alone (patterns, ranges) carry no `sat`.

const PATRON_FECHA = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d:[0-5]\d)?$/;
const PATRON_UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const PATRON_MONEDA = /^[A-Z]{3}$/;
const OBJETOS_IMP = /^0[1-8]$/;
/** ObjetoImpDR for which ImpuestosDR must not exist (CRP20247). */
export const OBJETOS_SIN_IMPUESTOS = ['01', '03', '04', '05'];
/** EquivalenciaDR allows 10 decimals, TipoCambioP 6 (Pagos20.xsd). */
const DECIMALES_EQUIVALENCIA = 10;
const DECIMALES_TIPO_CAMBIO = 6;

/** Pagos 2.0 codes of an ImpuestosDR row (the CRP20 matrix has no code for a bad or missing rate). */
export const SAT_LINEA_PAGO: Readonly<Record<ClaseImpuesto, CodigosSatLinea>> = {
  retencion: { base: 'CRP20249', impuesto: 'CRP20250', factor: 'CRP20251', exento: 'CRP20252' },
  traslado: { base: 'CRP20255', impuesto: 'CRP20256', factor: 'CRP20257', exento: 'CRP20258' },
};

/** Every locally checkable error of the input, before anything is computed (Monto ≥ minimum comes later). */
export function validarEntradaPagos(pagos: readonly PagoEntrada[]): Violacion[] {
  if (pagos.length === 0) {
    return [violacion('pagos_requeridos', 'Se requiere al menos un pago.', 'pagos')];
  }
  return pagos.flatMap((pago, i) => validarPago(pago, `pagos[${i}]`));
}

function validarPago(pago: PagoEntrada, ruta: string): Violacion[] {
  const errores: Violacion[] = [];
  exigirDecimalesMoneda(pago.decimales_moneda, `${ruta}.decimales_moneda`);

  if (!PATRON_FECHA.test(pago.fecha_pago)) {
    errores.push(
      violacion(
        'fecha_pago_invalida',
        `La fecha de pago "${pago.fecha_pago}" no es válida: debe ser la hora local del lugar de expedición ` +
          'con el formato AAAA-MM-DDThh:mm:ss, o solo la fecha AAAA-MM-DD.',
        `${ruta}.fecha_pago`,
      ),
    );
  }

  if (pago.forma_pago === '99') {
    errores.push(
      violacion(
        'forma_pago_no_permitida',
        'La forma de pago de un pago no puede ser 99 (Por definir): debe ser la forma en que se recibió el pago.',
        `${ruta}.forma_pago`,
        'CRP20212',
      ),
    );
  } else if (!/^\d{2}$/.test(pago.forma_pago)) {
    errores.push(
      violacion(
        'forma_pago_invalida',
        `La forma de pago "${pago.forma_pago}" no es válida: debe ser una clave de dos dígitos del catálogo c_FormaPago.`,
        `${ruta}.forma_pago`,
      ),
    );
  }

  errores.push(...validarMoneda(pago.moneda, `${ruta}.moneda`, 'CRP20213', 'del pago'));
  errores.push(...validarTipoCambio(pago, ruta));
  errores.push(...validarMonto(pago, ruta));

  if (pago.documentos.length === 0) {
    errores.push(
      violacion(
        'documentos_requeridos',
        'Un pago debe relacionar al menos un documento (factura pagada).',
        `${ruta}.documentos`,
      ),
    );
  }
  pago.documentos.forEach((documento, j) =>
    errores.push(...validarDocumento(documento, pago, `${ruta}.documentos[${j}]`)),
  );
  return errores;
}

/** decimales_moneda comes from c_Moneda, never from a person: a bad value is a programming error. */
function exigirDecimalesMoneda(decimales: number, ruta: string): void {
  if (!Number.isInteger(decimales) || decimales < 0 || decimales > 6) {
    throw new Error(`${ruta} debe ser un entero de 0 a 6 (columna decimales de c_Moneda): ${decimales}`);
  }
}

function validarMoneda(moneda: string, ruta: string, sat: string, de: string): Violacion[] {
  if (moneda === 'XXX') {
    return [
      violacion(
        'moneda_no_permitida',
        `La moneda ${de} no puede ser XXX (sin moneda): un pago siempre se hace en una moneda.`,
        ruta,
        sat,
      ),
    ];
  }
  if (!PATRON_MONEDA.test(moneda)) {
    return [
      violacion(
        'moneda_invalida',
        `La moneda "${moneda}" no es válida: debe ser una clave de tres letras del catálogo c_Moneda.`,
        ruta,
      ),
    ];
  }
  return [];
}

function validarTipoCambio(pago: PagoEntrada, ruta: string): Violacion[] {
  const tipoCambio = pago.tipo_cambio ?? undefined;
  const parametro = `${ruta}.tipo_cambio`;
  if (tipoCambio === undefined) {
    if (pago.moneda === 'MXN' || pago.moneda === 'XXX') return [];
    return [
      violacion(
        'tipo_cambio_requerido',
        `Se requiere el tipo de cambio del pago en ${pago.moneda}: pesos mexicanos por una unidad de esa moneda.`,
        parametro,
        'CRP20214',
      ),
    ];
  }
  if (!esDecimal(tipoCambio, DECIMALES_TIPO_CAMBIO) || dec(tipoCambio).isZero()) {
    return [
      violacion(
        'tipo_cambio_invalido',
        `El tipo de cambio "${tipoCambio}" no es válido: debe ser un número mayor que cero con hasta 6 decimales.`,
        parametro,
      ),
    ];
  }
  if (pago.moneda === 'MXN' && !dec(tipoCambio).equals(1)) {
    return [
      violacion(
        'tipo_cambio_invalido',
        'Con moneda MXN el tipo de cambio del pago debe ser 1 (o omitirse).',
        parametro,
        'CRP20215',
      ),
    ];
  }
  // MontoTotalPagos is Monto × TipoCambioP in MXN with 2 decimals, an Importe of up to 18 integer digits: a
  // payment worth less than a cent, or more than that, comes from a mistyped rate.
  const monto = pago.monto ?? undefined;
  if (monto !== undefined && esDecimal(monto, Number.MAX_SAFE_INTEGER) && !dec(monto).isZero()) {
    const pesos = dec(monto).times(tipoCambio);
    if (pesos.lessThan('0.01') || pesos.greaterThanOrEqualTo('1e18')) {
      return [
        violacion(
          'tipo_cambio_fuera_de_rango',
          `Con el tipo de cambio ${tipoCambio}, el monto ${monto} ${pago.moneda} vale ${pesos.toFixed()} MXN, ` +
            'fuera de lo que admite el total de pagos (de 0.01 a 18 dígitos enteros): revise el tipo de cambio ' +
            `(pesos por 1 ${pago.moneda}).`,
          parametro,
        ),
      ];
    }
  }
  return [];
}

function validarMonto(pago: PagoEntrada, ruta: string): Violacion[] {
  const monto = pago.monto ?? undefined;
  if (monto === undefined) return [];
  const parametro = `${ruta}.monto`;
  if (!esDecimal(monto, Number.MAX_SAFE_INTEGER)) {
    return [
      violacion(
        'monto_invalido',
        `El monto "${monto}" no es válido: debe ser un número decimal no negativo escrito como texto.`,
        parametro,
      ),
    ];
  }
  if (dec(monto).isZero()) {
    return [violacion('monto_invalido', 'El monto del pago debe ser mayor que cero.', parametro, 'CRP20218')];
  }
  if (decimalesDe(monto) > pago.decimales_moneda) {
    return [
      decimalesExcedidos(
        'El monto del pago',
        monto,
        pago.moneda,
        pago.decimales_moneda,
        parametro,
        'CRP20219',
      ),
    ];
  }
  return [];
}

function decimalesExcedidos(
  que: string,
  valor: string,
  moneda: string,
  decimales: number,
  parametro: string,
  sat: string,
): Violacion {
  return violacion(
    'decimales_excedidos',
    `${que} "${valor}" tiene más decimales de los que admite la moneda ${moneda} (${decimales}).`,
    parametro,
    sat,
  );
}

function validarDocumento(documento: DocumentoPagadoEntrada, pago: PagoEntrada, ruta: string): Violacion[] {
  const errores: Violacion[] = [];
  exigirDecimalesMoneda(documento.decimales_moneda, `${ruta}.decimales_moneda`);

  if (!PATRON_UUID.test(documento.uuid)) {
    errores.push(
      violacion(
        'id_documento_invalido',
        `El UUID "${documento.uuid}" de la factura pagada no es válido.`,
        `${ruta}.uuid`,
      ),
    );
  }

  const errorMoneda = validarMoneda(documento.moneda, `${ruta}.moneda`, 'CRP20236', 'de la factura pagada');
  errores.push(...errorMoneda);
  if (errorMoneda.length === 0) errores.push(...validarEquivalencia(documento, pago, ruta));

  const n = documento.num_parcialidad;
  if (!Number.isInteger(n) || n < 1 || n > 999) {
    errores.push(
      violacion(
        'num_parcialidad_invalida',
        `El número de parcialidad ${n} no es válido: debe ser un entero de 1 a 999.`,
        `${ruta}.num_parcialidad`,
      ),
    );
  }

  const saldoValido = validarImporteDocumento(documento, 'imp_saldo_anterior', ruta, errores);
  const pagadoValido = validarImporteDocumento(documento, 'imp_pagado', ruta, errores);
  if (saldoValido && pagadoValido && dec(documento.imp_pagado).greaterThan(documento.imp_saldo_anterior)) {
    errores.push(
      violacion(
        'imp_pagado_excede_saldo',
        `El importe pagado (${documento.imp_pagado}) es mayor que el saldo anterior de la factura ` +
          `(${documento.imp_saldo_anterior}): el saldo insoluto no puede ser negativo.`,
        `${ruta}.imp_pagado`,
        'CRP20244',
      ),
    );
  }

  errores.push(...validarObjetoEImpuestos(documento, ruta, saldoValido));
  return errores;
}

function validarEquivalencia(
  documento: DocumentoPagadoEntrada,
  pago: PagoEntrada,
  ruta: string,
): Violacion[] {
  const equivalencia = documento.equivalencia ?? undefined;
  const parametro = `${ruta}.equivalencia`;
  if (equivalencia === undefined) {
    if (documento.moneda === pago.moneda) return [];
    return [
      violacion(
        'equivalencia_requerida',
        `La factura está en ${documento.moneda} y el pago en ${pago.moneda}: se requiere la equivalencia ` +
          `(unidades de ${documento.moneda} por 1 ${pago.moneda}).`,
        parametro,
        'CRP20237',
      ),
    ];
  }
  if (!esDecimal(equivalencia, DECIMALES_EQUIVALENCIA) || dec(equivalencia).isZero()) {
    return [
      violacion(
        'equivalencia_invalida',
        `La equivalencia "${equivalencia}" no es válida: debe ser un número mayor que cero con hasta 10 decimales.`,
        parametro,
      ),
    ];
  }
  if (documento.moneda === pago.moneda && !dec(equivalencia).equals(1)) {
    return [
      violacion(
        'equivalencia_invalida',
        'La factura y el pago están en la misma moneda: la equivalencia debe ser 1 (o omitirse).',
        parametro,
        'CRP20238',
      ),
    ];
  }
  return validarEquivalenciaCoherente(documento, pago, equivalencia, parametro);
}

/**
 * EquivalenciaDR is MonedaDR per 1 MonedaP. For an invoice in MXN that is the payment's TipoCambioP (MXN per 1
 * MonedaP), up to roundings: ImpPagado converted with either must give the same amount of MonedaP within one
 * unit of its last decimal (an EquivalenciaDR taken as ImpPagado / Monto carries Monto's rounding). For any
 * invoice, what is paid of it must be worth at least that unit once converted (ImpPagado / EquivalenciaDR, the
 * SAT's minimum Monto): an equivalence so large that a payment of the invoice is worth nothing is a typo.
 */
function validarEquivalenciaCoherente(
  documento: DocumentoPagadoEntrada,
  pago: PagoEntrada,
  equivalencia: string,
  parametro: string,
): Violacion[] {
  if (!esDecimal(documento.imp_pagado, documento.decimales_moneda) || dec(documento.imp_pagado).isZero()) {
    return [];
  }
  const unidad = dec(10).pow(-pago.decimales_moneda);
  const convertido = dec(documento.imp_pagado).div(equivalencia);
  const tipoCambio = pago.tipo_cambio ?? undefined;
  if (
    documento.moneda === 'MXN' &&
    tipoCambio !== undefined &&
    esDecimal(tipoCambio, DECIMALES_TIPO_CAMBIO) &&
    !dec(tipoCambio).isZero() &&
    convertido.minus(dec(documento.imp_pagado).div(tipoCambio)).abs().greaterThan(unidad)
  ) {
    return [
      violacion(
        'equivalencia_incoherente',
        `La factura está en MXN: su equivalencia (pesos por 1 ${pago.moneda}) debe ser el tipo de cambio del ` +
          `pago, ${tipoCambio}, no ${equivalencia} (con ella ${documento.imp_pagado} MXN serían ` +
          `${convertido.toDecimalPlaces(pago.decimales_moneda, 1).toFixed()} ${pago.moneda}).`,
        parametro,
      ),
    ];
  }
  if (convertido.lessThan(unidad)) {
    return [
      violacion(
        'equivalencia_fuera_de_rango',
        `Con la equivalencia ${equivalencia}, el importe pagado ${documento.imp_pagado} ${documento.moneda} vale ` +
          `menos que la unidad mínima de ${pago.moneda} (${unidad.toFixed()}): ` +
          `revise la equivalencia (unidades de ${documento.moneda} por 1 ${pago.moneda}).`,
        parametro,
      ),
    ];
  }
  return [];
}

const SAT_IMPORTES = {
  imp_saldo_anterior: { positivo: 'CRP20239', decimales: 'CRP20240', nombre: 'El saldo anterior' },
  imp_pagado: { positivo: 'CRP20241', decimales: 'CRP20242', nombre: 'El importe pagado' },
} as const;

/** Adds the errors of imp_saldo_anterior or imp_pagado; true when the value can be used in comparisons. */
function validarImporteDocumento(
  documento: DocumentoPagadoEntrada,
  campo: keyof typeof SAT_IMPORTES,
  ruta: string,
  errores: Violacion[],
): boolean {
  const valor = documento[campo];
  const { positivo, decimales, nombre } = SAT_IMPORTES[campo];
  const parametro = `${ruta}.${campo}`;
  if (!esDecimal(valor, Number.MAX_SAFE_INTEGER)) {
    errores.push(
      violacion(
        `${campo}_invalido`,
        `${nombre} "${valor}" no es válido: debe ser un número decimal no negativo escrito como texto.`,
        parametro,
      ),
    );
    return false;
  }
  if (dec(valor).isZero()) {
    errores.push(violacion(`${campo}_invalido`, `${nombre} debe ser mayor que cero.`, parametro, positivo));
    return false;
  }
  if (decimalesDe(valor) > documento.decimales_moneda) {
    errores.push(
      decimalesExcedidos(nombre, valor, documento.moneda, documento.decimales_moneda, parametro, decimales),
    );
  }
  return true;
}

/** The breakdown has at least one traslado or retención. */
export function tieneFilas(desglose: DesgloseImpuestosPago | null | undefined): boolean {
  return (desglose?.traslados?.length ?? 0) + (desglose?.retenciones?.length ?? 0) > 0;
}

function validarObjetoEImpuestos(
  documento: DocumentoPagadoEntrada,
  ruta: string,
  saldoValido: boolean,
): Violacion[] {
  const errores: Violacion[] = [];
  const objeto = documento.objeto_imp;
  const deFactura = tieneFilas(documento.impuestos_factura);
  const prorrateados = tieneFilas(documento.impuestos_dr);

  if (!OBJETOS_IMP.test(objeto)) {
    errores.push(
      violacion(
        'objeto_imp_invalido',
        `El objeto de impuesto "${objeto}" no existe en el catálogo c_ObjetoImp (01 a 08).`,
        `${ruta}.objeto_imp`,
        'CRP20245',
      ),
    );
  } else if (objeto === '02' && !deFactura && !prorrateados) {
    errores.push(
      violacion(
        'impuestos_requeridos',
        'Con objeto de impuesto 02 se requieren los impuestos de la factura (impuestos_factura con total_factura) ' +
          'para prorratearlos al pago.',
        `${ruta}.impuestos_factura`,
        'CRP20246',
      ),
    );
  } else if (OBJETOS_SIN_IMPUESTOS.includes(objeto) && (deFactura || prorrateados)) {
    errores.push(
      violacion(
        'impuestos_no_permitidos',
        `Con objeto de impuesto ${objeto} el documento relacionado no lleva impuestos.`,
        `${ruta}.${deFactura ? 'impuestos_factura' : 'impuestos_dr'}`,
        'CRP20247',
      ),
    );
  }

  if (deFactura && prorrateados) {
    errores.push(
      violacion(
        'impuestos_ambiguos',
        'Indique los impuestos de la factura (impuestos_factura) o los ya prorrateados (impuestos_dr), no ambos.',
        `${ruta}.impuestos_dr`,
      ),
    );
  }

  if (deFactura) errores.push(...validarTotalFactura(documento, ruta, saldoValido));
  if (deFactura)
    errores.push(...validarDesglose(documento.impuestos_factura, `${ruta}.impuestos_factura`, false));
  if (prorrateados) errores.push(...validarDesglose(documento.impuestos_dr, `${ruta}.impuestos_dr`, true));
  return errores;
}

function validarTotalFactura(
  documento: DocumentoPagadoEntrada,
  ruta: string,
  saldoValido: boolean,
): Violacion[] {
  const total = documento.total_factura ?? undefined;
  const parametro = `${ruta}.total_factura`;
  if (total === undefined) {
    return [
      violacion(
        'total_factura_requerido',
        'Para prorratear los impuestos de la factura se requiere su total (total_factura).',
        parametro,
      ),
    ];
  }
  if (!esDecimal(total, Number.MAX_SAFE_INTEGER) || dec(total).isZero()) {
    return [
      violacion(
        'total_factura_invalido',
        `El total de la factura "${total}" no es válido: debe ser un número decimal mayor que cero.`,
        parametro,
      ),
    ];
  }
  if (saldoValido && dec(documento.imp_saldo_anterior).greaterThan(total)) {
    return [
      violacion(
        'saldo_anterior_excede_total',
        `El saldo anterior (${documento.imp_saldo_anterior}) es mayor que el total de la factura (${total}).`,
        `${ruta}.imp_saldo_anterior`,
      ),
    ];
  }
  return [];
}

function validarDesglose(
  desglose: DesgloseImpuestosPago | null | undefined,
  ruta: string,
  conImporte: boolean,
): Violacion[] {
  const errores: Violacion[] = [];
  // The calculator is given no catalogs: rates are checked for their form only.
  const perfil: PerfilLineaImpuesto = {
    sat: SAT_LINEA_PAGO,
    decimalesTasa: 'hasta6',
    montos: { importeRequerido: conImporte },
  };
  (desglose?.traslados ?? []).forEach((linea, i) =>
    errores.push(...validarLineaImpuesto(linea, 'traslado', `${ruta}.traslados[${i}]`, perfil)),
  );
  (desglose?.retenciones ?? []).forEach((linea, i) =>
    errores.push(...validarLineaImpuesto(linea, 'retencion', `${ruta}.retenciones[${i}]`, perfil)),
  );
  return errores;
}
