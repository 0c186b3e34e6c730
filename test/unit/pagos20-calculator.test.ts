import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import {
  ATRIBUTOS_TOTALES,
  calcularPagos,
  type ComplementoPagosCalculado,
  type DocumentoPagadoEntrada,
  type EntradaPagos,
  type LineaImpuestoPago,
  type PagoEntrada,
  type TotalesPagos,
} from '../../cfdi/pagos';
import { directorioSat } from '../../config/rutas';

// ---------------------------------------------------------------------------------------------------------------
// Test vectors: the documents' DoctoRelacionado and Pago data are the input; their ImpuestosP, Totales and
// Monto are the expected output.

const EJEMPLOS = join(directorioSat(), 'examples');
const CASOS = ['001', '002', '003', '004', '005', '006', '007', '008'];

const DECIMALES_MONEDA: ReadonlyMap<string, number> = new Map(
  [
    ...readFileSync(join(__dirname, '..', '..', 'db', 'catalogos', 'datos', 'c_Moneda.csv'), 'utf8').matchAll(
      /^([A-Z]{3}),(?:"[^"]*"|[^,]*),(\d+),/gm,
    ),
  ].map((m) => [m[1]!, Number(m[2])]),
);
const decimalesDe = (moneda: string): number => {
  const d = DECIMALES_MONEDA.get(moneda);
  if (d === undefined) throw new Error(`moneda ${moneda} fuera de c_Moneda`);
  return d;
};

type Atributos = Record<string, string>;
interface Elemento {
  atributos: Atributos;
  /** Text between the opening and closing tag (empty for a self-closing element). */
  interior: string;
}

