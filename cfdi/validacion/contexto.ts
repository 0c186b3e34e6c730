import { decimalesDe } from '../decimal';
import { fechaCfdi } from '../fecha';
import type { ConsultaCatalogos } from '../reglas/catalogos';
import { violacion, type Violacion } from '../reglas/tipos';
import type { Nodo } from '../xml/nodo';
import { millonesimas } from './millonesimas';

/** t_Importe and the other amount types of cfdv40.xsd: at most 18 integer digits, 6 decimals. */
const MAXIMO_IMPORTE = 10n ** 24n - 1n;

/** A row of c_Pais, as far as the receiver rules need it. */
export interface Pais {
  readonly clave: string;
  /** Regular expression a NumRegIdTrib of that country must match whole; null when the SAT gives none. */
  readonly patron_identidad_tributaria: string | null;
}

/**
 * Lookups the engine uses when the catalog store offers them. CatalogosEnMemoria has no c_Pais yet, so
 * CFDI40150/40156 run only with a store that adds it (the tests do).
 */
export interface CatalogosOpcionales {
  pais?(clave: string): Pais | undefined;
}

export type CatalogosValidacion = ConsultaCatalogos & CatalogosOpcionales;

export interface OpcionesValidacion {
  /** The instant of validation: decides "the current year" (CFDI40136) and a Fecha in the future. */
  ahora?: Date;
}

/** Element name without its namespace prefix: `cfdi:Concepto` → `Concepto`. */
export const local = (n: Nodo): string => {
  const i = n.nombre.indexOf(':');
  return i < 0 ? n.nombre : n.nombre.slice(i + 1);
};

/** Children with that local name, in document order. */
export const hijosLocal = (n: Nodo | undefined, nombre: string): Nodo[] =>
  n ? n.hijos.filter((h) => local(h) === nombre) : [];

export const hijoLocal = (n: Nodo | undefined, nombre: string): Nodo | undefined =>
  n?.hijos.find((h) => local(h) === nombre);

/**
 * Sums over the concepts, made by the concept pass and read by the global-tax and totals rules; amounts in
 * millionths (see millonesimas.ts).
 */
export interface Acumulados {
  importe: bigint;
  descuento: bigint;
  conDescuento: boolean;
  /** Concept traslados grouped by `impuesto|TipoFactor|tasa` (the global row key, CFDI40218). */
  traslados: Map<string, GrupoTraslado>;
  /** Concept retenciones summed by impuesto (one global row each, CFDI40208). */
  retenciones: Map<string, bigint>;
  /** Some concept traslado is Tasa or Cuota: the global TotalImpuestosTrasladados is due (CFDI40212). */
  trasladosNoExentos: boolean;
}

export interface GrupoTraslado {
  base: bigint;
  importe: bigint;
}

/** Key of a traslado group; the rate is compared as a number, so "0.16" and "0.160000" are one group. */
export function claveTraslado(impuesto: string, tipoFactor: string, tasa: string | undefined): string {
  const t = tasa === undefined ? '' : (millonesimas(tasa)?.toString() ?? tasa);
  return `${impuesto}|${tipoFactor}|${t}`;
}

/**
 * Everything the rule groups share: the document's main nodes found once, the currency's decimals, the
 * concept sums and the list of violations. One instance per validation.
 */
export class Contexto {
  readonly violaciones: Violacion[] = [];
  readonly a: Readonly<Record<string, string>>;
  readonly tipo: string;
  /** Decimals of a known Moneda; undefined skips the rules that depend on them (CFDI40113 is reported). */
  readonly decimales: number | undefined;
  readonly informacionGlobal: Nodo | undefined;
  readonly relacionados: Nodo[];
  readonly emisor: Nodo | undefined;
  readonly receptor: Nodo | undefined;
  readonly conceptos: Nodo[];
  readonly impuestos: Nodo | undefined;
  /** Children of cfdi:Complemento (complements such as pago20:Pagos, cce20:ComercioExterior). */
  readonly complementos: Nodo[];
  readonly acumulados: Acumulados = {
    importe: 0n,
    descuento: 0n,
    conDescuento: false,
    traslados: new Map(),
    retenciones: new Map(),
    trasladosNoExentos: false,
  };

