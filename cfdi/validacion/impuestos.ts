import { d } from '../decimal';
import { cumpleRegla, impuestoDeClave, reglasAplicables } from '../reglas/tasa-o-cuota';
import type { Nodo } from '../xml/nodo';
import { claveTraslado, hijoLocal, hijosLocal, type Contexto } from './contexto';
import { millonesimas, redondear, texto } from './millonesimas';

const R = 'Comprobante.Impuestos';
const SIN_IMPUESTOS = new Set(['T', 'P']);

/**
 * The global Impuestos summary against the concept sums (CFDI40201–40221). Compares only when the
 * currency is known: the sums are rounded to its decimals.
 */
export function reglasImpuestos(ctx: Contexto): void {
  const nodo = ctx.impuestos;
  if (SIN_IMPUESTOS.has(ctx.tipo)) {
    if (nodo) {
      ctx.error(
        'impuestos_globales_no_permitidos',
        `Un comprobante de tipo ${ctx.tipo} no lleva el nodo Impuestos.`,
        R,
        'CFDI40201',
      );
    }
    return;
  }
  if (ctx.decimales === undefined) return;
  reglasRetenciones(ctx, nodo, ctx.decimales);
  reglasTraslados(ctx, nodo, ctx.decimales);
}

function reglasRetenciones(ctx: Contexto, nodo: Nodo | undefined, dec: number): void {
  const sumas = ctx.acumulados.retenciones;
  const grupo = hijoLocal(nodo, 'Retenciones');
  const total = nodo?.atributos.TotalImpuestosRetenidos;
  const filas = hijosLocal(grupo, 'Retencion');

  if (nodo && total !== undefined) {
    ctx.decimalesMoneda(nodo, 'TotalImpuestosRetenidos', R, 'CFDI40202');
    const declarado = ctx.numero(nodo, 'TotalImpuestosRetenidos', R);
    const suma = sumar(filas, 'Importe');
    if (declarado !== undefined && suma !== undefined && declarado !== suma) {
      ctx.error(
        'total_impuestos_no_cuadra',
        `TotalImpuestosRetenidos="${total}" no es la suma de los Importe de las retenciones ` +
          `(${texto(redondear(suma, dec), dec)}).`,
        `${R}.TotalImpuestosRetenidos`,
        'CFDI40203',
      );
    }
  }
  if (grupo && total === undefined) {
    ctx.error(
      'total_impuestos_requerido',
      'Hay retenciones en el resumen de impuestos pero falta TotalImpuestosRetenidos.',
      `${R}.TotalImpuestosRetenidos`,
      'CFDI40206',
    );
  } else if (!grupo && total === undefined && sumas.size > 0) {
    ctx.error(
      'total_impuestos_requerido',
      `Los conceptos retienen impuestos (${[...sumas.keys()].join(', ')}) pero el comprobante no tiene ` +
        'TotalImpuestosRetenidos ni el resumen de retenciones.',
      `${R}.TotalImpuestosRetenidos`,
      'CFDI40209',
    );
  }
  if (!grupo) return;

  const vistos = new Set<string>();
  filas.forEach((f, i) => {
    const ruta = `${R}.Retenciones.Retencion[${i}]`;
    const impuesto = f.atributos.Impuesto ?? '';
    if (!impuestoDeClave(impuesto)) {
      ctx.error(
        'impuesto_invalido',
        `Impuesto="${impuesto}" no existe en el catálogo c_Impuesto (001 ISR, 002 IVA, 003 IEPS).`,
        `${ruta}.Impuesto`,
        'CFDI40207',
      );
    }
    if (vistos.has(impuesto)) {
      ctx.error(
        'resumen_impuesto_duplicado',
        `Hay más de una retención del impuesto ${impuesto} en el resumen; debe haber una por impuesto.`,
        `${ruta}.Impuesto`,
        'CFDI40208',
      );
      return;
    }
    vistos.add(impuesto);
    ctx.decimalesMoneda(f, 'Importe', ruta, 'CFDI40210');
    const importe = ctx.numero(f, 'Importe', ruta);
    const esperado = redondear(sumas.get(impuesto) ?? 0n, dec);
    if (importe !== undefined && importe !== esperado) {
      ctx.error(
        'resumen_impuesto_no_cuadra',
        `Importe="${f.atributos.Importe}" de la retención ${impuesto} no es el redondeo de la suma de los ` +
          `conceptos (${texto(esperado, dec)}).`,
        `${ruta}.Importe`,
        'CFDI40211',
      );
    }
  });
  for (const [impuesto, suma] of sumas) {
    if (vistos.has(impuesto)) continue;
    ctx.error(
      'resumen_impuesto_no_cuadra',
      `Los conceptos retienen ${impuesto} por ${texto(redondear(suma, dec), dec)} y el resumen no tiene ` +
        'esa retención.',
      `${R}.Retenciones`,
      'CFDI40211',
    );
  }
}

