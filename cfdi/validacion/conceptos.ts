import { decimalesDe } from '../decimal';
import { validarClaveProdServ, validarClaveUnidad } from '../reglas/claves';
import { validarImpuestos, type LineaImpuesto } from '../reglas/impuestos';
import type { Violacion } from '../reglas/tipos';
import type { Nodo } from '../xml/nodo';
import { claveTraslado, hijoLocal, hijosLocal, type Contexto } from './contexto';
import { fueraDeLimites, millonesimas, type Valor } from './millonesimas';

/** Types whose concepts must have a price (CFDI40166). */
const CON_VALOR_UNITARIO = new Set(['I', 'E', 'N']);

/** The rules a concept and one of its parts share, each with its own codes and wording. */
interface ReglasRenglon {
  sat: { claveProdServ: string; limites: string; aduana: string; valorUnitario: string };
  /** Why a ValorUnitario of zero is wrong here; undefined when it is allowed. */
  valorUnitarioCero: (ctx: Contexto, valor: string) => string | undefined;
}

const CONCEPTO: ReglasRenglon = {
  sat: { claveProdServ: 'CFDI40162', valorUnitario: 'CFDI40166', limites: 'CFDI40167', aduana: 'CFDI40195' },
  valorUnitarioCero: (ctx, valor) =>
    CON_VALOR_UNITARIO.has(ctx.tipo)
      ? `ValorUnitario="${valor}": en un comprobante de tipo ${ctx.tipo} debe ser mayor que cero.`
      : undefined,
};

const PARTE: ReglasRenglon = {
  sat: { claveProdServ: 'CFDI40196', valorUnitario: 'CFDI40197', limites: 'CFDI40198', aduana: 'CFDI40200' },
  valorUnitarioCero: (_, valor) => `ValorUnitario="${valor}" de la parte debe ser mayor que cero.`,
};

type Clase = 'traslado' | 'retencion';
const SAT_IMPUESTO: Record<Clase, { base: string; importe: string }> = {
  traslado: { base: 'CFDI40174', importe: 'CFDI40180' },
  retencion: { base: 'CFDI40181', importe: 'CFDI40186' },
};

/**
 * Every concept once, in order: its own rules, its taxes, its parts, and the sums the global-tax and
 * totals rules compare against.
 */
export function reglasConceptos(ctx: Contexto): void {
  ctx.conceptos.forEach((c, i) => reglasConcepto(ctx, c, `Comprobante.Conceptos.Concepto[${i}]`));
}

function reglasConcepto(ctx: Contexto, c: Nodo, ruta: string): void {
  const a = c.atributos;
  reglaClaveProdServ(ctx, c, ruta, CONCEPTO);
  if (a.ClaveUnidad !== undefined) {
    ctx.agregar(validarClaveUnidad(a.ClaveUnidad, ctx.catalogos, `${ruta}.ClaveUnidad`));
  }
  const importe = reglasImporte(ctx, c, ruta, CONCEPTO);
  const descuento = ctx.numero(c, 'Descuento', ruta);
  if (descuento !== undefined && importe !== undefined) {
    if (decimalesDe(a.Descuento!) > decimalesDe(a.Importe!)) {
      ctx.error(
        'descuento_decimales',
        `Descuento="${a.Descuento}" tiene más decimales que el Importe del concepto ("${a.Importe}").`,
        `${ruta}.Descuento`,
        'CFDI40168',
      );
    }
    if (descuento > importe) {
      ctx.error(
        'descuento_mayor_importe',
        `Descuento="${a.Descuento}" es mayor que el Importe del concepto ("${a.Importe}").`,
        `${ruta}.Descuento`,
        'CFDI40169',
      );
    }
  }
  const s = ctx.acumulados;
  if (importe !== undefined) s.importe += importe;
  if (a.Descuento !== undefined) s.conDescuento = true;
  if (descuento !== undefined) s.descuento += descuento;

  reglasImpuestosConcepto(ctx, c, ruta);
  reglasTerceros(ctx, c, ruta);
  reglasAduana(ctx, c, ruta, CONCEPTO);
  hijosLocal(c, 'Parte').forEach((p, k) => reglasParte(ctx, p, `${ruta}.Parte[${k}]`));
}

function reglasParte(ctx: Contexto, p: Nodo, ruta: string): void {
  reglaClaveProdServ(ctx, p, ruta, PARTE);
  reglasImporte(ctx, p, ruta, PARTE);
  reglasAduana(ctx, p, ruta, PARTE);
}

function reglaClaveProdServ(ctx: Contexto, n: Nodo, ruta: string, r: ReglasRenglon): void {
  const clave = n.atributos.ClaveProdServ;
  if (clave === undefined) return;
  const errores = validarClaveProdServ(clave, ctx.catalogos, `${ruta}.ClaveProdServ`);
  ctx.agregar(errores.map((v) => ({ ...v, sat: r.sat.claveProdServ })));
}

