import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { cadenaOriginal } from '../../cfdi/cadena';
import { NS_CFDI40, NS_PAGOS20, NS_TFD, NS_XSI } from '../../cfdi/xml/espacios';
import type { Nodo } from '../../cfdi/xml/nodo';
import { parsear } from '../../cfdi/xml/parsear';
import { serializar } from '../../cfdi/xml/serializar';
import { directorioTemporal, validarConEsquema, xsltprocArchivos, xsltprocLote } from '../support/xslt';

/**
 * Property test: random CFDI 4.0 documents (seeded, reproducible) must get from `cadenaOriginal` exactly
 * what the SAT XSLT prints through xsltproc. The documents are schema-valid (a sample is checked with
 * xmllint) but deliberately awkward: every optional node and attribute is a coin toss, attribute order is
 * shuffled, prefixes vary, values carry runs of spaces, tabs, newlines, NBSP, XML specials and non-ASCII.
 * A tenth of them are also "mutilated" (required attributes removed, empty ones added), outside the
 * schema, to exercise the Requerido/Opcional rules; those are left out of the schema sample.
 */

const SEMILLA = Number(process.env['SEMILLA_CADENA'] ?? 20250214);
const CANTIDAD = 320;
const CADA_CUANTOS_ESQUEMA = 4;

// --- seeded PRNG (mulberry32) -------------------------------------------------------------------------