function reglasTraslados(ctx: Contexto, nodo: Nodo | undefined, dec: number): void {
  const { traslados: grupos, trasladosNoExentos } = ctx.acumulados;
  const soloExentos = grupos.size > 0 && !trasladosNoExentos;
  const grupo = hijoLocal(nodo, 'Traslados');
  const total = nodo?.atributos.TotalImpuestosTrasladados;
  const filas = hijosLocal(grupo, 'Traslado');

  if (nodo && total !== undefined) {
    ctx.decimalesMoneda(nodo, 'TotalImpuestosTrasladados', R, 'CFDI40204');
    const declarado = ctx.numero(nodo, 'TotalImpuestosTrasladados', R);
    const suma = sumar(filas, 'Importe');
    if (declarado !== undefined && suma !== undefined && declarado !== suma) {
      ctx.error(
        'total_impuestos_no_cuadra',
        `TotalImpuestosTrasladados="${total}" no es la suma de los Importe de los traslados ` +
          `(${texto(redondear(suma, dec), dec)}).`,
        `${R}.TotalImpuestosTrasladados`,
        'CFDI40205',
      );
    }
  }
  if (trasladosNoExentos && total === undefined) {
    ctx.error(
      'total_impuestos_requerido',
      'Hay traslados con TipoFactor Tasa o Cuota pero falta TotalImpuestosTrasladados.',
      `${R}.TotalImpuestosTrasladados`,
      'CFDI40212',
    );
  }
  if (!grupo) {
    if (soloExentos) {
      ctx.error(
        'resumen_impuesto_no_cuadra',
        'Los conceptos tienen traslados exentos y el resumen de impuestos no tiene el de sus bases.',
        `${R}.Traslados`,
        'CFDI40216',
      );
    }
    return;
  }

  const vistos = new Set<string>();
  filas.forEach((f, i) => {
    const ruta = `${R}.Traslados.Traslado[${i}]`;
    const a = f.atributos;
    const impuesto = a.Impuesto ?? '';
    const exento = a.TipoFactor === 'Exento';
    const clave = claveTraslado(impuesto, a.TipoFactor ?? '', exento ? undefined : a.TasaOCuota);
    const nombre = `${impuesto} ${a.TipoFactor ?? ''}${exento || !a.TasaOCuota ? '' : ` ${a.TasaOCuota}`}`;
    if (!impuestoDeClave(impuesto)) {
      ctx.error(
        'impuesto_invalido',
        `Impuesto="${impuesto}" no existe en el catálogo c_Impuesto (002 IVA, 003 IEPS).`,
        `${ruta}.Impuesto`,
        'CFDI40217',
      );
    } else if (
      // An unknown TipoFactor is the XSD's to reject: no catalog column to compare with.
      (a.TipoFactor === 'Tasa' || a.TipoFactor === 'Cuota') &&
      a.TasaOCuota !== undefined &&
      !tasaEnCatalogo(ctx, impuesto, a.TipoFactor ?? '', a.TasaOCuota)
    ) {
      ctx.error(
        'tasa_no_permitida',
        `TasaOCuota="${a.TasaOCuota}" no está en el catálogo c_TasaOCuota para el impuesto ${impuesto} con ` +
          `TipoFactor ${a.TipoFactor ?? '—'} en traslados.`,
        `${ruta}.TasaOCuota`,
        'CFDI40219',
      );
    }
    if (vistos.has(clave)) {
      ctx.error(
        'resumen_impuesto_duplicado',
        `Hay más de un traslado ${nombre} en el resumen; debe haber uno por impuesto, factor y tasa.`,
        `${ruta}.Impuesto`,
        'CFDI40218',
      );
      return;
    }
    vistos.add(clave);
    if (soloExentos && (a.TasaOCuota !== undefined || a.Importe !== undefined)) {
      ctx.error(
        'resumen_exento_con_tasa',
        'Con solo conceptos exentos, el traslado del resumen lleva solo Base, Impuesto y TipoFactor.',
        ruta,
        'CFDI40213',
      );
    }
    ctx.decimalesMoneda(f, 'Base', ruta, 'CFDI40214');
    ctx.decimalesMoneda(f, 'Importe', ruta, 'CFDI40220');
    const g = grupos.get(clave);
    const base = ctx.numero(f, 'Base', ruta);
    const esperadaBase = redondear(g?.base ?? 0n, dec);
    if (base !== undefined && base !== esperadaBase) {
      ctx.error(
        'resumen_impuesto_no_cuadra',
        `Base="${a.Base}" del traslado ${nombre} no es el redondeo de la suma de las bases de los conceptos ` +
          `(${texto(esperadaBase, dec)}).`,
        `${ruta}.Base`,
        soloExentos ? 'CFDI40216' : 'CFDI40215',
      );
    }
    const importe = ctx.numero(f, 'Importe', ruta);
    const esperado = redondear(g?.importe ?? 0n, dec);
    if (importe !== undefined && importe !== esperado && !soloExentos) {
      ctx.error(
        'resumen_impuesto_no_cuadra',
        `Importe="${a.Importe}" del traslado ${nombre} no es el redondeo de la suma de los importes de los ` +
          `conceptos (${texto(esperado, dec)}).`,
        `${ruta}.Importe`,
        'CFDI40221',
      );
    }
  });
  for (const [clave, g] of grupos) {
    if (vistos.has(clave)) continue;
    const [impuesto, factor, tasa] = clave.split('|');
    const exento = factor === 'Exento';
    ctx.error(
      'resumen_impuesto_no_cuadra',
      `Los conceptos trasladan ${impuesto} ${factor}${tasa ? ` ${tasa}` : ''} (base ` +
        `${texto(redondear(g.base, dec), dec)}) y el resumen no tiene ese traslado.`,
      `${R}.Traslados`,
      soloExentos ? 'CFDI40216' : exento ? 'CFDI40215' : 'CFDI40221',
    );
  }
}

/** Σ of an amount over rows; undefined when some row's value is malformed (reported per row). */
function sumar(filas: Nodo[], atributo: string): bigint | undefined {
  let suma = 0n;
  for (const f of filas) {
    const v = f.atributos[atributo];
    if (v === undefined) continue;
    const m = millonesimas(v);
    if (m === undefined) return undefined;
    suma += m;
  }
  return suma;
}

function tasaEnCatalogo(ctx: Contexto, impuesto: string, factor: string, tasa: string): boolean {
  if (millonesimas(tasa) === undefined) return false;
  const valor = d(tasa);
  return reglasAplicables(ctx.catalogos.reglasTasaOCuota(), impuesto, factor, 'traslado').some((r) =>
    cumpleRegla(r, valor),
  );
}