/** ValorUnitario above zero where required, and Importe within Cantidad × ValorUnitario; returns Importe. */
function reglasImporte(ctx: Contexto, n: Nodo, ruta: string, r: ReglasRenglon): bigint | undefined {
  const valorUnitario = ctx.numero(n, 'ValorUnitario', ruta);
  const mensaje = valorUnitario === 0n ? r.valorUnitarioCero(ctx, n.atributos.ValorUnitario!) : undefined;
  if (mensaje) ctx.error('valor_unitario_cero', mensaje, `${ruta}.ValorUnitario`, r.sat.valorUnitario);
  const importe = ctx.numero(n, 'Importe', ruta);
  const cantidad = ctx.numero(n, 'Cantidad', ruta);
  if (importe !== undefined && cantidad !== undefined && valorUnitario !== undefined) {
    verificarLimites(
      ctx,
      n,
      ruta,
      importe,
      ['Cantidad', cantidad],
      ['ValorUnitario', valorUnitario],
      r.sat.limites,
    );
  }
  return importe;
}

/** Concept tax lines as the shared rules (cfdi/reglas/impuestos) read them. */
const linea = (n: Nodo): LineaImpuesto => ({
  impuesto: n.atributos.Impuesto ?? '',
  tipo_factor: n.atributos.TipoFactor ?? '',
  tasa_o_cuota: n.atributos.TasaOCuota,
});

/** The shared rules name request fields; in a document they are XML attributes. */
const CAMPOS: Record<string, string> = {
  impuesto: 'Impuesto',
  tipo_factor: 'TipoFactor',
  tasa_o_cuota: 'TasaOCuota',
};
const aXml = (v: Violacion): Violacion => ({
  ...v,
  parametro: v.parametro
    .replace('.traslados[', '.Traslados.Traslado[')
    .replace('.retenciones[', '.Retenciones.Retencion[')
    .replace(/\.(impuesto|tipo_factor|tasa_o_cuota)$/, (_, campo: string) => `.${CAMPOS[campo]}`),
  mensaje: v.mensaje.replace(/tasa_o_cuota/g, 'TasaOCuota'),
});

/** ObjetoImp vs the Impuestos node, and each traslado / retención (CFDI40170–40186). */
function reglasImpuestosConcepto(ctx: Contexto, c: Nodo, ruta: string): void {
  const nodo = hijoLocal(c, 'Impuestos');
  const traslados = hijosLocal(hijoLocal(nodo, 'Traslados'), 'Traslado');
  const retenciones = hijosLocal(hijoLocal(nodo, 'Retenciones'), 'Retencion');
  const objetoImp = c.atributos.ObjetoImp;
  const rutaImpuestos = `${ruta}.Impuestos`;

  if (objetoImp !== undefined) {
    let comunes = validarImpuestos(
      objetoImp,
      { traslados: traslados.map(linea), retenciones: retenciones.map(linea) },
      ctx.catalogos,
      rutaImpuestos,
      `${ruta}.ObjetoImp`,
    ).map(aXml);
    // The shared rules count lines; in XML an Impuestos node without lines is its own error (CFDI40173).
    if (nodo && traslados.length + retenciones.length === 0) {
      comunes = comunes.filter((v) => v.sat !== 'CFDI40171');
      if (objetoImp === '01' || objetoImp === '03') {
        ctx.error(
          'impuestos_no_permitidos',
          `Con ObjetoImp="${objetoImp}" el concepto no lleva el nodo Impuestos.`,
          rutaImpuestos,
          'CFDI40172',
        );
      }
    }
    ctx.agregar(comunes);
  }
  if (nodo && traslados.length + retenciones.length === 0) {
    ctx.error(
      'impuestos_vacios',
      'El nodo Impuestos del concepto no tiene traslados ni retenciones.',
      rutaImpuestos,
      'CFDI40173',
    );
  }
  traslados.forEach((t, j) => reglasLinea(ctx, t, `${rutaImpuestos}.Traslados.Traslado[${j}]`, 'traslado'));
  retenciones.forEach((r, j) =>
    reglasLinea(ctx, r, `${rutaImpuestos}.Retenciones.Retencion[${j}]`, 'retencion'),
  );
}