  constructor(
    readonly raiz: Nodo,
    readonly catalogos: CatalogosValidacion,
    readonly ahora: Date,
  ) {
    this.a = raiz.atributos;
    this.tipo = raiz.atributos.TipoDeComprobante ?? '';
    const moneda = raiz.atributos.Moneda;
    this.decimales = moneda === undefined ? undefined : catalogos.moneda(moneda)?.decimales;
    let informacionGlobal: Nodo | undefined;
    let emisor: Nodo | undefined;
    let receptor: Nodo | undefined;
    let impuestos: Nodo | undefined;
    const relacionados: Nodo[] = [];
    const conceptos: Nodo[] = [];
    const complementos: Nodo[] = [];
    // One pass over the root's children: the rules never search the tree again.
    for (const h of raiz.hijos) {
      switch (local(h)) {
        case 'InformacionGlobal':
          informacionGlobal = h;
          break;
        case 'CfdiRelacionados':
          relacionados.push(h);
          break;
        case 'Emisor':
          emisor = h;
          break;
        case 'Receptor':
          receptor = h;
          break;
        case 'Conceptos':
          conceptos.push(...hijosLocal(h, 'Concepto'));
          break;
        case 'Impuestos':
          impuestos = h;
          break;
        case 'Complemento':
          complementos.push(...h.hijos);
          break;
      }
    }
    this.informacionGlobal = informacionGlobal;
    this.relacionados = relacionados;
    this.emisor = emisor;
    this.receptor = receptor;
    this.conceptos = conceptos;
    this.impuestos = impuestos;
    this.complementos = complementos;
  }

  error(codigo: string, mensaje: string, parametro: string, sat?: string): void {
    this.violaciones.push(violacion(codigo, mensaje, parametro, sat));
  }

  agregar(violaciones: readonly Violacion[]): void {
    for (const v of violaciones) this.violaciones.push(v);
  }

  private ahoraLocalCache: string | undefined;

  /** Now, `YYYY-MM-DDThh:mm:ss` in the local time of LugarExpedicion (Tiempo del Centro if unknown). */
  get ahoraLocal(): string {
    if (this.ahoraLocalCache === undefined) {
      const cp = this.a.LugarExpedicion;
      const huso = (cp !== undefined && this.catalogos.codigoPostal(cp)?.huso_horario) || 'Tiempo del Centro';
      try {
        this.ahoraLocalCache = fechaCfdi(this.ahora, huso);
      } catch {
        // A zone name the mapping does not know yet: the country's main zone rather than no check.
        this.ahoraLocalCache = fechaCfdi(this.ahora, 'Tiempo del Centro');
      }
    }
    return this.ahoraLocalCache;
  }

  /** The complement with that local name, if the document carries it. */
  complemento(nombre: string): Nodo | undefined {
    return this.complementos.find((c) => local(c) === nombre);
  }

  get conComercioExterior(): boolean {
    return this.complemento('ComercioExterior') !== undefined;
  }

  /**
   * An amount attribute in millionths; undefined when absent. A value that is not a non-negative decimal
   * with up to 6 decimals, or that has more than 18 integer digits (the XSD would reject either), is reported
   * here; the rules that need a malformed one are skipped.
   */
  numero(n: Nodo, atributo: string, ruta: string): bigint | undefined {
    const valor = n.atributos[atributo];
    if (valor === undefined) return undefined;
    const v = millonesimas(valor);
    if (v === undefined) {
      this.error(
        'importe_invalido',
        `${atributo}="${valor}" no es un número decimal no negativo con hasta 6 decimales.`,
        `${ruta}.${atributo}`,
      );
    } else if (v > MAXIMO_IMPORTE) {
      this.error(
        'importe_fuera_de_limite',
        `${atributo}="${valor}" excede el máximo del SAT: hasta 18 dígitos enteros (t_Importe).`,
        `${ruta}.${atributo}`,
      );
    }
    return v;
  }

  /** Reports an amount with more decimals than the currency allows. */
  decimalesMoneda(n: Nodo, atributo: string, ruta: string, sat: string): void {
    const valor = n.atributos[atributo];
    if (valor === undefined || this.decimales === undefined) return;
    if (decimalesDe(valor) <= this.decimales) return;
    this.error(
      'decimales_moneda',
      `${atributo}="${valor}" tiene ${decimalesDe(valor)} decimales; la moneda ${this.a.Moneda} admite ` +
        `${this.decimales}.`,
      `${ruta}.${atributo}`,
      sat,
    );
  }
}
