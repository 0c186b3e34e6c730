import { d, Decimal, DECIMALES_CONCEPTO, fijo } from '../decimal';
import type {
  ComprobanteEntrada,
  ConceptoCalculado,
  ImportesCalculados,
  ImpuestoCalculado,
  ImpuestoConcepto,
} from './tipos';

const seis = (v: Decimal) => fijo(v, DECIMALES_CONCEPTO);

// A handful of distinct rates exist: parse and format each once per process.
const tasas = new Map<string, { valor: Decimal; texto: string }>();
function tasa(t: string) {
  let x = tasas.get(t);
  if (!x) {
    const valor = d(t);
    x = { valor, texto: fijo(valor, 6) };
    tasas.set(t, x);
  }
  return x;
}

/** The written row plus its exact values, so totals add numbers instead of re-parsing strings. */
interface ImpuestoConValores {
  fila: ImpuestoCalculado;
  base: Decimal;
  importe?: Decimal;
}

function impuestoConcepto(i: ImpuestoConcepto, base: Decimal, cantidad: Decimal): ImpuestoConValores {
  if (i.tipo_factor === 'Exento') {
    return { fila: { base: seis(base), impuesto: i.impuesto, tipo_factor: 'Exento' }, base };
  }
  // A Cuota (IEPS per unit) applies to the number of units; a Tasa to the amount.
  const b = i.tipo_factor === 'Cuota' ? cantidad : base;
  const t = tasa(i.tasa_o_cuota!);
  const importe = b.times(t.valor).toDecimalPlaces(DECIMALES_CONCEPTO);
  return {
    fila: {
      base: seis(b),
      impuesto: i.impuesto,
      tipo_factor: i.tipo_factor,
      tasa_o_cuota: t.texto,
      importe: seis(importe),
    },
    base: b,
    importe,
  };
}

/**
 * Every amount of the document by the SAT rules (Anexo 20, matrix CFDI40107–40221): concept amounts exact
 * to 6 decimals; document totals summed from those and rounded once, at the end, to the currency's decimals.
 */
export function calcularImportes(c: ComprobanteEntrada): ImportesCalculados {
  const dec = c.decimales_moneda;
  const traslados = new Map<
    string,
    { fila: ImpuestoCalculado; base: Decimal; importe: Decimal | undefined }
  >();
  const retenciones = new Map<string, Decimal>();
  let sumaImportes = d(0);
  let sumaDescuentos: Decimal | undefined;

  const conceptos: ConceptoCalculado[] = c.conceptos.map((x) => {
    const cantidad = d(x.cantidad);
    const valor = d(x.valor_unitario);
    const importe = cantidad.times(valor).toDecimalPlaces(DECIMALES_CONCEPTO);
    const descuento = x.descuento === undefined ? undefined : d(x.descuento);
    const base = descuento ? importe.minus(descuento) : importe;
    sumaImportes = sumaImportes.plus(importe);
    if (descuento) sumaDescuentos = (sumaDescuentos ?? d(0)).plus(descuento);

    const tr = (x.impuestos?.traslados ?? []).map((i) => impuestoConcepto(i, base, cantidad));
    const re = (x.impuestos?.retenciones ?? []).map((i) => impuestoConcepto(i, base, cantidad));
    // One global row per (impuesto, tipo_factor, tasa) for traslados, per impuesto for retenciones.
    for (const t of tr) {
      const clave = `${t.fila.impuesto}|${t.fila.tipo_factor}|${t.fila.tasa_o_cuota ?? ''}`;
      const g = traslados.get(clave);
      if (g) {
        g.base = g.base.plus(t.base);
        if (g.importe && t.importe) g.importe = g.importe.plus(t.importe);
      } else {
        traslados.set(clave, { fila: t.fila, base: t.base, importe: t.importe });
      }
    }
    // An Exento withholding has no amount (and is invalid: validation reports it, it must not crash here).
    for (const r of re) {
      if (r.importe)
        retenciones.set(r.fila.impuesto, (retenciones.get(r.fila.impuesto) ?? d(0)).plus(r.importe));
    }

    // Explicit fields, no spread-and-override: this runs for every concept of every invoice.
    return {
      clave_prod_serv: x.clave_prod_serv,
      no_identificacion: x.no_identificacion,
      cantidad: x.cantidad,
      clave_unidad: x.clave_unidad,
      unidad: x.unidad,
      descripcion: x.descripcion,
      valor_unitario: seis(valor),
      descuento: descuento && seis(descuento),
      objeto_imp: x.objeto_imp,
      impuestos: x.impuestos,
      importe: seis(importe),
      traslados: tr.map((t) => t.fila),
      retenciones: re.map((r) => r.fila),
    };
  });

  const filasTraslado: ImpuestoCalculado[] = [...traslados.values()].map(({ fila, base, importe }) => ({
    base: fijo(base, dec),
    impuesto: fila.impuesto,
    tipo_factor: fila.tipo_factor,
    ...(fila.tasa_o_cuota ? { tasa_o_cuota: fila.tasa_o_cuota } : {}),
    ...(importe ? { importe: fijo(importe, dec) } : {}),
  }));
  const filasRetencion = [...retenciones.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([impuesto, importe]) => ({ impuesto, importe: fijo(importe, dec) }));

  const conImporte = filasTraslado.filter((t) => t.importe !== undefined);
  const totalTrasladados = conImporte.length
    ? conImporte.reduce((s, t) => s.plus(t.importe!), d(0))
    : undefined;
  const totalRetenidos = filasRetencion.length
    ? filasRetencion.reduce((s, r) => s.plus(r.importe), d(0))
    : undefined;

  const subtotal = d(fijo(sumaImportes, dec));
  const descuento = sumaDescuentos && d(fijo(sumaDescuentos, dec));
  const total = subtotal
    .minus(descuento ?? 0)
    .plus(totalTrasladados ?? 0)
    .minus(totalRetenidos ?? 0);

  return {
    conceptos,
    subtotal: fijo(subtotal, dec),
    descuento: descuento && fijo(descuento, dec),
    traslados: filasTraslado,
    retenciones: filasRetencion,
    total_impuestos_trasladados: totalTrasladados && fijo(totalTrasladados, dec),
    total_impuestos_retenidos: totalRetenidos && fijo(totalRetenidos, dec),
    total: fijo(total, dec),
  };
}
