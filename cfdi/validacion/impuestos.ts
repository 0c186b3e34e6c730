import { d } from '../decimal';
import { cumpleRegla, impuestoDeClave, reglasAplicables } from '../reglas/tasa-o-cuota';
import type { Nodo } from '../xml/nodo';
import { claveTraslado, hijoLocal, hijosLocal, type Contexto } from './contexto';
import { millonesimas, redondear, texto } from './millonesimas';

const R = 'Comprobante.Impuestos';
const SIN_IMPUESTOS = new Set(['T', 'P']);

/** What the retenciones and traslados halves of the summary check alike, each with its own names and codes. */
interface Resumen {
  total: string;
  grupo: string;
  fila: string;
  /** Whose Importe the total adds up, for messages. */
  deLasFilas: string;
  /** The c_Impuesto codes the message lists. */
  impuestos: string;
  sat: { decimalesTotal: string; sumaTotal: string; impuesto: string; duplicado: string };
}

const RETENCIONES: Resumen = {
  total: 'TotalImpuestosRetenidos',
  grupo: 'Retenciones',
  fila: 'Retencion',
  deLasFilas: 'de las retenciones',
  impuestos: '001 ISR, 002 IVA, 003 IEPS',
  sat: { decimalesTotal: 'CFDI40202', sumaTotal: 'CFDI40203', impuesto: 'CFDI40207', duplicado: 'CFDI40208' },
};

const TRASLADOS: Resumen = {
  total: 'TotalImpuestosTrasladados',
  grupo: 'Traslados',
  fila: 'Traslado',
  deLasFilas: 'de los traslados',
  impuestos: '002 IVA, 003 IEPS',
  sat: { decimalesTotal: 'CFDI40204', sumaTotal: 'CFDI40205', impuesto: 'CFDI40217', duplicado: 'CFDI40218' },
};

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
  const { grupo, filas, total } = leerResumen(ctx, nodo, RETENCIONES, dec);
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
    reglaImpuesto(ctx, impuesto, ruta, RETENCIONES);
    const repetida = `Hay más de una retención del impuesto ${impuesto} en el resumen; debe haber una por impuesto.`;
    if (!primeraVez(ctx, vistos, impuesto, repetida, ruta, RETENCIONES)) return;
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
  const { grupo, filas, total } = leerResumen(ctx, nodo, TRASLADOS, dec);
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
    const conocido = reglaImpuesto(ctx, impuesto, ruta, TRASLADOS);
    if (
      conocido &&
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
    const repetido = `Hay más de un traslado ${nombre} en el resumen; debe haber uno por impuesto, factor y tasa.`;
    if (!primeraVez(ctx, vistos, clave, repetido, ruta, TRASLADOS)) return;
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

/** The summary's group and rows, with its total checked against their sum (CFDI40202–40205). */
function leerResumen(ctx: Contexto, nodo: Nodo | undefined, r: Resumen, dec: number) {
  const grupo = hijoLocal(nodo, r.grupo);
  const total = nodo?.atributos[r.total];
  const filas = hijosLocal(grupo, r.fila);
  if (nodo && total !== undefined) {
    ctx.decimalesMoneda(nodo, r.total, R, r.sat.decimalesTotal);
    const declarado = ctx.numero(nodo, r.total, R);
    const suma = sumar(filas, 'Importe');
    if (declarado !== undefined && suma !== undefined && declarado !== suma) {
      ctx.error(
        'total_impuestos_no_cuadra',
        `${r.total}="${total}" no es la suma de los Importe ${r.deLasFilas} ` +
          `(${texto(redondear(suma, dec), dec)}).`,
        `${R}.${r.total}`,
        r.sat.sumaTotal,
      );
    }
  }
  return { grupo, filas, total };
}

/** Reports an Impuesto outside c_Impuesto; true when it is in it. */
function reglaImpuesto(ctx: Contexto, impuesto: string, ruta: string, r: Resumen): boolean {
  if (impuestoDeClave(impuesto)) return true;
  ctx.error(
    'impuesto_invalido',
    `Impuesto="${impuesto}" no existe en el catálogo c_Impuesto (${r.impuestos}).`,
    `${ruta}.Impuesto`,
    r.sat.impuesto,
  );
  return false;
}

/** One summary row per key: reports a repeated one (checked no further) and remembers the rest. */
function primeraVez(
  ctx: Contexto,
  vistos: Set<string>,
  clave: string,
  mensaje: string,
  ruta: string,
  r: Resumen,
): boolean {
  if (vistos.has(clave)) {
    ctx.error('resumen_impuesto_duplicado', mensaje, `${ruta}.Impuesto`, r.sat.duplicado);
    return false;
  }
  vistos.add(clave);
  return true;
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
