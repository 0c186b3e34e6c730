import type { Nodo } from '../xml/nodo';
import type { Contexto } from './contexto';
import { millonesimas, redondear, texto } from './millonesimas';

const R = 'Comprobante';
/** Types whose SubTotal and Descuento come from the concepts (CFDI40108, CFDI40111). */
const CON_IMPORTES = new Set(['I', 'E', 'N']);
const EN_CERO = new Set(['T', 'P']);

/** An amount read without reporting: the rules that own the attribute report a malformed one. */
function cantidad(n: Nodo | undefined, atributo: string): bigint | null {
  const v = n?.atributos[atributo];
  if (v === undefined) return 0n;
  return millonesimas(v) ?? null;
}

/** SubTotal, Descuento and Total against the concepts and the tax summary (CFDI40107–40112, 40119). */
export function reglasTotales(ctx: Contexto): void {
  const dec = ctx.decimales;
  if (dec === undefined) return;
  const raiz = ctx.raiz;
  const s = ctx.acumulados;
  ctx.decimalesMoneda(raiz, 'SubTotal', R, 'CFDI40107');
  ctx.decimalesMoneda(raiz, 'Descuento', R, 'CFDI40112');
  const subtotal = ctx.numero(raiz, 'SubTotal', R);
  const descuento = ctx.numero(raiz, 'Descuento', R);

  if (subtotal !== undefined && CON_IMPORTES.has(ctx.tipo)) {
    const esperado = redondear(s.importe, dec);
    if (subtotal !== esperado) {
      ctx.error(
        'subtotal_no_cuadra',
        `SubTotal="${ctx.a.SubTotal}" no es el redondeo de la suma de los importes de los conceptos ` +
          `(${texto(esperado, dec)}).`,
        `${R}.SubTotal`,
        'CFDI40108',
      );
    }
  }
  if (subtotal !== undefined && EN_CERO.has(ctx.tipo) && subtotal !== 0n) {
    ctx.error(
      'subtotal_no_cero',
      `En un comprobante de tipo ${ctx.tipo} el SubTotal es 0 (tiene "${ctx.a.SubTotal}").`,
      `${R}.SubTotal`,
      'CFDI40109',
    );
  }

  if (descuento !== undefined && subtotal !== undefined && descuento > subtotal) {
    ctx.error(
      'descuento_mayor_subtotal',
      `Descuento="${ctx.a.Descuento}" es mayor que el SubTotal ("${ctx.a.SubTotal}").`,
      `${R}.Descuento`,
      'CFDI40110',
    );
  }
  const mensajeDescuento = reglaDescuento(ctx, descuento, dec);
  if (mensajeDescuento) ctx.error('descuento_no_cuadra', mensajeDescuento, `${R}.Descuento`, 'CFDI40111');

  const total = ctx.numero(raiz, 'Total', R);
  const trasladados = cantidad(ctx.impuestos, 'TotalImpuestosTrasladados');
  const retenidos = cantidad(ctx.impuestos, 'TotalImpuestosRetenidos');
  // Local taxes (implocal complement) count in the Total like federal ones.
  const locales = ctx.complemento('ImpuestosLocales');
  const localesTrasladados = cantidad(locales, 'TotaldeTraslados');
  const localesRetenidos = cantidad(locales, 'TotaldeRetenciones');
  if (total === undefined || subtotal === undefined) return;
  if (trasladados === null || retenidos === null || localesTrasladados === null || localesRetenidos === null)
    return;
  if (ctx.a.Descuento !== undefined && descuento === undefined) return;
  const suma = subtotal - (descuento ?? 0n) + trasladados - retenidos + localesTrasladados - localesRetenidos;
  // Rounded half away from zero: a negative result (a broken document) is still shown as a number.
  const esperado = suma < 0n ? -redondear(-suma, dec) : redondear(suma, dec);
  if (total !== esperado) {
    ctx.error(
      'total_no_cuadra',
      `Total="${ctx.a.Total}" no es SubTotal − Descuento + impuestos trasladados − impuestos retenidos ` +
        `(${esperado < 0n ? `-${texto(-esperado, dec)}` : texto(esperado, dec)}).`,
      `${R}.Total`,
      'CFDI40119',
    );
  }
}

/** Why the document-level Descuento is wrong, if it is (CFDI40111). */
function reglaDescuento(ctx: Contexto, descuento: bigint | undefined, dec: number): string | undefined {
  const s = ctx.acumulados;
  const valor = ctx.a.Descuento;
  if (EN_CERO.has(ctx.tipo)) {
    if (valor === undefined && !s.conDescuento) return undefined;
    return `Un comprobante de tipo ${ctx.tipo} no lleva Descuento, ni en el comprobante ni en los conceptos.`;
  }
  if (!CON_IMPORTES.has(ctx.tipo)) return undefined;
  if (!s.conDescuento) {
    return valor === undefined
      ? undefined
      : `Descuento="${valor}" solo se registra cuando algún concepto tiene Descuento; ninguno lo tiene.`;
  }
  const esperado = redondear(s.descuento, dec);
  if (valor === undefined) {
    return `Los conceptos tienen descuentos (${texto(esperado, dec)}) y el comprobante no tiene Descuento.`;
  }
  if (descuento !== undefined && descuento !== esperado) {
    return `Descuento="${valor}" no es el redondeo de la suma de los descuentos de los conceptos (${texto(esperado, dec)}).`;
  }
  return undefined;
}