/** What the shared rules cannot see in a tax line: Base, Importe, and the sums by global row. */
function reglasLinea(ctx: Contexto, n: Nodo, ruta: string, clase: Clase): void {
  const a = n.atributos;
  const base = ctx.numero(n, 'Base', ruta);
  if (base === 0n) {
    ctx.error(
      'base_no_positiva',
      `Base="${a.Base}" de ${clase === 'traslado' ? 'un traslado' : 'una retención'} debe ser mayor que cero.`,
      `${ruta}.Base`,
      SAT_IMPUESTO[clase].base,
    );
  }
  const importe = ctx.numero(n, 'Importe', ruta);
  const exento = a.TipoFactor === 'Exento';
  if (clase === 'traslado' && exento && a.Importe !== undefined) {
    ctx.error(
      'exento_con_importe',
      `Un traslado Exento no lleva Importe (tiene "${a.Importe}").`,
      `${ruta}.Importe`,
      'CFDI40177',
    );
  }
  if (
    clase === 'traslado' &&
    (a.TipoFactor === 'Tasa' || a.TipoFactor === 'Cuota') &&
    a.Importe === undefined
  ) {
    ctx.error(
      'importe_impuesto_requerido',
      `Un traslado con TipoFactor ${a.TipoFactor} requiere Importe.`,
      `${ruta}.Importe`,
      'CFDI40178',
    );
  }
  const tasa = a.TasaOCuota === undefined ? undefined : millonesimas(a.TasaOCuota);
  if (!exento && base !== undefined && importe !== undefined && tasa !== undefined) {
    verificarLimites(
      ctx,
      n,
      ruta,
      importe,
      ['Base', base],
      ['TasaOCuota', tasa],
      SAT_IMPUESTO[clase].importe,
    );
  }

  const s = ctx.acumulados;
  const impuesto = a.Impuesto ?? '';
  if (clase === 'traslado') {
    const clave = claveTraslado(impuesto, a.TipoFactor ?? '', exento ? undefined : a.TasaOCuota);
    let g = s.traslados.get(clave);
    if (!g) s.traslados.set(clave, (g = { base: 0n, importe: 0n }));
    if (base !== undefined) g.base += base;
    if (importe !== undefined) g.importe += importe;
    if (!exento) s.trasladosNoExentos = true;
  } else if (importe !== undefined) {
    s.retenciones.set(impuesto, (s.retenciones.get(impuesto) ?? 0n) + importe);
  }
}

/**
 * Importe between the limits its two factors allow (concept, part or tax line); a TasaOCuota factor is
 * exact, the others carry half a unit of their last decimal.
 */
function verificarLimites(
  ctx: Contexto,
  n: Nodo,
  ruta: string,
  importe: bigint,
  [nombreA, a]: [string, bigint],
  [nombreB, b]: [string, bigint],
  sat: string,
): void {
  const t = n.atributos;
  const valor = (nombre: string, enMillonesimas: bigint): Valor => ({
    enMillonesimas,
    decimales: decimalesDe(t[nombre]!),
  });
  const exacto = nombreB === 'TasaOCuota';
  const r = fueraDeLimites(valor('Importe', importe), valor(nombreA, a), valor(nombreB, b), exacto);
  if (!r) return;
  ctx.error(
    'importe_fuera_de_limites',
    `Importe="${t.Importe}" está fuera de los límites de ${nombreA} ${t[nombreA]} × ${nombreB} ${t[nombreB]}: ` +
      `de ${r.inferior} a ${r.superior}.`,
    `${ruta}.Importe`,
    sat,
  );
}

function reglasTerceros(ctx: Contexto, c: Nodo, ruta: string): void {
  const t = hijoLocal(c, 'ACuentaTerceros');
  if (!t) return;
  const r = `${ruta}.ACuentaTerceros`;
  const { RfcACuentaTerceros: rfc, RegimenFiscalACuentaTerceros: regimen } = t.atributos;
  if (rfc !== undefined && (rfc === ctx.emisor?.atributos.Rfc || rfc === ctx.receptor?.atributos.Rfc)) {
    ctx.error(
      'tercero_rfc_igual',
      `RfcACuentaTerceros="${rfc}" debe ser distinto del RFC del emisor y del receptor.`,
      `${r}.RfcACuentaTerceros`,
      'CFDI40188',
    );
  }
  if (regimen !== undefined && !ctx.catalogos.regimenFiscal(regimen)) {
    ctx.error(
      'regimen_fiscal_invalido',
      `RegimenFiscalACuentaTerceros="${regimen}" no existe o no está vigente en el catálogo c_RegimenFiscal.`,
      `${r}.RegimenFiscalACuentaTerceros`,
      'CFDI40191',
    );
  }
}

/** With the Comercio Exterior complement the pedimentos go there, not in the concepts. */
function reglasAduana(ctx: Contexto, n: Nodo, ruta: string, r: ReglasRenglon): void {
  if (!ctx.conComercioExterior) return;
  hijosLocal(n, 'InformacionAduanera').forEach((ia, k) => {
    if (ia.atributos.NumeroPedimento === undefined) return;
    ctx.error(
      'pedimento_con_comercio_exterior',
      `NumeroPedimento="${ia.atributos.NumeroPedimento}" no se registra cuando el comprobante incluye el ` +
        'complemento de Comercio Exterior.',
      `${ruta}.InformacionAduanera[${k}].NumeroPedimento`,
      r.sat.aduana,
    );
  });
}