function prng(semilla: number): () => number {
  let a = semilla >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Azar {
  constructor(readonly siguiente: () => number) {}
  entero(min: number, max: number): number {
    return min + Math.floor(this.siguiente() * (max - min + 1));
  }
  moneda(p = 0.5): boolean {
    return this.siguiente() < p;
  }
  uno<T>(lista: readonly T[]): T {
    return lista[this.entero(0, lista.length - 1)] as T;
  }
  digitos(n: number): string {
    let s = '';
    for (let k = 0; k < n; k++) s += String(this.entero(0, 9));
    return s;
  }
  de(alfabeto: string, n: number): string {
    const chars = [...alfabeto];
    let s = '';
    for (let k = 0; k < n; k++) s += this.uno(chars);
    return s;
  }
  barajar<T>(lista: T[]): T[] {
    for (let k = lista.length - 1; k > 0; k--) {
      const j = this.entero(0, k);
      [lista[k], lista[j]] = [lista[j] as T, lista[k] as T];
    }
    return lista;
  }
}

// --- catalog codes, from the same CSVs the stand-in catCFDI.xsd enumerates ------------------------------

const DATOS = join(__dirname, '..', '..', 'db', 'catalogos', 'datos');

function ids(archivo: string): string[] {
  const bytes = readFileSync(join(DATOS, archivo));
  const texto = (archivo.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
  return texto
    .split('\n')
    .slice(1)
    .filter((l) => l.trim() !== '')
    .map((l) => (l.split(',')[0] as string).replace(/^"|"$/g, ''));
}

const CAT = {
  claveProdServ: ids('c_ClaveProdServ.csv.gz'),
  claveUnidad: ids('c_ClaveUnidad.csv'),
  codigoPostal: ids('c_CodigoPostal.csv.gz'),
  exportacion: ids('c_Exportacion.csv'),
  formaPago: ids('c_FormaPago.csv'),
  impuesto: ids('c_Impuesto.csv'),
  meses: ids('c_Meses.csv'),
  metodoPago: ids('c_MetodoPago.csv'),
  moneda: ids('c_Moneda.csv'),
  objetoImp: ids('c_ObjetoImp.csv'),
  pais: ids('c_Pais.csv'),
  periodicidad: ids('c_Periodicidad.csv'),
  regimenFiscal: ids('c_RegimenFiscal.csv'),
  tipoDeComprobante: ids('c_TipoDeComprobante.csv'),
  tipoRelacion: ids('c_TipoRelacion.csv'),
  usoCfdi: ids('c_UsoCFDI.csv'),
  tipoCadenaPago: ids('pagos_c_TipoCadenaPago.csv'),
};

// --- value generators ---------------------------------------------------------------------------------

// Pieces of free text: accents, ñ, €, emoji (outside the BMP), XML specials, NBSP (not XPath whitespace).
const PALABRAS = [
  'Servicio',
  'de',
  'consultoría',
  'AÑO',
  'ñandú',
  'Pingüino',
  'café',
  '€',
  '😀',
  '🧾',
  'H&E',
  '<b>',
  '"comillas"',
  "l'apóstrofo",
  'a>b',
  '&amp;',
  '&#9;',
  '#1',
  '50%',
  'x\u00a0y',
  '—',
  '中文',
  'ÁÉÍÓÚ',
];
const ESPACIOS = [' ', ' ', ' ', '  ', '\t', ' \t ', '\n', '\r\n', '   '];

/** Free text that still fits `[^|]{1,max}` after whitespace collapse. */
function texto(az: Azar, max: number): string {
  let s = az.moneda(0.3) ? az.uno(ESPACIOS) : '';
  const n = az.entero(1, 5);
  for (let k = 0; k < n; k++) {
    if (k > 0) s += az.uno(ESPACIOS);
    s += az.uno(PALABRAS);
  }
  if (az.moneda(0.3)) s += az.uno(ESPACIOS);
  return [...s.replace(/\s+/g, ' ').trim()].length <= max ? s : az.uno(PALABRAS);
}

/** A value of a collapsing XSD type may come with stray whitespace around it: still valid, still normalized. */
const conOrillas = (az: Azar, v: string): string =>
  az.moneda(0.15) ? `${az.uno([' ', '\t', '  ', '\n'])}${v}${az.uno(['', ' ', '\t '])}` : v;

function importe(az: Azar, decimales = az.entero(0, 6), minimo = 0): string {
  for (;;) {
    const entero = String(az.entero(0, az.moneda(0.1) ? 999999999 : 99999));
    const v = decimales === 0 ? entero : `${entero}.${az.digitos(decimales)}`;
    if (Number(v) > minimo || (minimo === 0 && az.moneda(0.05))) return conOrillas(az, v);
  }
}
const positivo = (az: Azar, decimales = az.entero(0, 6)): string => importe(az, decimales, 0.000001);
const tasa = (az: Azar): string =>
  conOrillas(
    az,
    az.uno([
      '0.160000',
      '0.080000',
      '0.000000',
      '0.106667',
      '0.100000',
      '0.012500',
      '0.265000',
      '1.5',
      '21.5',
    ]),
  );

const LETRAS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
function rfc(az: Azar, moral = az.moneda()): string {
  const fecha = `${az.digitos(2)}${String(az.entero(1, 12)).padStart(2, '0')}${String(az.entero(1, 28)).padStart(2, '0')}`;
  return `${az.de(`${LETRAS}&Ñ`, moral ? 3 : 4)}${fecha}${az.de(`${LETRAS}0123456789`, 2)}${az.de('0123456789A', 1)}`;
}
const uuid = (az: Azar): string => {
  const h = (n: number): string => az.de(az.moneda() ? '0123456789abcdef' : '0123456789ABCDEF', n);
  return `${h(8)}-${h(4)}-${h(4)}-${h(4)}-${h(12)}`;
};
const fecha = (az: Azar): string =>
  `20${az.entero(17, 29)}-${String(az.entero(1, 12)).padStart(2, '0')}-${String(az.entero(1, 28)).padStart(2, '0')}T` +
  `${String(az.entero(0, 23)).padStart(2, '0')}:${String(az.entero(0, 59)).padStart(2, '0')}:${String(az.entero(0, 59)).padStart(2, '0')}`;
const base64 = (az: Azar, grupos: number): string =>
  az.de('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', grupos * 4);
const pedimento = (az: Azar): string =>
  `${az.digitos(2)}  ${az.digitos(2)}  ${az.digitos(4)}  ${az.digitos(7)}`;

// --- document generator -------------------------------------------------------------------------------

interface Contexto {
  az: Azar;
  /** Prefixes in use: mostly the usual ones, sometimes others (the namespace is what counts). */
  c: (local: string) => string;
  p: (local: string) => string;
  rasgos: Set<string>;
}

/** Node with the given attributes (undefined = omitted), order sometimes shuffled. */
function el(
  ctx: Contexto,
  nombre: string,
  atributos: Record<string, string | undefined>,
  hijos: Nodo[] = [],
): Nodo {
  let entradas = Object.entries(atributos).filter((e): e is [string, string] => e[1] !== undefined);
  if (ctx.az.moneda(0.3)) {
    const declaraciones = entradas.filter(([k]) => k.startsWith('xmlns'));
    entradas = [...declaraciones, ...ctx.az.barajar(entradas.filter(([k]) => !k.startsWith('xmlns')))];
  }
  return { nombre, atributos: Object.fromEntries(entradas), hijos };
}

const talVez = <T>(ctx: Contexto, rasgo: string, p: number, hacer: () => T): T | undefined => {
  if (!ctx.az.moneda(p)) return undefined;
  ctx.rasgos.add(rasgo);
  return hacer();
};
const varios = (az: Azar, min: number, max: number, hacer: () => Nodo): Nodo[] =>
  Array.from({ length: az.entero(min, max) }, hacer);

function trasladoConcepto(ctx: Contexto, nombre: string): Nodo {
  const { az } = ctx;
  const factor = az.uno(['Tasa', 'Tasa', 'Cuota', 'Exento']);
  if (factor === 'Exento') ctx.rasgos.add('exento');
  return el(ctx, nombre, {
    Base: positivo(az),
    Impuesto: az.uno(CAT.impuesto),
    TipoFactor: factor,
    TasaOCuota: factor === 'Exento' ? undefined : tasa(az),
    Importe: factor === 'Exento' ? undefined : importe(az),
  });
}

function retencionConcepto(ctx: Contexto, nombre: string): Nodo {
  const { az } = ctx;
  return el(ctx, nombre, {
    Base: positivo(az),
    Impuesto: az.uno(CAT.impuesto),
    TipoFactor: az.uno(['Tasa', 'Cuota']),
    TasaOCuota: tasa(az),
    Importe: importe(az),
  });
}

function concepto(ctx: Contexto): Nodo {
  const { az, c } = ctx;
  const hijos: Nodo[] = [];
  const impuestos = talVez(ctx, 'impuestosConcepto', 0.7, () => {
    const grupos: Nodo[] = [];
    const t = talVez(ctx, 'trasladosConcepto', 0.85, () =>
      el(
        ctx,
        c('Traslados'),
        {},
        varios(az, 1, 3, () => trasladoConcepto(ctx, c('Traslado'))),
      ),
    );
    if (t) grupos.push(t);
    const r = talVez(ctx, 'retencionesConcepto', 0.4, () =>
      el(
        ctx,
        c('Retenciones'),
        {},
        varios(az, 1, 2, () => retencionConcepto(ctx, c('Retencion'))),
      ),
    );
    if (r) grupos.push(r);
    return el(ctx, c('Impuestos'), {}, grupos);
  });
  if (impuestos) hijos.push(impuestos);
  const terceros = talVez(ctx, 'aCuentaTerceros', 0.15, () =>
    el(ctx, c('ACuentaTerceros'), {
      RfcACuentaTerceros: rfc(az),
      NombreACuentaTerceros: texto(az, 300),
      RegimenFiscalACuentaTerceros: az.uno(CAT.regimenFiscal),
      DomicilioFiscalACuentaTerceros: az.digitos(5),
    }),
  );
  if (terceros) hijos.push(terceros);
  hijos.push(
    ...(talVez(ctx, 'informacionAduanera', 0.15, () =>
      varios(az, 1, 2, () => el(ctx, c('InformacionAduanera'), { NumeroPedimento: pedimento(az) })),
    ) ?? []),
  );
  hijos.push(
    ...(talVez(ctx, 'cuentaPredial', 0.1, () =>
      varios(az, 1, 2, () =>
        el(ctx, c('CuentaPredial'), { Numero: az.de('0123456789abcXYZ', az.entero(1, 20)) }),
      ),
    ) ?? []),
  );
  hijos.push(
    ...(talVez(ctx, 'parte', 0.1, () =>
      varios(az, 1, 2, () =>
        el(
          ctx,
          c('Parte'),
          {
            ClaveProdServ: az.uno(CAT.claveProdServ),
            NoIdentificacion: talVez(ctx, 'parteNoIdentificacion', 0.5, () => texto(az, 100)),
            Cantidad: positivo(az),
            Unidad: talVez(ctx, 'parteUnidad', 0.5, () => texto(az, 20)),
            Descripcion: texto(az, 1000),
            ValorUnitario: talVez(ctx, 'parteValorUnitario', 0.5, () => importe(az)),
            Importe: talVez(ctx, 'parteImporte', 0.5, () => importe(az)),
          },
          az.moneda(0.5) ? [el(ctx, c('InformacionAduanera'), { NumeroPedimento: pedimento(az) })] : [],
        ),
      ),
    ) ?? []),
  );
  return el(
    ctx,
    c('Concepto'),
    {
      ClaveProdServ: az.uno(CAT.claveProdServ),
      NoIdentificacion: talVez(ctx, 'noIdentificacion', 0.4, () => texto(az, 100)),
      Cantidad: positivo(az),
      ClaveUnidad: az.uno(CAT.claveUnidad),
      Unidad: talVez(ctx, 'unidad', 0.4, () => texto(az, 20)),
      Descripcion: texto(az, 1000),
      ValorUnitario: importe(az),
      Importe: importe(az),
      Descuento: talVez(ctx, 'descuentoConcepto', 0.3, () => importe(az)),
      ObjetoImp: az.uno(CAT.objetoImp),
    },
    hijos,
  );
}

function impuestosGlobales(ctx: Contexto): Nodo {
  const { az, c } = ctx;
  const grupos: Nodo[] = [];
  const r = talVez(ctx, 'retencionesGlobales', 0.5, () =>
    el(
      ctx,
      c('Retenciones'),
      {},
      varios(az, 1, 3, () =>
        el(ctx, c('Retencion'), { Impuesto: az.uno(CAT.impuesto), Importe: importe(az) }),
      ),
    ),
  );
  if (r) grupos.push(r);
  const t = talVez(ctx, 'trasladosGlobales', 0.8, () =>
    el(
      ctx,
      c('Traslados'),
      {},
      varios(az, 1, 3, () => trasladoConcepto(ctx, c('Traslado'))),
    ),
  );
  if (t) grupos.push(t);
  return el(
    ctx,
    c('Impuestos'),
    {
      TotalImpuestosRetenidos: talVez(ctx, 'totalRetenidos', 0.6, () => importe(az)),
      TotalImpuestosTrasladados: talVez(ctx, 'totalTrasladados', 0.6, () => importe(az)),
    },
    grupos,
  );
}

function pagos(ctx: Contexto): Nodo {
  const { az, p } = ctx;
  const mxn = (): string => importe(az, az.entero(0, 2));
  const totales = el(ctx, p('Totales'), {
    TotalRetencionesIVA: talVez(ctx, 'totalesRetIVA', 0.3, mxn),
    TotalRetencionesISR: talVez(ctx, 'totalesRetISR', 0.3, mxn),
    TotalRetencionesIEPS: talVez(ctx, 'totalesRetIEPS', 0.2, mxn),
    TotalTrasladosBaseIVA16: talVez(ctx, 'totalesIVA16', 0.6, mxn),
    TotalTrasladosImpuestoIVA16: talVez(ctx, 'totalesIVA16', 0.6, mxn),
    TotalTrasladosBaseIVA8: talVez(ctx, 'totalesIVA8', 0.2, mxn),
    TotalTrasladosImpuestoIVA8: talVez(ctx, 'totalesIVA8', 0.2, mxn),
    TotalTrasladosBaseIVA0: talVez(ctx, 'totalesIVA0', 0.2, mxn),
    TotalTrasladosImpuestoIVA0: talVez(ctx, 'totalesIVA0', 0.2, mxn),
    TotalTrasladosBaseIVAExento: talVez(ctx, 'totalesExento', 0.2, mxn),
    MontoTotalPagos: mxn(),
  });
  const doctoRelacionado = (): Nodo => {
    const impuestosDR = talVez(ctx, 'impuestosDR', 0.7, () => {
      const grupos: Nodo[] = [];
      const r = talVez(ctx, 'retencionesDR', 0.4, () =>
        el(
          ctx,
          p('RetencionesDR'),
          {},
          varios(az, 1, 2, () => {
            const x = retencionConcepto(ctx, p('RetencionDR'));
            return el(ctx, p('RetencionDR'), renombrarDR(x.atributos));
          }),
        ),
      );
      if (r) grupos.push(r);
      const t = talVez(ctx, 'trasladosDR', 0.8, () =>
        el(
          ctx,
          p('TrasladosDR'),
          {},
          varios(az, 1, 3, () => {
            const x = trasladoConcepto(ctx, p('TrasladoDR'));
            return el(ctx, p('TrasladoDR'), renombrarDR(x.atributos));
          }),
        ),
      );
      if (t) grupos.push(t);
      return el(ctx, p('ImpuestosDR'), {}, grupos);
    });
    return el(
      ctx,
      p('DoctoRelacionado'),
      {
        IdDocumento: az.moneda(0.9) ? uuid(az) : `${az.digitos(3)}-${az.digitos(2)}-${az.digitos(9)}`,
        Serie: talVez(ctx, 'serieDR', 0.4, () => texto(az, 25)),
        Folio: talVez(ctx, 'folioDR', 0.4, () => texto(az, 40)),
        MonedaDR: az.uno(CAT.moneda),
        EquivalenciaDR: talVez(ctx, 'equivalenciaDR', 0.5, () =>
          conOrillas(az, `${az.entero(0, 30)}.${az.digitos(az.entero(1, 10))}`.replace(/^0\.0+$/, '1')),
        ),
        NumParcialidad: String(az.entero(1, 999)),
        ImpSaldoAnt: importe(az),
        ImpPagado: importe(az),
        ImpSaldoInsoluto: importe(az),
        ObjetoImpDR: az.uno(CAT.objetoImp),
      },
      impuestosDR ? [impuestosDR] : [],
    );
  };
  const pago = (): Nodo => {
    const impuestosP = talVez(ctx, 'impuestosP', 0.6, () => {
      const grupos: Nodo[] = [];
      const r = talVez(ctx, 'retencionesP', 0.4, () =>
        el(
          ctx,
          p('RetencionesP'),
          {},
          varios(az, 1, 2, () =>
            el(ctx, p('RetencionP'), { ImpuestoP: az.uno(CAT.impuesto), ImporteP: importe(az) }),
          ),
        ),
      );
      if (r) grupos.push(r);
      const t = talVez(ctx, 'trasladosP', 0.8, () =>
        el(
          ctx,
          p('TrasladosP'),
          {},
          varios(az, 1, 3, () => {
            const x = trasladoConcepto(ctx, p('TrasladoP'));
            const a = x.atributos;
            return el(ctx, p('TrasladoP'), {
              BaseP: a['Base'],
              ImpuestoP: a['Impuesto'],
              TipoFactorP: a['TipoFactor'],
              TasaOCuotaP: a['TasaOCuota'],
              ImporteP: a['Importe'],
            });
          }),
        ),
      );
      if (t) grupos.push(t);
      return el(ctx, p('ImpuestosP'), {}, grupos);
    });
    return el(
      ctx,
      p('Pago'),
      {
        FechaPago: fecha(az),
        FormaDePagoP: az.uno(CAT.formaPago),
        MonedaP: az.uno(CAT.moneda),
        TipoCambioP: talVez(ctx, 'tipoCambioP', 0.5, () => positivo(az)),
        Monto: importe(az),
        NumOperacion: talVez(ctx, 'numOperacion', 0.4, () => texto(az, 100)),
        RfcEmisorCtaOrd: talVez(ctx, 'rfcCtaOrd', 0.3, () =>
          az.moneda(0.3) ? 'XEXX010101000' : rfc(az, true),
        ),
        NomBancoOrdExt: talVez(ctx, 'nomBanco', 0.3, () => texto(az, 300)),
        CtaOrdenante: talVez(ctx, 'ctaOrdenante', 0.3, () => az.de('0123456789ABCZ_', az.entero(10, 30))),
        RfcEmisorCtaBen: talVez(ctx, 'rfcCtaBen', 0.3, () => rfc(az, true)),
        CtaBeneficiario: talVez(ctx, 'ctaBeneficiario', 0.3, () => az.de('0123456789', az.entero(10, 18))),
        TipoCadPago: talVez(ctx, 'tipoCadPago', 0.2, () => az.uno(CAT.tipoCadenaPago)),
        CertPago: talVez(ctx, 'certPago', 0.2, () => base64(az, 8)),
        CadPago: talVez(ctx, 'cadPago', 0.2, () => texto(az, 8192)),
        SelloPago: talVez(ctx, 'selloPago', 0.2, () => base64(az, 6)),
      },
      [...varios(az, 1, 3, doctoRelacionado), ...(impuestosP ? [impuestosP] : [])],
    );
  };
  return el(ctx, p('Pagos'), { Version: '2.0' }, [totales, ...varios(az, 1, 3, pago)]);
}

/** Base/Impuesto/… → BaseDR/ImpuestoDR/…, keeping order. */
const renombrarDR = (a: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(a).map(([k, v]) => [`${k}DR`, v]));

function timbreFalso(ctx: Contexto, declarar: boolean): Nodo {
  const { az } = ctx;
  return el(ctx, 'tfd:TimbreFiscalDigital', {
    'xmlns:tfd': declarar ? NS_TFD : undefined,
    Version: '1.1',
    UUID: uuid(az),
    FechaTimbrado: fecha(az),
    RfcProvCertif: rfc(az, true),
    SelloCFD: base64(az, 10),
    NoCertificadoSAT: az.digitos(20),
    SelloSAT: base64(az, 10),
  });
}

function comprobanteAleatorio(az: Azar): { comprobante: Nodo; rasgos: Set<string> } {
  const prefijoC = az.moneda(0.9) ? 'cfdi' : az.uno(['c', 'cfd4']);
  const prefijoP = az.moneda(0.85) ? 'pago20' : az.uno(['p', 'pagos']);
  const ctx: Contexto = {
    az,
    c: (l) => `${prefijoC}:${l}`,
    p: (l) => `${prefijoP}:${l}`,
    rasgos: new Set(),
  };
  if (prefijoC !== 'cfdi') ctx.rasgos.add('prefijoCfdiDistinto');
  const { c } = ctx;
  const conPagos = az.moneda(0.35);
  const pagosEnRaiz = conPagos && az.moneda(0.5);
  const hijos: Nodo[] = [];
  const global = talVez(ctx, 'informacionGlobal', 0.2, () =>
    el(ctx, c('InformacionGlobal'), {
      Periodicidad: az.uno(CAT.periodicidad),
      Meses: az.uno(CAT.meses),
      // No stray spaces here: libxml2 refuses them around an xs:short even with whiteSpace collapse.
      Año: String(az.entero(2019, 2030)),
    }),
  );
  if (global) hijos.push(global);
  hijos.push(
    ...(talVez(ctx, 'cfdiRelacionados', 0.25, () =>
      varios(az, 1, 2, () =>
        el(
          ctx,
          c('CfdiRelacionados'),
          { TipoRelacion: az.uno(CAT.tipoRelacion) },
          varios(az, 1, 3, () => el(ctx, c('CfdiRelacionado'), { UUID: conOrillas(az, uuid(az)) })),
        ),
      ),
    ) ?? []),
  );
  hijos.push(
    el(ctx, c('Emisor'), {
      Rfc: conOrillas(az, rfc(az)),
      Nombre: texto(az, 300),
      RegimenFiscal: az.uno(CAT.regimenFiscal),
      FacAtrAdquirente: talVez(ctx, 'facAtrAdquirente', 0.15, () => az.digitos(10)),
    }),
    el(ctx, c('Receptor'), {
      Rfc: rfc(az),
      Nombre: texto(az, 300),
      DomicilioFiscalReceptor: az.digitos(5),
      ResidenciaFiscal: talVez(ctx, 'residenciaFiscal', 0.2, () => az.uno(CAT.pais)),
      NumRegIdTrib: talVez(ctx, 'numRegIdTrib', 0.2, () => texto(az, 40)),
      RegimenFiscalReceptor: az.uno(CAT.regimenFiscal),
      UsoCFDI: az.uno(CAT.usoCfdi),
    }),
    el(
      ctx,
      c('Conceptos'),
      {},
      varios(az, 1, 6, () => concepto(ctx)),
    ),
  );
  const impuestos = talVez(ctx, 'impuestosGlobales', 0.6, () => impuestosGlobales(ctx));
  if (impuestos) hijos.push(impuestos);
  const complementos: Nodo[] = [];
  if (conPagos) {
    ctx.rasgos.add('pagos20');
    const p = pagos(ctx);
    if (!pagosEnRaiz) p.atributos = { [`xmlns:${prefijoP}`]: NS_PAGOS20, ...p.atributos };
    complementos.push(p);
  }
  const timbrado = talVez(ctx, 'timbre', 0.3, () => timbreFalso(ctx, true));
  if (timbrado) complementos.push(timbrado);
  if (complementos.length > 0 || az.moneda(0.1))
    hijos.push(el(ctx, c('Complemento'), {}, az.barajar(complementos)));
  const addenda = talVez(ctx, 'addenda', 0.1, () => el(ctx, c('Addenda'), {}, [timbreFalso(ctx, true)]));
  if (addenda) hijos.push(addenda);

  const ubicaciones = [`${NS_CFDI40} http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd`];
  if (conPagos) ubicaciones.push(`${NS_PAGOS20} http://www.sat.gob.mx/sitio_internet/cfd/Pagos/Pagos20.xsd`);
  const comprobante = el(
    ctx,
    c('Comprobante'),
    {
      [`xmlns:${prefijoC}`]: NS_CFDI40,
      'xmlns:xsi': NS_XSI,
      ...(pagosEnRaiz ? { [`xmlns:${prefijoP}`]: NS_PAGOS20 } : {}),
      'xsi:schemaLocation': ubicaciones.join(' '),
      Version: '4.0',
      Serie: talVez(ctx, 'serie', 0.5, () => texto(az, 25)),
      Folio: talVez(ctx, 'folio', 0.5, () => texto(az, 40)),
      Fecha: conOrillas(az, fecha(az)),
      Sello: base64(az, 20),
      FormaPago: talVez(ctx, 'formaPago', 0.6, () => az.uno(CAT.formaPago)),
      NoCertificado: az.digitos(20),
      Certificado: base64(az, 30),
      CondicionesDePago: talVez(ctx, 'condicionesDePago', 0.3, () => texto(az, 1000)),
      SubTotal: importe(az),
      Descuento: talVez(ctx, 'descuento', 0.3, () => importe(az)),
      Moneda: az.uno(CAT.moneda),
      TipoCambio: talVez(ctx, 'tipoCambio', 0.4, () => positivo(az)),
      Total: importe(az),
      TipoDeComprobante: conPagos ? 'P' : az.uno(CAT.tipoDeComprobante),
      Exportacion: az.uno(CAT.exportacion),
      MetodoPago: talVez(ctx, 'metodoPago', 0.5, () => az.uno(CAT.metodoPago)),
      LugarExpedicion: az.uno(CAT.codigoPostal),
      Confirmacion: talVez(ctx, 'confirmacion', 0.1, () => az.de('0123456789abcXYZ', 5)),
    },
    hijos,
  );
  return { comprobante, rasgos: ctx.rasgos };
}

/** Outside the schema on purpose: drops some attributes (required ones print `|` alone) and adds empty ones. */
function mutilar(az: Azar, nodo: Nodo): void {
  const claves = Object.keys(nodo.atributos).filter((k) => !k.startsWith('xmlns') && k !== 'Version');
  if (claves.length > 0 && az.moneda(0.2)) delete nodo.atributos[az.uno(claves)];
  if (claves.length > 0 && az.moneda(0.1)) nodo.atributos[az.uno(claves)] = az.uno(['', ' ', '\t\n']);
  for (const h of nodo.hijos) mutilar(az, h);
}

// --- the property -------------------------------------------------------------------------------------

interface Caso {
  indice: number;
  comprobante: Nodo;
  xml: string;
  archivo: string;
  mutilado: boolean;
  rasgos: Set<string>;
}

describe(`cadena original de ${CANTIDAD} comprobantes aleatorios (semilla ${SEMILLA})`, () => {
  const temporal = directorioTemporal('cfdi-aleatorios-');
  afterAll(() => temporal.borrar());

  const az = new Azar(prng(SEMILLA));
  const casos: Caso[] = Array.from({ length: CANTIDAD }, (_, indice) => {
    const { comprobante, rasgos } = comprobanteAleatorio(az);
    const mutilado = indice % 10 === 9;
    if (mutilado) mutilar(az, comprobante);
    const xml = serializar(comprobante);
    const archivo = join(temporal.ruta, `${String(indice).padStart(4, '0')}.xml`);
    writeFileSync(archivo, xml, 'utf8');
    return { indice, comprobante, xml, archivo, mutilado, rasgos };
  });
  let porXslt: string[] = [];
  // Every 16th document also through its own xsltproc process: the batch wrapper changes nothing.
  const testigos = casos.filter((c) => c.indice % 16 === 0);
  let porXsltIndividual: string[] = [];

  beforeAll(async () => {
    porXslt = await xsltprocLote(casos.map((c) => c.archivo));
    porXsltIndividual = await xsltprocArchivos(testigos.map((c) => c.archivo));
  }, 120000);

  it('xsltproc por lotes da lo mismo que un proceso por archivo', () => {
    expect(testigos.length).toBeGreaterThanOrEqual(20);
    expect(testigos.map((c) => porXslt[c.indice])).toEqual(porXsltIndividual);
  });

  it('cadenaOriginal coincide con xsltproc en todos', () => {
    const diferentes = casos
      .filter((c, k) => cadenaOriginal(c.comprobante) !== porXslt[k])
      .map((c) => `#${c.indice} (${c.archivo})`);
    expect(diferentes).toEqual([]);
    expect(porXslt).toHaveLength(CANTIDAD);
  });

  it('el generador cubre todos los nodos y atributos opcionales', () => {
    const vistos = new Set(casos.flatMap((c) => [...c.rasgos]));
    const esperados = [
      'informacionGlobal',
      'cfdiRelacionados',
      'facAtrAdquirente',
      'residenciaFiscal',
      'numRegIdTrib',
      'impuestosConcepto',
      'trasladosConcepto',
      'retencionesConcepto',
      'exento',
      'aCuentaTerceros',
      'informacionAduanera',
      'cuentaPredial',
      'parte',
      'parteNoIdentificacion',
      'parteUnidad',
      'parteValorUnitario',
      'parteImporte',
      'noIdentificacion',
      'unidad',
      'descuentoConcepto',
      'impuestosGlobales',
      'retencionesGlobales',
      'trasladosGlobales',
      'totalRetenidos',
      'totalTrasladados',
      'pagos20',
      'totalesRetIVA',
      'totalesRetISR',
      'totalesRetIEPS',
      'totalesIVA16',
      'totalesIVA8',
      'totalesIVA0',
      'totalesExento',
      'impuestosDR',
      'retencionesDR',
      'trasladosDR',
      'serieDR',
      'folioDR',
      'equivalenciaDR',
      'impuestosP',
      'retencionesP',
      'trasladosP',
      'tipoCambioP',
      'numOperacion',
      'rfcCtaOrd',
      'nomBanco',
      'ctaOrdenante',
      'rfcCtaBen',
      'ctaBeneficiario',
      'tipoCadPago',
      'certPago',
      'cadPago',
      'selloPago',
      'timbre',
      'addenda',
      'serie',
      'folio',
      'formaPago',
      'condicionesDePago',
      'descuento',
      'tipoCambio',
      'metodoPago',
      'confirmacion',
      'prefijoCfdiDistinto',
    ];
    expect(esperados.filter((r) => !vistos.has(r))).toEqual([]);
    // The stress characters really reach the documents.
    const todo = casos.map((c) => c.xml).join('');
    for (const fragmento of [
      '&#9;',
      '&#10;',
      '&#13;',
      '&amp;',
      '&lt;',
      '&gt;',
      '&quot;',
      "'",
      '😀',
      'ñ',
      '€',
      '\u00a0',
      '  ',
    ]) {
      expect([fragmento, todo.includes(fragmento)]).toEqual([fragmento, true]);
    }
  });

  it('una muestra de los no mutilados valida con cfdi-all.xsd', () => {
    const muestra = casos.filter((c) => !c.mutilado && c.indice % CADA_CUANTOS_ESQUEMA === 0);
    expect(muestra.length).toBeGreaterThanOrEqual(70);
    const errores = validarConEsquema(muestra.map((c) => c.archivo));
    const invalidos = muestra
      .map((c) => [c.indice, errores.get(c.archivo)?.slice(0, 3) ?? ['sin veredicto']] as const)
      .filter(([, e]) => e.length > 0);
    expect(invalidos).toEqual([]);
  });

  it('ida y vuelta: serializar y parsear devuelve el mismo Nodo', () => {
    for (const c of casos) expect([c.indice, parsear(c.xml)]).toEqual([c.indice, c.comprobante]);
  });

  it('serializar escribe los mismos bytes que xmlbuilder2', () => {
    for (const c of casos) expect([c.indice, c.xml]).toEqual([c.indice, conXmlbuilder2(c.comprobante)]);
  });
});

/**
 * Reference serialization with xmlbuilder2. `&`, tab, LF and CR go in as references, which xmlbuilder2
 * keeps (it would otherwise leave `&amp;`-looking text unescaped and write whitespace literally).
 */
function conXmlbuilder2(comprobante: Nodo): string {
  const referencias: Record<string, string> = { '&': '&amp;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };
  const agregar = (padre: XMLBuilder, n: Nodo): void => {
    const e = padre.ele(n.nombre);
    for (const [k, v] of Object.entries(n.atributos))
      e.att(
        k,
        v.replace(/[&\t\n\r]/g, (x) => referencias[x] as string),
      );
    for (const h of n.hijos) agregar(e, h);
  };
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  agregar(doc, comprobante);
  return doc.end({ prettyPrint: false });
}
