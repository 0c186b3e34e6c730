import { validarCodigoPostal } from '../reglas/codigo-postal';
import type { CatalogosValidacion, Contexto } from './contexto';

const R = 'Comprobante';

// c_TipoDeComprobante: five fixed codes (the catalog store has no lookup for it).
const TIPOS_COMPROBANTE = new Set(['I', 'E', 'T', 'N', 'P']);
/** Types without payment terms: no FormaPago (CFDI40103); T and P also without MetodoPago (CFDI40125). */
const SIN_FORMA_PAGO = new Set(['T', 'N', 'P']);
const SIN_METODO_PAGO = new Set(['T', 'P']);

/** Root attributes whose value must be a code of a catalog. */
const CATALOGOS: readonly {
  atributo: string;
  catalogo: string;
  codigo: string;
  sat: string;
  existe: (c: CatalogosValidacion, valor: string) => boolean;
}[] = [
  {
    atributo: 'TipoDeComprobante',
    catalogo: 'c_TipoDeComprobante',
    codigo: 'tipo_comprobante_invalido',
    sat: 'CFDI40121',
    existe: (_, v) => TIPOS_COMPROBANTE.has(v),
  },
  {
    atributo: 'FormaPago',
    catalogo: 'c_FormaPago',
    codigo: 'forma_pago_invalida',
    sat: 'CFDI40104',
    existe: (c, v) => c.formaPago(v) !== undefined,
  },
  {
    atributo: 'Moneda',
    catalogo: 'c_Moneda',
    codigo: 'moneda_invalida',
    sat: 'CFDI40113',
    existe: (c, v) => c.moneda(v) !== undefined,
  },
  {
    atributo: 'Exportacion',
    catalogo: 'c_Exportacion',
    codigo: 'exportacion_invalida',
    sat: 'CFDI40123',
    existe: (c, v) => c.exportacion(v) !== undefined,
  },
  {
    atributo: 'MetodoPago',
    catalogo: 'c_MetodoPago',
    codigo: 'metodo_pago_invalido',
    sat: 'CFDI40124',
    existe: (c, v) => c.metodoPago(v) !== undefined,
  },
];

export function reglasCatalogosComprobante(ctx: Contexto): void {
  for (const r of CATALOGOS) {
    const valor = ctx.a[r.atributo];
    if (valor === undefined || r.existe(ctx.catalogos, valor)) continue;
    ctx.error(
      r.codigo,
      `${r.atributo}="${valor}" no existe o no está vigente en el catálogo ${r.catalogo}.`,
      `${R}.${r.atributo}`,
      r.sat,
    );
  }
  const lugar = ctx.a.LugarExpedicion;
  if (lugar !== undefined) {
    ctx.agregar(validarCodigoPostal(lugar, ctx.catalogos, `${R}.LugarExpedicion`, 'emisor'));
  }
  if (ctx.a.Exportacion === '02' && !ctx.conComercioExterior) {
    ctx.error(
      'comercio_exterior_requerido',
      'Exportacion="02" (definitiva con clave A1) requiere el complemento de Comercio Exterior.',
      `${R}.Exportacion`,
      'CFDI40122',
    );
  }
}

export function reglasFormaYMetodoPago(ctx: Contexto): void {
  const { FormaPago: forma, MetodoPago: metodo } = ctx.a;
  if (forma !== undefined && SIN_FORMA_PAGO.has(ctx.tipo)) {
    ctx.error(
      'forma_pago_no_permitida',
      `Un comprobante de tipo ${ctx.tipo} no lleva FormaPago (tiene "${forma}").`,
      `${R}.FormaPago`,
      'CFDI40103',
    );
  }
  if (metodo !== undefined && SIN_METODO_PAGO.has(ctx.tipo)) {
    ctx.error(
      'metodo_pago_no_permitido',
      `Un comprobante de tipo ${ctx.tipo} no lleva MetodoPago (tiene "${metodo}").`,
      `${R}.MetodoPago`,
      'CFDI40125',
    );
  }
  // An absent FormaPago does not contain "99" either: a PPD invoice must say "por definir".
  if (metodo === 'PPD' && forma !== '99' && !SIN_FORMA_PAGO.has(ctx.tipo)) {
    ctx.error(
      'forma_pago_ppd',
      forma === undefined
        ? 'Con MetodoPago="PPD" se debe registrar FormaPago="99" (por definir); el comprobante no tiene FormaPago.'
        : `Con MetodoPago="PPD" la FormaPago debe ser "99" (por definir), no "${forma}".`,
      `${R}.FormaPago`,
      'CFDI40105',
    );
  }
}