const atributos = (texto: string): Atributos =>
  Object.fromEntries([...texto.matchAll(/([\w:]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));

/** Elements `pago20:<nombre>` inside `xml` (they never nest within themselves in these documents). */
function elementos(xml: string, nombre: string): Elemento[] {
  const patron = new RegExp(`<pago20:${nombre}\\b([^>]*?)(/>|>([\\s\\S]*?)</pago20:${nombre}>)`, 'g');
  return [...xml.matchAll(patron)].map((m) => ({ atributos: atributos(m[1]!), interior: m[3] ?? '' }));
}

function lineasDR(docto: string, nombre: 'TrasladoDR' | 'RetencionDR'): LineaImpuestoPago[] {
  return elementos(docto, nombre).map(({ atributos: a }) => ({
    impuesto: a['ImpuestoDR']!,
    tipo_factor: a['TipoFactorDR']!,
    tasa_o_cuota: a['TasaOCuotaDR'],
    base: a['BaseDR']!,
    importe: a['ImporteDR'],
  }));
}

/**
 * The calculator's input from a document. The original invoices are not in the files, so each DoctoRelacionado
 * passes its ImpuestosDR as already prorated rows (`impuestos_dr`), used exactly as written. Re-prorating them as
 * an invoice of Total = ImpPagado would recompute ImporteDR = BaseDR × Tasa at 6 decimals and change the
 * documents' own ImporteDR (e.g. 002 writes 2.8470 for 227.7586 × 0.0125 = 2.84698), hence their ImpuestosP.
 */
function entradaDe(xml: string, conMonto: boolean): EntradaPagos {
  return {
    pagos: elementos(xml, 'Pago').map(
      ({ atributos: p, interior }, i): PagoEntrada => ({
        fecha_pago: p['FechaPago']!,
        forma_pago: p['FormaDePagoP']!,
        moneda: p['MonedaP']!,
        decimales_moneda: decimalesDe(p['MonedaP']!),
        tipo_cambio: p['TipoCambioP'],
        monto: conMonto ? p['Monto'] : undefined,
        documentos: elementos(interior, 'DoctoRelacionado').map(({ atributos: d, interior: docto }, j) => {
          const traslados = lineasDR(docto, 'TrasladoDR');
          const retenciones = lineasDR(docto, 'RetencionDR');
          return {
            // 004–008 leave IdDocumento out (they only test sums); any valid UUID will do.
            uuid: d['IdDocumento'] ?? `00000000-0000-4000-8000-${String(i * 1000 + j).padStart(12, '0')}`,
            serie: d['Serie'],
            folio: d['Folio'],
            moneda: d['MonedaDR']!,
            decimales_moneda: decimalesDe(d['MonedaDR']!),
            equivalencia: d['EquivalenciaDR'],
            num_parcialidad: Number(d['NumParcialidad']),
            imp_saldo_anterior: d['ImpSaldoAnt']!,
            imp_pagado: d['ImpPagado']!,
            objeto_imp: d['ObjetoImpDR']!,
            ...(traslados.length + retenciones.length > 0
              ? { impuestos_dr: { traslados, retenciones } }
              : {}),
          };
        }),
      }),
    ),
  };
}

/**
 * A document's value as our complement writes it: the same number with exactly `decimales` decimals. The
 * producers of these files write 0, "2.8470", "93.46658" or "1840" for what we write as 0.000000, 2.847000,
 * 93.466580 and 1840.00; the value itself must not need rounding to fit.
 */
function comoEscribimos(valor: string, decimales: number): string {
  const escritos = valor.split('.')[1]?.length ?? 0;
  if (escritos > decimales) throw new Error(`${valor} tiene más de ${decimales} decimales`);
  return new Decimal(valor).toFixed(decimales);
}

function calcular(entrada: EntradaPagos): ComplementoPagosCalculado {
  const resultado = calcularPagos(entrada);
  if (!resultado.ok) throw new Error(JSON.stringify(resultado.violaciones, null, 2));
  return resultado.complemento;
}

const claveTraslado = (impuesto: string, factor: string, tasa: string | undefined) =>
  `${impuesto}|${factor}|${tasa === undefined ? '' : new Decimal(tasa).toFixed(6)}`;

/** Asserts ImpuestosP, Totales, Monto and the DR values of `xml` against the calculator's output. */
function verificarDocumento(xml: string, literal: boolean): ComplementoPagosCalculado {
  const escrito = (valor: string, decimales: number) => (literal ? valor : comoEscribimos(valor, decimales));
  const complemento = calcular(entradaDe(xml, true));
  const pagosXml = elementos(xml, 'Pago');
  expect(complemento.pagos).toHaveLength(pagosXml.length);

  pagosXml.forEach(({ atributos: p, interior }, i) => {
    const pago = complemento.pagos[i]!;
    const decimalesP = decimalesDe(p['MonedaP']!);
    expect(pago.monto).toBe(escrito(p['Monto']!, decimalesP));
    expect(new Decimal(pago.monto_minimo).lessThanOrEqualTo(p['Monto']!)).toBe(true);

    elementos(interior, 'DoctoRelacionado').forEach(({ atributos: d }, j) => {
      const docto = pago.documentos[j]!;
      const decimalesDR = decimalesDe(d['MonedaDR']!);
      // DR amounts are inputs (or their difference): always compared at the MonedaDR decimals.
      expect(docto.equivalencia).toBe(d['EquivalenciaDR']);
      expect(docto.num_parcialidad).toBe(d['NumParcialidad']);
      expect(docto.imp_saldo_anterior).toBe(comoEscribimos(d['ImpSaldoAnt']!, decimalesDR));
      expect(docto.imp_pagado).toBe(comoEscribimos(d['ImpPagado']!, decimalesDR));
      expect(docto.imp_saldo_insoluto).toBe(comoEscribimos(d['ImpSaldoInsoluto']!, decimalesDR));
      expect(docto.objeto_imp).toBe(d['ObjetoImpDR']);
    });

    const trasladosP = elementos(interior, 'TrasladoP');
    const retencionesP = elementos(interior, 'RetencionP');
    if (trasladosP.length + retencionesP.length === 0) {
      expect(pago.impuestos).toBeUndefined();
      return;
    }
    const impuestos = pago.impuestos!;
    expect(impuestos.traslados).toHaveLength(trasladosP.length);
    expect(impuestos.retenciones).toHaveLength(retencionesP.length);
    for (const { atributos: t } of trasladosP) {
      const clave = claveTraslado(t['ImpuestoP']!, t['TipoFactorP']!, t['TasaOCuotaP']);
      const fila = impuestos.traslados.find(
        (x) => claveTraslado(x.impuesto, x.tipo_factor, x.tasa_o_cuota) === clave,
      );
      expect({ clave, base: fila?.base, importe: fila?.importe, tasa: fila?.tasa_o_cuota }).toEqual({
        clave,
        base: escrito(t['BaseP']!, 6),
        importe: t['ImporteP'] === undefined ? undefined : escrito(t['ImporteP'], 6),
        tasa: t['TasaOCuotaP'],
      });
    }
    for (const { atributos: r } of retencionesP) {
      const fila = impuestos.retenciones.find((x) => x.impuesto === r['ImpuestoP']);
      expect({ impuesto: r['ImpuestoP'], importe: fila?.importe }).toEqual({
        impuesto: r['ImpuestoP'],
        importe: escrito(r['ImporteP']!, 6),
      });
    }
  });

  const [totalesXml] = elementos(xml, 'Totales');
  const esperados: Partial<Record<keyof TotalesPagos, string>> = {};
  for (const [campo, atributo] of Object.entries(ATRIBUTOS_TOTALES) as [keyof TotalesPagos, string][]) {
    const valor = totalesXml!.atributos[atributo];
    if (valor !== undefined) esperados[campo] = escrito(valor, 2);
  }
  // Same fields (only those that apply) and the same values.
  expect(complemento.totales).toEqual(esperados);
  return complemento;
}

describe('the eight Pagos 2.0 calculator cases', () => {
  it.each(CASOS)('%s: ImpuestosP, Totales, Monto and DR values equal the document', (caso) => {
    const xml = readFileSync(join(EJEMPLOS, 'pagos20-calculator-cases', `${caso}.xml`), 'utf8');
    verificarDocumento(xml, false);
  });

  it('the signed EKU payment: ImpuestosP, Totales and Monto equal byte for byte, without normalizing', () => {
    const xml = readFileSync(join(EJEMPLOS, 'signed', 'pago20-signed-eku.xml'), 'utf8');
    const { pagos, totales } = verificarDocumento(xml, true);
    expect(pagos[0]!.impuestos!.traslados).toEqual([
      {
        base: '12931.040000',
        impuesto: '002',
        tipo_factor: 'Tasa',
        tasa_o_cuota: '0.160000',
        importe: '2068.960000',
      },
    ]);
    expect(totales).toEqual({
      monto_total_pagos: '15000.00',
      total_traslados_base_iva16: '12931.04',
      total_traslados_impuesto_iva16: '2068.96',
    });
  });

  it('without Monto, each Pago gets the truncated minimum, never above the document Monto', () => {
    const minimos: Record<string, string[]> = {};
    for (const caso of CASOS) {
      const xml = readFileSync(join(EJEMPLOS, 'pagos20-calculator-cases', `${caso}.xml`), 'utf8');
      minimos[caso] = calcular(entradaDe(xml, false)).pagos.map((p) => {
        expect(p.monto).toBe(p.monto_minimo);
        return p.monto;
      });
    }
    expect(minimos).toEqual({
      '001': ['1840.00', '40.00'],
      '002': ['372.00'],
      '003': ['14072.73', '2313.60'],
      // 1263997.8346…: rounding would give the same here; truncation is visible in 006 and 008.
      '004': ['1263997.83'],
      '005': ['50498.60'],
      // 2157.06 / 17.4731470231 = 123.449999999903…; 4.08 / 17.7391304348 = 0.229999999999774…
      '006': ['123.44', '3.75', '0.22'],
      '007': ['3475821.96'],
      // 8624.00 / 0.0512820513 = 168167.99994…: the document pays 168168.00, above the minimum.
      '008': ['168167.99'],
    });
  });

  it('004: ImpuestosP rounds the sum of 43 conversions once; rounding each document would drift', () => {
    const xml = readFileSync(join(EJEMPLOS, 'pagos20-calculator-cases', '004.xml'), 'utf8');
    const [traslado] = calcular(entradaDe(xml, true)).pagos[0]!.impuestos!.traslados;
    expect(traslado).toMatchObject({ base: '1089653.476924', importe: '174344.556311' });
    // What per-document rounding would have produced instead.
    let base = new Decimal(0);
    for (const m of xml.matchAll(/EquivalenciaDR="([\d.]+)"[\s\S]*?BaseDR="([\d.]+)"/g)) {
      base = base.plus(new Decimal(m[2]!).div(m[1]!).toDecimalPlaces(6, Decimal.ROUND_HALF_UP));
    }
    expect(base.toFixed(6)).not.toBe(traslado!.base);
  });

  it('006: Totales add every Pago converted to MXN and round once (rounding per Pago gives 64.60)', () => {
    const xml = readFileSync(join(EJEMPLOS, 'pagos20-calculator-cases', '006.xml'), 'utf8');
    const { pagos, totales } = calcular(entradaDe(xml, true));
    expect(totales.total_traslados_base_iva0).toBe('64.59');
    const porPago = pagos.reduce((s, p) => {
      const iva0 = p.impuestos?.traslados.find((t) => t.tasa_o_cuota === '0.000000');
      return iva0 ? s.plus(new Decimal(iva0.base).times(p.tipo_cambio).toDecimalPlaces(2)) : s;
    }, new Decimal(0));
    expect(porPago.toFixed(2)).toBe('64.60');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Proration from the invoice's taxes and the other rules, on hand-made payments.

const UUID_A = '6DE9442D-ED57-5320-B2BA-F73E15079FA3';
const UUID_B = 'AE577E8F-2047-5AB2-8513-9E7299A6DA03';
const IVA16 = { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' };

function documento(cambios: Partial<DocumentoPagadoEntrada> = {}): DocumentoPagadoEntrada {
  return {
    uuid: UUID_A,
    serie: 'F',
    folio: '100',
    moneda: 'MXN',
    decimales_moneda: 2,
    num_parcialidad: 1,
    imp_saldo_anterior: '13920.00',
    imp_pagado: '6960.00',
    objeto_imp: '02',
    total_factura: '13920.00',
    impuestos_factura: { traslados: [{ ...IVA16, base: '12000.00', importe: '1920.00' }] },
    ...cambios,
  };
}

function pago(cambios: Partial<PagoEntrada> = {}, documentos = [documento()]): PagoEntrada {
  return {
    fecha_pago: '2024-03-15T10:30:00',
    forma_pago: '03',
    moneda: 'MXN',
    decimales_moneda: 2,
    documentos,
    ...cambios,
  };
}

const uno = (p: PagoEntrada) => calcular({ pagos: [p] });

describe('proration of the invoice taxes', () => {
  it('13,920.00 invoice (12,000 + IVA 1,920) paid 6,960.00: half of base and tax', () => {
    const { pagos, totales } = uno(pago());
    const [p] = pagos;
    expect(p).toEqual({
      fecha_pago: '2024-03-15T10:30:00',
      forma_pago: '03',
      moneda: 'MXN',
      tipo_cambio: '1',
      monto: '6960.00',
      monto_minimo: '6960.00',
      documentos: [
        {
          uuid: UUID_A,
          serie: 'F',
          folio: '100',
          moneda: 'MXN',
          equivalencia: '1',
          num_parcialidad: '1',
          imp_saldo_anterior: '13920.00',
          imp_pagado: '6960.00',
          imp_saldo_insoluto: '6960.00',
          objeto_imp: '02',
          impuestos: {
            traslados: [
              {
                base: '6000.000000',
                impuesto: '002',
                tipo_factor: 'Tasa',
                tasa_o_cuota: '0.160000',
                importe: '960.000000',
              },
            ],
            retenciones: [],
          },
        },
      ],
      impuestos: {
        traslados: [
          {
            base: '6000.000000',
            impuesto: '002',
            tipo_factor: 'Tasa',
            tasa_o_cuota: '0.160000',
            importe: '960.000000',
          },
        ],
        retenciones: [],
      },
    });
    expect(totales).toEqual({
      total_traslados_base_iva16: '6000.00',
      total_traslados_impuesto_iva16: '960.00',
      monto_total_pagos: '6960.00',
    });
  });

  it('rounds BaseDR half up to 6 decimals and computes ImporteDR from the rounded BaseDR', () => {
    // 30,000 × 12,000 / 34,800 = 10344.8275862068…; 10344.827586 × 0.16 = 1655.17241376.
    const p = pago({}, [
      documento({
        imp_saldo_anterior: '34800.00',
        imp_pagado: '12000.00',
        total_factura: '34800.00',
        impuestos_factura: { traslados: [{ ...IVA16, base: '30000.00', importe: '4800.00' }] },
      }),
    ]);
    const { pagos, totales } = uno(p);
    expect(pagos[0]!.documentos[0]!.impuestos!.traslados).toEqual([
      {
        base: '10344.827586',
        impuesto: '002',
        tipo_factor: 'Tasa',
        tasa_o_cuota: '0.160000',
        importe: '1655.172414',
      },
    ]);
    expect(totales).toMatchObject({
      total_traslados_base_iva16: '10344.83',
      total_traslados_impuesto_iva16: '1655.17',
    });
  });

  it('ImporteDR is the written BaseDR times the tasa, not the unrounded proration', () => {
    // 0.08 × 1000 / 1160 = 0.0689655…→ 0.068966; 0.068966 × 0.16 = 0.01103456 → 0.011035 (the unrounded
    // base would give 0.011034). Both lie within the SAT limits; this one is what a check of BaseDR × Tasa expects.
    const { pagos } = uno(
      pago({}, [
        documento({
          imp_saldo_anterior: '1160.00',
          imp_pagado: '0.08',
          total_factura: '1160.00',
          impuestos_factura: { traslados: [{ ...IVA16, base: '1000.00', importe: '160.00' }] },
        }),
      ]),
    );
    expect(pagos[0]!.documentos[0]!.impuestos!.traslados[0]).toMatchObject({
      base: '0.068966',
      importe: '0.011035',
    });
  });

  it('adds up invoice rows with the same impuesto, tipo_factor and tasa (one per concept) and normalizes the tasa', () => {
    const { pagos } = uno(
      pago({}, [
        documento({
          impuestos_factura: {
            traslados: [
              { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.16', base: '7000.00' },
              { ...IVA16, base: '5000.00' },
            ],
          },
        }),
      ]),
    );
    expect(pagos[0]!.documentos[0]!.impuestos!.traslados).toEqual([
      {
        base: '6000.000000',
        impuesto: '002',
        tipo_factor: 'Tasa',
        tasa_o_cuota: '0.160000',
        importe: '960.000000',
      },
    ]);
  });

  it('parcialidades: the caller chains the balance; the last payment leaves 0.00', () => {
    let saldo = '13920.00';
    const insolutos: string[] = [];
    let bases = new Decimal(0);
    ['5000.00', '5000.00', '3920.00'].forEach((importe, i) => {
      const { pagos } = uno(
        pago({}, [documento({ num_parcialidad: i + 1, imp_saldo_anterior: saldo, imp_pagado: importe })]),
      );
      const d = pagos[0]!.documentos[0]!;
      expect(d.num_parcialidad).toBe(String(i + 1));
      expect(d.imp_saldo_anterior).toBe(saldo);
      saldo = d.imp_saldo_insoluto;
      insolutos.push(saldo);
      bases = bases.plus(d.impuestos!.traslados[0]!.base);
    });
    expect(insolutos).toEqual(['8920.00', '3920.00', '0.00']);
    // 4310.344828 + 4310.344828 + 3379.310345: each rounds on its own, so the bases add up to the invoice base
    // within half a millionth per payment.
    expect(bases.toFixed(6)).toBe('12000.000001');
  });

  it('retenciones: ISR and IVA withheld prorate like traslados; RetencionesP are grouped by impuesto', () => {
    // Base 3,000 + IVA 480 − ISR 300 − IVA 320.00 (0.106667) = 2,860.00; half paid.
    const { pagos, totales } = uno(
      pago({}, [
        documento({
          imp_saldo_anterior: '2860.00',
          imp_pagado: '1430.00',
          total_factura: '2860.00',
          impuestos_factura: {
            traslados: [{ ...IVA16, base: '3000.00', importe: '480.00' }],
            retenciones: [
              {
                impuesto: '001',
                tipo_factor: 'Tasa',
                tasa_o_cuota: '0.100000',
                base: '3000.00',
                importe: '300.00',
              },
              {
                impuesto: '002',
                tipo_factor: 'Tasa',
                tasa_o_cuota: '0.106667',
                base: '3000.00',
                importe: '320.00',
              },
            ],
          },
        }),
      ]),
    );
    const [p] = pagos;
    expect(p!.documentos[0]!.impuestos!.retenciones).toEqual([
      {
        base: '1500.000000',
        impuesto: '001',
        tipo_factor: 'Tasa',
        tasa_o_cuota: '0.100000',
        importe: '150.000000',
      },
      // From BaseDR × tasa (160.0005), not from the invoice's rounded 320.00 × ½.
      {
        base: '1500.000000',
        impuesto: '002',
        tipo_factor: 'Tasa',
        tasa_o_cuota: '0.106667',
        importe: '160.000500',
      },
    ]);
    expect(p!.impuestos!.retenciones).toEqual([
      { impuesto: '001', importe: '150.000000' },
      { impuesto: '002', importe: '160.000500' },
    ]);
    expect(totales).toEqual({
      total_retenciones_isr: '150.00',
      total_retenciones_iva: '160.00',
      total_traslados_base_iva16: '1500.00',
      total_traslados_impuesto_iva16: '240.00',
      monto_total_pagos: '1430.00',
    });
  });

  it('exento, IVA 0 %, IVA 8 % and IEPS: each its own row; IEPS has no Totales field', () => {
    // 1,000 exento + 1,000 at 0 % + 1,000 at 8 % (80) + 1,000 at 16 % (160) + IEPS 8 % on 1,000 (80) = 4,320.00.
    const { pagos, totales } = uno(
      pago({}, [
        documento({
          imp_saldo_anterior: '4320.00',
          imp_pagado: '2160.00',
          total_factura: '4320.00',
          impuestos_factura: {
            traslados: [
              { impuesto: '002', tipo_factor: 'Exento', base: '1000.00' },
              {
                impuesto: '002',
                tipo_factor: 'Tasa',
                tasa_o_cuota: '0.000000',
                base: '1000.00',
                importe: '0.00',
              },
              {
                impuesto: '002',
                tipo_factor: 'Tasa',
                tasa_o_cuota: '0.080000',
                base: '1000.00',
                importe: '80.00',
              },
              { ...IVA16, base: '1000.00', importe: '160.00' },
              {
                impuesto: '003',
                tipo_factor: 'Tasa',
                tasa_o_cuota: '0.080000',
                base: '1000.00',
                importe: '80.00',
              },
            ],
          },
        }),
      ]),
    );
    expect(pagos[0]!.impuestos!.traslados).toEqual([
      { base: '500.000000', impuesto: '002', tipo_factor: 'Exento' },
      {
        base: '500.000000',
        impuesto: '002',
        tipo_factor: 'Tasa',
        tasa_o_cuota: '0.000000',
        importe: '0.000000',
      },
      {
        base: '500.000000',
        impuesto: '002',
        tipo_factor: 'Tasa',
        tasa_o_cuota: '0.080000',
        importe: '40.000000',
      },
      {
        base: '500.000000',
        impuesto: '002',
        tipo_factor: 'Tasa',
        tasa_o_cuota: '0.160000',
        importe: '80.000000',
      },
      {
        base: '500.000000',
        impuesto: '003',
        tipo_factor: 'Tasa',
        tasa_o_cuota: '0.080000',
        importe: '40.000000',
      },
    ]);
    expect(totales).toEqual({
      total_traslados_base_iva16: '500.00',
      total_traslados_impuesto_iva16: '80.00',
      total_traslados_base_iva8: '500.00',
      total_traslados_impuesto_iva8: '40.00',
      total_traslados_base_iva0: '500.00',
      total_traslados_impuesto_iva0: '0.00',
      total_traslados_base_iva_exento: '500.00',
      monto_total_pagos: '2160.00',
    });
  });

  it('objeto_imp 01: no ImpuestosDR, no ImpuestosP, Totales only MontoTotalPagos', () => {
    const { pagos, totales } = uno(
      pago({}, [documento({ objeto_imp: '01', total_factura: undefined, impuestos_factura: undefined })]),
    );
    expect(pagos[0]!.documentos[0]!.impuestos).toBeUndefined();
    expect(pagos[0]!.impuestos).toBeUndefined();
    expect(totales).toEqual({ monto_total_pagos: '6960.00' });
  });

  it('accepts already prorated rows (impuestos_dr) and keeps them as given', () => {
    const { pagos } = uno(
      pago({}, [
        documento({
          total_factura: undefined,
          impuestos_factura: undefined,
          impuestos_dr: { traslados: [{ ...IVA16, base: '6000.01', importe: '960.00' }] },
        }),
      ]),
    );
    expect(pagos[0]!.documentos[0]!.impuestos!.traslados).toEqual([
      {
        base: '6000.010000',
        impuesto: '002',
        tipo_factor: 'Tasa',
        tasa_o_cuota: '0.160000',
        importe: '960.000000',
      },
    ]);
  });
});

describe('currencies', () => {
  it('MXN payment of a USD invoice: EquivalenciaDR (USD per MXN) converts ImpPagado and the DR taxes', () => {
    // Invoice USD 1,160.00 = 1,000 + IVA 160; 580.00 USD paid with MXN 11,600.00 at 20 MXN/USD (0.05 USD per MXN).
    const { pagos, totales } = uno(
      pago({}, [
        documento({
          moneda: 'USD',
          equivalencia: '0.05',
          imp_saldo_anterior: '1160.00',
          imp_pagado: '580.00',
          total_factura: '1160.00',
          impuestos_factura: { traslados: [{ ...IVA16, base: '1000.00', importe: '160.00' }] },
        }),
      ]),
    );
    const [p] = pagos;
    expect(p!.documentos[0]).toMatchObject({
      moneda: 'USD',
      equivalencia: '0.05',
      imp_saldo_insoluto: '580.00',
    });
    expect(p!.documentos[0]!.impuestos!.traslados[0]).toMatchObject({
      base: '500.000000',
      importe: '80.000000',
    });
    expect(p!.impuestos!.traslados[0]).toMatchObject({ base: '10000.000000', importe: '1600.000000' });
    expect(p!.monto).toBe('11600.00');
    expect(totales).toEqual({
      total_traslados_base_iva16: '10000.00',
      total_traslados_impuesto_iva16: '1600.00',
      monto_total_pagos: '11600.00',
    });
  });

  it('USD payment of an MXN invoice: ImpuestosP in USD, Totales back in MXN with TipoCambioP', () => {
    const { pagos, totales } = uno(
      pago({ moneda: 'USD', tipo_cambio: '17.50' }, [
        documento({
          equivalencia: '17.50',
          imp_saldo_anterior: '11600.00',
          imp_pagado: '11600.00',
          total_factura: '11600.00',
          impuestos_factura: { traslados: [{ ...IVA16, base: '10000.00', importe: '1600.00' }] },
        }),
      ]),
    );
    const [p] = pagos;
    // Written without trailing zeros, as given; 11600 / 17.5 = 662.857142…, truncated.
    expect(p).toMatchObject({ tipo_cambio: '17.5', monto: '662.85', monto_minimo: '662.85' });
    expect(p!.documentos[0]).toMatchObject({ equivalencia: '17.5', imp_saldo_insoluto: '0.00' });
    expect(p!.impuestos!.traslados[0]).toMatchObject({ base: '571.428571', importe: '91.428571' });
    // 571.428571 × 17.5 = 9999.9999925; 91.428571 × 17.5 = 1599.9999925; 662.85 × 17.5 = 11599.875.
    expect(totales).toEqual({
      total_traslados_base_iva16: '10000.00',
      total_traslados_impuesto_iva16: '1600.00',
      monto_total_pagos: '11599.88',
    });
  });

  it('a given Monto above the minimum is kept, with the MonedaP decimals (JPY has none)', () => {
    const { pagos } = uno(
      pago({ moneda: 'JPY', decimales_moneda: 0, tipo_cambio: '0.115', monto: '100870' }, [
        documento({ equivalencia: '0.115', imp_saldo_anterior: '13920.00', imp_pagado: '11600.00' }),
      ]),
    );
    // 11600 MXN / 0.115 MXN per yen = 100869.56… yen, truncated to 0 decimals.
    expect(pagos[0]).toMatchObject({ monto: '100870', monto_minimo: '100869', tipo_cambio: '0.115' });
  });

  it('equal currencies are written EquivalenciaDR "1" even if given as 1.0000000000; a bare date gets 12:00:00', () => {
    const { pagos } = uno(pago({ fecha_pago: '2024-03-15' }, [documento({ equivalencia: '1.0000000000' })]));
    expect(pagos[0]!.fecha_pago).toBe('2024-03-15T12:00:00');
    expect(pagos[0]!.documentos[0]!.equivalencia).toBe('1');
  });

  it('several Pagos in several currencies add up in Totales', () => {
    const { pagos, totales } = calcular({
      pagos: [
        pago(),
        pago({ moneda: 'USD', tipo_cambio: '20' }, [
          documento({
            uuid: UUID_B,
            equivalencia: '20',
            imp_pagado: '6960.00',
            imp_saldo_anterior: '6960.00',
          }),
        ]),
      ],
    });
    expect(pagos.map((p) => p.monto)).toEqual(['6960.00', '348.00']);
    expect(pagos[1]!.impuestos!.traslados[0]).toMatchObject({ base: '300.000000', importe: '48.000000' });
    expect(totales).toEqual({
      total_traslados_base_iva16: '12000.00',
      total_traslados_impuesto_iva16: '1920.00',
      monto_total_pagos: '13920.00',
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('violations', () => {
  const errores = (entrada: EntradaPagos) => {
    const resultado = calcularPagos(entrada);
    if (resultado.ok) throw new Error('se esperaban violaciones');
    for (const v of resultado.violaciones) expect(v.mensaje).toMatch(/^[A-ZÁÉÍÓÚÑ]/);
    return resultado.violaciones.map(({ codigo, parametro, sat }) => ({ codigo, parametro, sat }));
  };
  const deUno = (p: PagoEntrada) => errores({ pagos: [p] });
  const doc = (cambios: Partial<DocumentoPagadoEntrada>) => deUno(pago({}, [documento(cambios)]));
  const D0 = 'pagos[0].documentos[0]';
  const lineaFactura = (
    cambios: Partial<LineaImpuestoPago>,
    clase: 'traslados' | 'retenciones' = 'traslados',
  ) => doc({ impuestos_factura: { [clase]: [{ ...IVA16, base: '12000.00', ...cambios }] } });

  it.each<[string, () => ReturnType<typeof errores>, { codigo: string; parametro: string; sat?: string }[]]>([
    ['no payments', () => errores({ pagos: [] }), [{ codigo: 'pagos_requeridos', parametro: 'pagos' }]],
    [
      'fecha_pago with a zone',
      () => deUno(pago({ fecha_pago: '2024-03-15T10:30:00Z' })),
      [{ codigo: 'fecha_pago_invalida', parametro: 'pagos[0].fecha_pago' }],
    ],
    [
      'forma_pago 99',
      () => deUno(pago({ forma_pago: '99' })),
      [{ codigo: 'forma_pago_no_permitida', parametro: 'pagos[0].forma_pago', sat: 'CRP20212' }],
    ],
    [
      'forma_pago not two digits',
      () => deUno(pago({ forma_pago: '3' })),
      [{ codigo: 'forma_pago_invalida', parametro: 'pagos[0].forma_pago' }],
    ],
    [
      'MonedaP XXX',
      () => deUno(pago({ moneda: 'XXX', decimales_moneda: 0 }, [documento({ equivalencia: '1' })])),
      [{ codigo: 'moneda_no_permitida', parametro: 'pagos[0].moneda', sat: 'CRP20213' }],
    ],
    [
      'MonedaP not a code',
      () => deUno(pago({ moneda: 'usd', tipo_cambio: '17' }, [documento({ equivalencia: '17' })])),
      [{ codigo: 'moneda_invalida', parametro: 'pagos[0].moneda' }],
    ],
    [
      'MonedaDR XXX',
      () =>
        doc({
          moneda: 'XXX',
          decimales_moneda: 0,
          imp_saldo_anterior: '13920',
          imp_pagado: '6960',
          total_factura: '13920',
        }),
      [{ codigo: 'moneda_no_permitida', parametro: `${D0}.moneda`, sat: 'CRP20236' }],
    ],
    [
      'TipoCambioP missing for USD',
      () => deUno(pago({ moneda: 'USD' }, [documento({ equivalencia: '17' })])),
      [{ codigo: 'tipo_cambio_requerido', parametro: 'pagos[0].tipo_cambio', sat: 'CRP20214' }],
    ],
    [
      'TipoCambioP other than 1 for MXN',
      () => deUno(pago({ tipo_cambio: '1.5' })),
      [{ codigo: 'tipo_cambio_invalido', parametro: 'pagos[0].tipo_cambio', sat: 'CRP20215' }],
    ],
    [
      'TipoCambioP with 7 decimals',
      () => deUno(pago({ moneda: 'USD', tipo_cambio: '17.1234567' }, [documento({ equivalencia: '17' })])),
      [{ codigo: 'tipo_cambio_invalido', parametro: 'pagos[0].tipo_cambio' }],
    ],
    [
      // The probe's payment: 50 USD at 0.000001 MXN each is worth nothing in MontoTotalPagos.
      'TipoCambioP that makes the payment worth less than a cent',
      () =>
        deUno(
          pago({ moneda: 'USD', tipo_cambio: '0.000001', monto: '50.00' }, [
            documento({ moneda: 'EUR', equivalencia: '0.9', imp_pagado: '45.00' }),
          ]),
        ),
      [{ codigo: 'tipo_cambio_fuera_de_rango', parametro: 'pagos[0].tipo_cambio' }],
    ],
    [
      'TipoCambioP that makes the payment more than 18 integer digits of MXN',
      () =>
        deUno(
          pago({ moneda: 'USD', tipo_cambio: '999999999999.999999', monto: '2000000.00' }, [
            documento({ moneda: 'EUR', equivalencia: '0.9', imp_pagado: '45.00' }),
          ]),
        ),
      [{ codigo: 'tipo_cambio_fuera_de_rango', parametro: 'pagos[0].tipo_cambio' }],
    ],
    [
      'EquivalenciaDR of an MXN invoice other than TipoCambioP',
      () =>
        deUno(
          pago({ moneda: 'USD', tipo_cambio: '17.50', monto: '400.00' }, [
            documento({ equivalencia: '17.00' }),
          ]),
        ),
      [{ codigo: 'equivalencia_incoherente', parametro: `${D0}.equivalencia` }],
    ],
    [
      'EquivalenciaDR so large that what is paid of the invoice is worth less than a cent of MonedaP',
      () =>
        deUno(
          pago({ moneda: 'USD', tipo_cambio: '17.50', monto: '0.01' }, [
            documento({ moneda: 'EUR', equivalencia: '999999999999999999.999999', imp_pagado: '6960.00' }),
          ]),
        ),
      [{ codigo: 'equivalencia_fuera_de_rango', parametro: `${D0}.equivalencia` }],
    ],
    [
      'Monto zero',
      () => deUno(pago({ monto: '0.00' })),
      [{ codigo: 'monto_invalido', parametro: 'pagos[0].monto', sat: 'CRP20218' }],
    ],
    [
      'Monto not a decimal',
      () => deUno(pago({ monto: '1,000.00' })),
      [{ codigo: 'monto_invalido', parametro: 'pagos[0].monto' }],
    ],
    [
      'Monto with more decimals than MonedaP',
      () => deUno(pago({ monto: '6960.001' })),
      [{ codigo: 'decimales_excedidos', parametro: 'pagos[0].monto', sat: 'CRP20219' }],
    ],
    [
      'Monto below the minimum',
      () => deUno(pago({ monto: '6959.99' })),
      [{ codigo: 'monto_insuficiente', parametro: 'pagos[0].monto', sat: 'CRP20217' }],
    ],
    [
      'no documents',
      () => deUno(pago({}, [])),
      [{ codigo: 'documentos_requeridos', parametro: 'pagos[0].documentos' }],
    ],
    [
      'bad UUID',
      () => doc({ uuid: 'F-100' }),
      [{ codigo: 'id_documento_invalido', parametro: `${D0}.uuid` }],
    ],
    [
      'EquivalenciaDR missing with different currencies',
      () => doc({ moneda: 'USD' }),
      [{ codigo: 'equivalencia_requerida', parametro: `${D0}.equivalencia`, sat: 'CRP20237' }],
    ],
    [
      'EquivalenciaDR other than 1 with equal currencies',
      () => doc({ equivalencia: '1.05' }),
      [{ codigo: 'equivalencia_invalida', parametro: `${D0}.equivalencia`, sat: 'CRP20238' }],
    ],
    [
      'EquivalenciaDR with 11 decimals',
      () => doc({ moneda: 'USD', equivalencia: '0.05638822161' }),
      [{ codigo: 'equivalencia_invalida', parametro: `${D0}.equivalencia` }],
    ],
    [
      'NumParcialidad 0',
      () => doc({ num_parcialidad: 0 }),
      [{ codigo: 'num_parcialidad_invalida', parametro: `${D0}.num_parcialidad` }],
    ],
    [
      'ImpSaldoAnt zero',
      () => doc({ imp_saldo_anterior: '0.00', imp_pagado: '0.00' }),
      [
        { codigo: 'imp_saldo_anterior_invalido', parametro: `${D0}.imp_saldo_anterior`, sat: 'CRP20239' },
        { codigo: 'imp_pagado_invalido', parametro: `${D0}.imp_pagado`, sat: 'CRP20241' },
      ],
    ],
    [
      'ImpSaldoAnt not a decimal',
      () => doc({ imp_saldo_anterior: '-5' }),
      [{ codigo: 'imp_saldo_anterior_invalido', parametro: `${D0}.imp_saldo_anterior` }],
    ],
    [
      'ImpSaldoAnt with more decimals than MonedaDR',
      () => doc({ imp_saldo_anterior: '13919.999' }),
      [{ codigo: 'decimales_excedidos', parametro: `${D0}.imp_saldo_anterior`, sat: 'CRP20240' }],
    ],
    [
      'ImpPagado with more decimals than MonedaDR',
      () => doc({ imp_pagado: '6960.001' }),
      [{ codigo: 'decimales_excedidos', parametro: `${D0}.imp_pagado`, sat: 'CRP20242' }],
    ],
    [
      'ImpPagado above ImpSaldoAnt',
      () => doc({ imp_saldo_anterior: '5000.00', imp_pagado: '6960.00' }),
      [{ codigo: 'imp_pagado_excede_saldo', parametro: `${D0}.imp_pagado`, sat: 'CRP20244' }],
    ],
    [
      'ObjetoImpDR outside c_ObjetoImp',
      () => doc({ objeto_imp: '09' }),
      [{ codigo: 'objeto_imp_invalido', parametro: `${D0}.objeto_imp`, sat: 'CRP20245' }],
    ],
    [
      'ObjetoImpDR 02 without taxes',
      () => doc({ impuestos_factura: { traslados: [] } }),
      [{ codigo: 'impuestos_requeridos', parametro: `${D0}.impuestos_factura`, sat: 'CRP20246' }],
    ],
    [
      'ObjetoImpDR 01 with taxes',
      () => doc({ objeto_imp: '01' }),
      [{ codigo: 'impuestos_no_permitidos', parametro: `${D0}.impuestos_factura`, sat: 'CRP20247' }],
    ],
    [
      'both invoice and prorated taxes',
      () => doc({ impuestos_dr: { traslados: [{ ...IVA16, base: '6000', importe: '960' }] } }),
      [{ codigo: 'impuestos_ambiguos', parametro: `${D0}.impuestos_dr` }],
    ],
    [
      'invoice taxes without the invoice total',
      () => doc({ total_factura: undefined }),
      [{ codigo: 'total_factura_requerido', parametro: `${D0}.total_factura` }],
    ],
    [
      'invoice total zero',
      () => doc({ total_factura: '0' }),
      [{ codigo: 'total_factura_invalido', parametro: `${D0}.total_factura` }],
    ],
    [
      'previous balance above the invoice total',
      () => doc({ total_factura: '10000.00' }),
      [{ codigo: 'saldo_anterior_excede_total', parametro: `${D0}.imp_saldo_anterior` }],
    ],
    [
      'traslado impuesto outside c_Impuesto',
      () => lineaFactura({ impuesto: '004' }),
      [
        {
          codigo: 'impuesto_invalido',
          parametro: `${D0}.impuestos_factura.traslados[0].impuesto`,
          sat: 'CRP20256',
        },
      ],
    ],
    [
      'retención impuesto outside c_Impuesto',
      () => lineaFactura({ impuesto: '004' }, 'retenciones'),
      [
        {
          codigo: 'impuesto_invalido',
          parametro: `${D0}.impuestos_factura.retenciones[0].impuesto`,
          sat: 'CRP20250',
        },
      ],
    ],
    [
      'ISR as traslado',
      () => lineaFactura({ impuesto: '001' }),
      [{ codigo: 'impuesto_invalido', parametro: `${D0}.impuestos_factura.traslados[0].impuesto` }],
    ],
    [
      'traslado base zero',
      () => lineaFactura({ base: '0.00' }),
      [{ codigo: 'base_invalida', parametro: `${D0}.impuestos_factura.traslados[0].base`, sat: 'CRP20255' }],
    ],
    [
      'retención base zero',
      () => lineaFactura({ base: '0' }, 'retenciones'),
      [
        {
          codigo: 'base_invalida',
          parametro: `${D0}.impuestos_factura.retenciones[0].base`,
          sat: 'CRP20249',
        },
      ],
    ],
    [
      'base with 7 decimals',
      () => lineaFactura({ base: '12000.0000001' }),
      [{ codigo: 'base_invalida', parametro: `${D0}.impuestos_factura.traslados[0].base` }],
    ],
    [
      'traslado tipo_factor outside c_TipoFactor',
      () => lineaFactura({ tipo_factor: 'tasa' }),
      [
        {
          codigo: 'tipo_factor_invalido',
          parametro: `${D0}.impuestos_factura.traslados[0].tipo_factor`,
          sat: 'CRP20257',
        },
      ],
    ],
    [
      'retención tipo_factor outside c_TipoFactor',
      () => lineaFactura({ tipo_factor: 'Fijo' }, 'retenciones'),
      [
        {
          codigo: 'tipo_factor_invalido',
          parametro: `${D0}.impuestos_factura.retenciones[0].tipo_factor`,
          sat: 'CRP20251',
        },
      ],
    ],
    [
      'Exento retención',
      () => lineaFactura({ tipo_factor: 'Exento', tasa_o_cuota: undefined }, 'retenciones'),
      [
        {
          codigo: 'exento_en_retencion',
          parametro: `${D0}.impuestos_factura.retenciones[0].tipo_factor`,
          sat: 'CRP20252',
        },
      ],
    ],
    [
      'Exento with a tasa',
      () => lineaFactura({ tipo_factor: 'Exento' }),
      [
        {
          codigo: 'exento_con_tasa',
          parametro: `${D0}.impuestos_factura.traslados[0].tasa_o_cuota`,
          sat: 'CRP20258',
        },
      ],
    ],
    [
      'Tasa without tasa_o_cuota',
      () => lineaFactura({ tasa_o_cuota: null }),
      [{ codigo: 'tasa_invalida', parametro: `${D0}.impuestos_factura.traslados[0].tasa_o_cuota` }],
    ],
    [
      'prorated row without importe',
      () =>
        doc({
          total_factura: undefined,
          impuestos_factura: undefined,
          impuestos_dr: { traslados: [{ ...IVA16, base: '6000' }] },
        }),
      [{ codigo: 'importe_requerido', parametro: `${D0}.impuestos_dr.traslados[0].importe` }],
    ],
    [
      'prorated row with a bad importe',
      () =>
        doc({
          total_factura: undefined,
          impuestos_factura: undefined,
          impuestos_dr: { traslados: [{ ...IVA16, base: '6000', importe: '960.0000001' }] },
        }),
      [{ codigo: 'importe_invalido', parametro: `${D0}.impuestos_dr.traslados[0].importe` }],
    ],
    [
      'payment so small the prorated base rounds to zero',
      () =>
        doc({
          imp_saldo_anterior: '100000000.00',
          imp_pagado: '0.01',
          total_factura: '100000000.00',
          impuestos_factura: { traslados: [{ ...IVA16, base: '0.01' }] },
        }),
      [{ codigo: 'base_dr_cero', parametro: `${D0}.impuestos_factura.traslados[0].base`, sat: 'CRP20255' }],
    ],
  ])('%s', (_nombre, ejecutar, esperado) => {
    expect(ejecutar()).toEqual(esperado.map((e) => ({ sat: undefined, ...e })));
  });

  it("an MXN invoice may take an EquivalenciaDR that differs from TipoCambioP by Monto's rounding", () => {
    // 6960.00 MXN is 397.71 USD at 17.50 and 397.70 at 17.5003143999 (the SAT's samples carry such values).
    const p = (equivalencia: string) => {
      const r = calcularPagos({
        pagos: [
          pago({ moneda: 'USD', tipo_cambio: '17.50', monto: '397.72' }, [documento({ equivalencia })]),
        ],
      });
      return r.ok ? [] : r.violaciones;
    };
    expect(p('17.5003143999')).toEqual([]);
    expect(p('17.5')).toEqual([]);
    expect(p('17.52').map((v) => v.codigo)).toEqual(['equivalencia_incoherente']);
  });

  it('reports every broken rule of every payment and document at once', () => {
    const codigos = errores({
      pagos: [
        pago({ forma_pago: '99' }, [documento({ imp_pagado: '0' }), documento({ moneda: 'USD' })]),
        pago({ moneda: 'USD' }, [documento({ equivalencia: '17', objeto_imp: '03' })]),
      ],
    }).map((v) => `${v.parametro}:${v.codigo}`);
    expect(codigos).toEqual([
      'pagos[0].forma_pago:forma_pago_no_permitida',
      'pagos[0].documentos[0].imp_pagado:imp_pagado_invalido',
      'pagos[0].documentos[1].equivalencia:equivalencia_requerida',
      'pagos[1].tipo_cambio:tipo_cambio_requerido',
      'pagos[1].documentos[0].impuestos_factura:impuestos_no_permitidos',
    ]);
  });

  it('a decimales_moneda outside c_Moneda is a programming error, not a violation', () => {
    expect(() => calcularPagos({ pagos: [pago({ decimales_moneda: 2.5 })] })).toThrow(/decimales_moneda/);
  });
});