const PATRON_TIPO_CAMBIO = /^[0-9]{1,18}(\.[0-9]{1,6})?$/;

export function reglasTipoCambio(ctx: Contexto): void {
  const { Moneda: moneda, TipoCambio: tc } = ctx.a;
  if (moneda === undefined) return;
  const ruta = `${R}.TipoCambio`;
  if (tc === undefined) {
    if (moneda !== 'MXN' && moneda !== 'XXX') {
      ctx.error(
        'tipo_cambio_requerido',
        `Con Moneda="${moneda}" se requiere TipoCambio (pesos por unidad de la moneda).`,
        ruta,
        'CFDI40115',
      );
    }
    return;
  }
  if (moneda === 'XXX') {
    ctx.error(
      'tipo_cambio_no_permitido',
      `Con Moneda="XXX" no se registra TipoCambio (tiene "${tc}").`,
      ruta,
      'CFDI40116',
    );
    return;
  }
  if (!PATRON_TIPO_CAMBIO.test(tc)) {
    ctx.error(
      'tipo_cambio_formato',
      `TipoCambio="${tc}" no cumple el patrón: hasta 18 enteros y hasta 6 decimales.`,
      ruta,
      'CFDI40117',
    );
    return;
  }
  if (moneda === 'MXN' && Number(tc) !== 1) {
    ctx.error(
      'tipo_cambio_mxn',
      `Con Moneda="MXN" el TipoCambio se omite o vale "1" (tiene "${tc}").`,
      ruta,
      'CFDI40114',
    );
  }
}

// The matrix pattern for Fecha, plus a real calendar day (the pattern alone admits February 31).
const PATRON_FECHA =
  /^(20[1-9][0-9])-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])$/;
/** Clock differences between the issuer and the PAC that a Fecha "in the future" may show. */
const TOLERANCIA_FUTURO_MS = 60_000;

/** `YYYY-MM-DDThh:mm:ss` read as a wall-clock time (no zone), in ms; null when not a real date. */
function instanteLocal(fecha: string): number | null {
  const m = PATRON_FECHA.exec(fecha);
  if (!m) return null;
  const [anio = 0, mes = 0, dia = 0, h = 0, mi = 0, s = 0] = m.slice(1).map(Number);
  const t = Date.UTC(anio, mes - 1, dia, h, mi, s);
  return new Date(t).getUTCDate() === dia ? t : null;
}

export function reglasFecha(ctx: Contexto): void {
  const fecha = ctx.a.Fecha;
  if (fecha === undefined) return;
  const ruta = `${R}.Fecha`;
  const t = instanteLocal(fecha);
  if (t === null) {
    ctx.error(
      'fecha_invalida',
      `Fecha="${fecha}" no es una fecha válida con el patrón AAAA-MM-DDThh:mm:ss (sin zona horaria).`,
      ruta,
      'CFDI40101',
    );
    return;
  }
  const ahora = ctx.ahoraLocal;
  if (t - instanteLocal(ahora)! > TOLERANCIA_FUTURO_MS) {
    ctx.error(
      'fecha_futura',
      `Fecha="${fecha}" es posterior a la hora local del lugar de expedición (${ahora}).`,
      ruta,
      'CFDI40101',
    );
  }
}
