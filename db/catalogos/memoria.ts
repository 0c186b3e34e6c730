import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { ConsultaCatalogos, ReglaTasaOCuota } from '../../cfdi/reglas/catalogos';

export type { ReglaTasaOCuota };

/*
 * The SAT catalogs the API serves, held in memory: they change only with a deployment, are read on every
 * invoice validation and searched on every keystroke of a client's autocomplete, so a database round trip
 * (and a LIKE '%…%' scan over 52k or 95k rows) per request is not affordable.
 */

// ---------------------------------------------------------------------------------------------------------
// Records, exactly as the API returns them (convenciones: "Catalog records").

export interface RegistroClaveProdServ {
  readonly clave: string;
  readonly descripcion: string;
  readonly palabras_similares: string | null;
}

export interface RegistroClaveUnidad {
  readonly clave: string;
  /** The unit's name (column `texto`); the SAT's long `descripcion` is not served. */
  readonly descripcion: string;
  readonly simbolo: string | null;
}

export interface RegistroCodigoPostal {
  readonly clave: string;
  /** "<estado>, <municipio>" with names; just the state when the SAT gives no municipio. */
  readonly descripcion: string;
  /** c_Estado code as the SAT publishes it in c_CodigoPostal (Mexico City is still "DIF" there). */
  readonly estado: string;
  readonly municipio: string | null;
  readonly localidad: string | null;
  readonly huso_horario: string;
}

export interface RegistroRegimenFiscal {
  readonly clave: string;
  readonly descripcion: string;
  readonly aplica_fisica: boolean;
  readonly aplica_moral: boolean;
}

export interface RegistroUsoCfdi {
  readonly clave: string;
  readonly descripcion: string;
  readonly aplica_fisica: boolean;
  readonly aplica_moral: boolean;
  readonly regimenes_receptor: readonly string[];
}

export interface RegistroFormaPago {
  readonly clave: string;
  readonly descripcion: string;
  readonly bancarizado: boolean;
}

export interface RegistroMoneda {
  readonly clave: string;
  readonly descripcion: string;
  readonly decimales: number;
}

/** metodos_pago, exportaciones, objetos_imp, tipos_relacion. */
export interface RegistroSimple {
  readonly clave: string;
  readonly descripcion: string;
}

export interface RegistrosCatalogo {
  claves_prod_serv: RegistroClaveProdServ;
  claves_unidad: RegistroClaveUnidad;
  codigos_postales: RegistroCodigoPostal;
  regimenes_fiscales: RegistroRegimenFiscal;
  usos_cfdi: RegistroUsoCfdi;
  formas_pago: RegistroFormaPago;
  metodos_pago: RegistroSimple;
  monedas: RegistroMoneda;
  exportaciones: RegistroSimple;
  objetos_imp: RegistroSimple;
  tipos_relacion: RegistroSimple;
}

export const CATALOGOS_BUSCABLES = ['claves_prod_serv', 'claves_unidad', 'codigos_postales'] as const;
export const CATALOGOS_LISTABLES = [
  'regimenes_fiscales',
  'usos_cfdi',
  'formas_pago',
  'metodos_pago',
  'monedas',
  'exportaciones',
  'objetos_imp',
  'tipos_relacion',
] as const;

export type CatalogoBuscable = (typeof CATALOGOS_BUSCABLES)[number];
export type CatalogoListable = (typeof CATALOGOS_LISTABLES)[number];
export type NombreCatalogo = CatalogoBuscable | CatalogoListable;

export const esCatalogoBuscable = (nombre: string): nombre is CatalogoBuscable =>
  (CATALOGOS_BUSCABLES as readonly string[]).includes(nombre);
export const esCatalogoListable = (nombre: string): nombre is CatalogoListable =>
  (CATALOGOS_LISTABLES as readonly string[]).includes(nombre);

export const LIMITE_DEFECTO = 20;
export const LIMITE_MAXIMO = 100;

// ---------------------------------------------------------------------------------------------------------
// Text normalization, shared by the index build and the queries so both sides always agree.

/** Lowercase without diacritics: "FACTURACIÓN" → "facturacion", "Año" → "ano" (as utf8mb4_unicode_ci). */
export function normalizar(texto: string): string {
  return texto.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
}

const ALFANUMERICO = /[\p{L}\p{N}]/u;
const ESPACIO = /\s/;

// Per UTF-16 unit, ASCII fast path: these run for every character of 150k descriptions at load.
function esAlfanumerico(c: number): boolean {
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  return ALFANUMERICO.test(String.fromCharCode(c));
}

function esEspacio(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return ESPACIO.test(String.fromCharCode(c));
}

const esInicioDePalabra = (texto: string, i: number): boolean =>
  esAlfanumerico(texto.charCodeAt(i)) && (i === 0 || !esAlfanumerico(texto.charCodeAt(i - 1)));

/**
 * The query's words: normalized, split on whitespace, without surrounding punctuation ("leche," → "leche")
 * and without repeats. Words never contain whitespace, which is what lets the index skip n-grams across it.
 */
export function terminosDeBusqueda(q: string): string[] {
  const terminos = new Set<string>();
  for (const palabra of normalizar(q).split(/\s+/)) {
    let inicio = 0;
    let fin = palabra.length;
    while (inicio < fin && !esAlfanumerico(palabra.charCodeAt(inicio))) inicio++;
    while (fin > inicio && !esAlfanumerico(palabra.charCodeAt(fin - 1))) fin--;
    if (fin > inicio) terminos.add(palabra.slice(inicio, fin));
  }
  return [...terminos];
}

/** True when `termino` occurs in `texto` where a word starts ("fact" in "servicios de facturacion"). */
export function empiezaPalabra(texto: string, termino: string): boolean {
  for (let i = texto.indexOf(termino); i >= 0; i = texto.indexOf(termino, i + 1)) {
    if (i === 0 || !esAlfanumerico(texto.charCodeAt(i - 1))) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------
// Search index.
//
// Every record has an id: its position in code order, so "by code" is "by id" and a code prefix is a
// contiguous id range (binary search). Descriptions are indexed by their 1-, 2- and 3-grams (never across
// whitespace) and by the 1..3-character prefixes of their words. A query word of up to 3 characters is
// answered exactly by one posting; a longer one by intersecting the postings of all its trigrams (rarest
// first), a superset that is verified with String.includes only for the records actually looked at.
// Postings longer than the bitset of the whole catalog are stored as that bitset (it is smaller), so even
// "de" or "servicio" cost a few thousand word ANDs, never a scan of the texts. Results come out of bitsets
// scanned in id order, so a query stops as soon as it has `limite` records and never sorts. Typical
// queries take 5–40 µs on claves_prod_serv.

/** Added to a gram's key when the gram starts a word; above any plain key (< 2^51). */
const MARCA_INICIO = 2 ** 51;

/** A gram of up to 3 UTF-16 units as a number: 17 bits per unit, so keys of different lengths differ. */
function claveGrama(texto: string, desde: number, largo: number, inicio: boolean): number {
  let clave = 0;
  for (let k = 0; k < largo; k++) clave = clave * 0x20000 + texto.charCodeAt(desde + k) + 1;
  return inicio ? clave + MARCA_INICIO : clave;
}

/** Calls `emitir` with the key of every gram of a normalized text (repeats included). */
function visitarGramas(texto: string, emitir: (clave: number) => void): void {
  const largo = texto.length;
  for (let i = 0; i < largo; i++) {
    if (esEspacio(texto.charCodeAt(i))) continue;
    const inicio = esInicioDePalabra(texto, i);
    let clave = 0;
    for (let k = 0; k < 3 && i + k < largo; k++) {
      const c = texto.charCodeAt(i + k);
      if (k > 0 && esEspacio(c)) break;
      clave = clave * 0x20000 + c + 1;
      emitir(clave);
      if (inicio) emitir(clave + MARCA_INICIO);
    }
  }
}

interface Posting {
  /** Number of records. */
  readonly tam: number;
  /** Sorted ids, for rare grams... */
  readonly ids: Uint32Array | null;
  /** ...or a bitset over all ids, for frequent ones. */
  readonly bits: Uint32Array | null;
}

const tieneBit = (bits: Uint32Array, id: number): boolean => (bits[id >>> 5]! & (1 << (id & 31))) !== 0;

function ponerBit(bits: Uint32Array, id: number): void {
  bits[id >>> 5]! |= 1 << (id & 31);
}

function ponerRango(bits: Uint32Array, desde: number, hasta: number): void {
  for (let id = desde; id < hasta; id++) {
    if ((id & 31) === 0 && id + 32 <= hasta) {
      bits[id >>> 5] = 0xffffffff;
      id += 31;
    } else ponerBit(bits, id);
  }
}

/** First position ≥ `desde` whose id is ≥ `id`: galloping, then binary search within the last stride. */
function avanzar(ids: Uint32Array, desde: number, id: number): number {
  if (desde >= ids.length || ids[desde]! >= id) return desde;
  let bajo = desde;
  let paso = 1;
  while (bajo + paso < ids.length && ids[bajo + paso]! < id) {
    bajo += paso;
    paso *= 2;
  }
  let lo = bajo + 1;
  let hi = Math.min(bajo + paso, ids.length);
  while (lo < hi) {
    const medio = (lo + hi) >>> 1;
    if (ids[medio]! < id) lo = medio + 1;
    else hi = medio;
  }
  return lo;
}

/** a &= b, in place. */
function y(a: Uint32Array, b: Uint32Array): void {
  for (let i = 0; i < a.length; i++) a[i]! &= b[i]!;
}

/** a &= ~b, in place. */
function yNo(a: Uint32Array, b: Uint32Array): void {
  for (let i = 0; i < a.length; i++) a[i]! &= ~b[i]!;
}

/** Calls `visitar` with every set bit in ascending order until it returns true. */
function recorrer(bits: Uint32Array, visitar: (id: number) => boolean): void {
  for (let w = 0; w < bits.length; w++) {
    let x = bits[w]!;
    while (x !== 0) {
      const menor = x & -x;
      x ^= menor;
      if (visitar((w << 5) | (31 - Math.clz32(menor)))) return;
    }
  }
}

/** A Uint32Array that doubles when full: the index build's scratch lists. */
class Creciente {
  datos = new Uint32Array(1 << 12);
  largo = 0;

  agregar(valor: number): void {
    if (this.largo === this.datos.length) {
      const mayor = new Uint32Array(this.datos.length * 2);
      mayor.set(this.datos);
      this.datos = mayor;
    }
    this.datos[this.largo++] = valor;
  }
}

/** 1..100; the API rejects other values before they get here, other callers get the nearest valid one. */
function acotarLimite(limite: number): number {
  if (!Number.isFinite(limite)) return LIMITE_DEFECTO;
  return Math.min(LIMITE_MAXIMO, Math.max(1, Math.trunc(limite)));
}

export interface EntradaIndice<T> {
  clave: string;
  /** The text searched by substring: the record's description. */
  texto: string;
  registro: T;
}

/** A word of a query, with its code range and its candidate bitsets. */
interface Termino {
  texto: string;
  /** Ids whose code starts with the word: [desde, hasta). */
  desde: number;
  hasta: number;
  /** Records whose description contains the word / has a word starting with it; exact when `exacto`. */
  contiene: Uint32Array;
  empieza: Uint32Array;
  /** Words of up to 3 characters are whole grams: their postings are the answer, not candidates. */
  exacto: boolean;
}

export class IndiceBusqueda<T> {
  private readonly registros: readonly T[];
  /** Normalized codes in ascending order: id = position. */
  private readonly claves: readonly string[];
  private readonly textos: readonly string[];
  private readonly gramas = new Map<number, Posting>();
  /** Built by the first search (or `indexar`): a process that only looks codes up never pays for it. */
  private indexado = false;
  /** 32-bit words in a bitset over all ids. */
  private readonly palabras: number;
  /** Bitsets reused by every query (searches are synchronous): no allocation per request. */
  private readonly reserva: Uint32Array[] = [];
  private enUso = 0;

  constructor(entradas: readonly EntradaIndice<T>[]) {
    // Postal codes come in runs with one description: normalize each run once.
    let original = '';
    let normalizado = '';
    const ordenadas = entradas
      .map((e) => {
        if (e.texto !== original) [original, normalizado] = [e.texto, normalizar(e.texto)];
        return { clave: normalizar(e.clave), texto: normalizado, registro: e.registro };
      })
      .sort((a, b) => (a.clave < b.clave ? -1 : a.clave > b.clave ? 1 : 0));
    this.registros = ordenadas.map((e) => e.registro);
    this.claves = ordenadas.map((e) => e.clave);
    this.textos = ordenadas.map((e) => e.texto);
    this.palabras = Math.ceil(ordenadas.length / 32);
  }

  /** Builds the gram index now instead of on the first search. */
  indexar(): void {
    if (this.indexado) return;
    this.construir();
    this.indexado = true;
  }

  get tamano(): number {
    return this.registros.length;
  }

  /**
   * Pass 1 numbers the grams and writes each record's distinct grams into one flat list (records with the
   * same text as the previous one, as postal codes of one municipality, share its slice); pass 2 fills
   * postings of the exact size from that list. No string and no JS array per gram occurrence: indexing
   * the 150k searchable records takes well under a second and peak memory stays near the index size.
   */
  private construir(): void {
    const n = this.textos.length;
    const numeroDe = new Map<number, number>();
    // Keys need 52 bits: a plain array (tens of thousands of distinct grams), not a Uint32Array.
    const claves: number[] = [];
    const ultimos = new Creciente();
    const lista = new Creciente();
    const inicios = new Uint32Array(n);
    const finales = new Uint32Array(n);
    let id = 0;
    const alEmitir = (clave: number) => {
      let g = numeroDe.get(clave);
      if (g === undefined) {
        g = claves.length;
        numeroDe.set(clave, g);
        claves.push(clave);
        ultimos.agregar(id);
        lista.agregar(g);
      } else if (ultimos.datos[g] !== id) {
        ultimos.datos[g] = id;
        lista.agregar(g);
      }
    };
    for (; id < n; id++) {
      if (id > 0 && this.textos[id] === this.textos[id - 1]) {
        inicios[id] = inicios[id - 1]!;
        finales[id] = finales[id - 1]!;
        continue;
      }
      inicios[id] = lista.largo;
      visitarGramas(this.textos[id]!, alEmitir);
      finales[id] = lista.largo;
    }

    const total = claves.length;
    const tamanos = new Uint32Array(total);
    for (let r = 0; r < n; r++) for (let j = inicios[r]!; j < finales[r]!; j++) tamanos[lista.datos[j]!]!++;
    // A posting longer than the bitset's word count takes more memory than the bitset.
    const postings = Array.from(tamanos, (tam) =>
      tam > this.palabras
        ? { tam, ids: null, bits: new Uint32Array(this.palabras) }
        : { tam, ids: new Uint32Array(tam), bits: null },
    );
    const posiciones = new Uint32Array(total);
    for (let r = 0; r < n; r++) {
      for (let j = inicios[r]!; j < finales[r]!; j++) {
        const g = lista.datos[j]!;
        const p = postings[g]!;
        if (p.bits) ponerBit(p.bits, r);
        else p.ids![posiciones[g]!++] = r;
      }
    }
    for (let g = 0; g < total; g++) this.gramas.set(claves[g]!, postings[g]!);
  }

  /** The first records by code: a searchable catalog asked without `q`. */
  primeros(limite = LIMITE_DEFECTO): T[] {
    return this.registros.slice(0, acotarLimite(limite));
  }

  /**
   * Records whose code starts with, or whose description contains, every word of `q` (accents and case
   * ignored). Order: code equal to a word, code starting with a word, every word starting a word of the
   * description, the rest; each group by code. A query without any word matches everything.
   */
  buscar(q: string, limite = LIMITE_DEFECTO): T[] {
    const tope = acotarLimite(limite);
    const palabras = terminosDeBusqueda(q);
    if (palabras.length === 0) return this.primeros(tope);
    this.indexar();
    this.enUso = 0;
    const terminos = palabras.map((p) => this.prepararTermino(p));

    const textos = this.textos;
    const enRango = (t: Termino, id: number) => id >= t.desde && id < t.hasta;
    const inexactos = terminos.filter((t) => !t.exacto);
    const contienenTodos = (id: number) =>
      inexactos.every((t) => enRango(t, id) || textos[id]!.includes(t.texto));
    // Only asked outside every code range, where a word can only match through the description.
    const empiezanTodos = (id: number) => inexactos.every((t) => empiezaPalabra(textos[id]!, t.texto));

    const ids: number[] = [];
    const lleno = () => ids.length >= tope;
    const conRango = terminos.filter((t) => t.hasta > t.desde);

    let enCodigo: Uint32Array | undefined;
    if (conRango.length > 0) {
      enCodigo = this.tomar();
      for (const t of conRango) ponerRango(enCodigo, t.desde, t.hasta);

      // 1. Code equal to a word.
      const exactos = new Set<number>();
      for (const t of conRango) {
        const id = t.desde;
        if (this.claves[id] !== t.texto) continue;
        const coinciden = terminos.every(
          (u) => enRango(u, id) || (u.exacto ? tieneBit(u.contiene, id) : textos[id]!.includes(u.texto)),
        );
        if (coinciden) exactos.add(id);
      }
      for (const id of [...exactos].sort((a, b) => a - b)) if (!lleno()) ids.push(id);

      // 2. Code starting with a word (every other word matching the code or the description).
      if (!lleno()) {
        const grupo = this.tomar();
        grupo.set(enCodigo);
        for (const t of terminos) {
          if (t.hasta > t.desde) {
            const conCodigo = this.tomar();
            conCodigo.set(t.contiene);
            ponerRango(conCodigo, t.desde, t.hasta);
            y(grupo, conCodigo);
          } else y(grupo, t.contiene);
        }
        recorrer(grupo, (id) => {
          if (!exactos.has(id) && contienenTodos(id)) ids.push(id);
          return lleno();
        });
      }
    }

    // 3. Every word starts a word of the description.
    if (lleno()) return this.registrosDe(ids);
    const empiezan = this.tomar();
    empiezan.set(terminos[0]!.empieza);
    for (const t of terminos.slice(1)) y(empiezan, t.empieza);
    if (enCodigo) yNo(empiezan, enCodigo);
    recorrer(empiezan, (id) => {
      if (empiezanTodos(id)) ids.push(id);
      return lleno();
    });

    // 4. The rest.
    if (lleno()) return this.registrosDe(ids);
    const resto = this.tomar();
    resto.set(terminos[0]!.contiene);
    for (const t of terminos.slice(1)) y(resto, t.contiene);
    if (enCodigo) yNo(resto, enCodigo);
    recorrer(resto, (id) => {
      const enGrupo3 = tieneBit(empiezan, id) && (inexactos.length === 0 || empiezanTodos(id));
      if (!enGrupo3 && contienenTodos(id)) ids.push(id);
      return lleno();
    });
    return this.registrosDe(ids);
  }

  private registrosDe(ids: readonly number[]): T[] {
    return ids.map((id) => this.registros[id]!);
  }

  /** A scratch bitset, zeroed. Valid until the next search starts. */
  private tomar(): Uint32Array {
    let bits = this.reserva[this.enUso];
    if (bits) bits.fill(0);
    else {
      bits = new Uint32Array(this.palabras);
      this.reserva.push(bits);
    }
    this.enUso++;
    return bits;
  }

  private prepararTermino(texto: string): Termino {
    const exacto = texto.length <= 3;
    const subcadenas: number[] = [];
    if (exacto) subcadenas.push(claveGrama(texto, 0, texto.length, false));
    else for (let i = 0; i + 3 <= texto.length; i++) subcadenas.push(claveGrama(texto, i, 3, false));
    const contiene = this.interseccion(subcadenas);
    const empieza = this.interseccion([claveGrama(texto, 0, Math.min(3, texto.length), true)]);
    if (!exacto) y(empieza, contiene);
    const desde = this.primeroNoMenor(texto);
    // '\uffff' sorts after any character a code can have: [texto, texto + '\uffff') is the prefix range.
    const hasta = this.primeroNoMenor(texto + '\uffff');
    return { texto, desde, hasta, contiene, empieza, exacto };
  }

  private primeroNoMenor(clave: string): number {
    let lo = 0;
    let hi = this.claves.length;
    while (lo < hi) {
      const medio = (lo + hi) >>> 1;
      if (this.claves[medio]! < clave) lo = medio + 1;
      else hi = medio;
    }
    return lo;
  }

  /** Bitset of the records that have every gram; rarest first so a short posting filters the rest. */
  private interseccion(claves: readonly number[]): Uint32Array {
    const resultado = this.tomar();
    const postings: Posting[] = [];
    for (const clave of claves) {
      const p = this.gramas.get(clave);
      if (!p) return resultado;
      if (!postings.includes(p)) postings.push(p);
    }
    postings.sort((a, b) => a.tam - b.tam);
    const [primero, ...resto] = postings as [Posting, ...Posting[]];
    if (primero.ids) {
      // Walk the rarest list; other lists are probed with a forward-only galloping cursor (ids come in
      // ascending order), bitsets with a bit test. Checking the next rarest first rejects soonest.
      const cursores = resto.map(() => 0);
      candidatos: for (const id of primero.ids) {
        for (let k = 0; k < resto.length; k++) {
          const p = resto[k]!;
          if (p.bits) {
            if (!tieneBit(p.bits, id)) continue candidatos;
            continue;
          }
          const i = avanzar(p.ids!, cursores[k]!, id);
          cursores[k] = i;
          // This list is exhausted: no later id can be in every posting.
          if (i === p.ids!.length) break candidatos;
          if (p.ids![i] !== id) continue candidatos;
        }
        ponerBit(resultado, id);
      }
      return resultado;
    }
    // The rarest is a bitset, so all are.
    resultado.set(primero.bits!);
    for (const p of resto) y(resultado, p.bits!);
    return resultado;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Rows → records.

/** A row as the database returns it (or a test builds it). */
export type FilaBd = Record<string, unknown>;

/** The tables read, each with the columns the records need. */
const COLUMNAS = {
  cat_clave_prod_serv: ['id', 'descripcion', 'palabras_similares', 'vigencia_desde', 'vigencia_hasta'],
  cat_clave_unidad: ['id', 'texto', 'simbolo', 'vigencia_desde', 'vigencia_hasta'],
  cat_codigo_postal: [
    'id',
    'estado',
    'municipio',
    'localidad',
    'huso_horario',
    'vigencia_desde',
    'vigencia_hasta',
  ],
  cat_regimen_fiscal: ['id', 'texto', 'aplica_fisica', 'aplica_moral', 'vigencia_desde', 'vigencia_hasta'],
  cat_uso_cfdi: [
    'id',
    'texto',
    'aplica_fisica',
    'aplica_moral',
    'regimenes_fiscales_receptores',
    'vigencia_desde',
    'vigencia_hasta',
  ],
  cat_forma_pago: ['id', 'texto', 'es_bancarizado', 'vigencia_desde', 'vigencia_hasta'],
  cat_metodo_pago: ['id', 'texto', 'vigencia_desde', 'vigencia_hasta'],
  cat_moneda: ['id', 'texto', 'decimales', 'vigencia_desde', 'vigencia_hasta'],
  cat_exportacion: ['id', 'texto', 'vigencia_desde', 'vigencia_hasta'],
  cat_objeto_imp: ['id', 'texto', 'vigencia_desde', 'vigencia_hasta'],
  cat_tipo_relacion: ['id', 'texto', 'vigencia_desde', 'vigencia_hasta'],
  cat_tasa_o_cuota: [
    'id',
    'tipo',
    'minimo',
    'valor',
    'impuesto',
    'factor',
    'traslado',
    'retencion',
    'vigencia_desde',
    'vigencia_hasta',
  ],
  // Only to name the state and municipality in a postal code's description.
  cat_estado: ['estado', 'texto'],
  cat_municipio: ['estado', 'municipio', 'texto'],
} as const satisfies Record<string, readonly string[]>;

export type TablaCatalogo = keyof typeof COLUMNAS;
export type FilasCatalogos = Record<TablaCatalogo, readonly FilaBd[]>;

const texto = (v: unknown): string => (typeof v === 'string' ? v : String(v ?? ''));
const textoONulo = (v: unknown): string | null =>
  v === null || v === undefined || v === '' ? null : texto(v);
const booleano = (v: unknown): boolean => v === true || v === 1 || v === '1';

/** 'YYYY-MM-DD' from a DATE read as a string or as a Date (UTC midnight with timezone 'Z'). */
function fecha(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return texto(v).slice(0, 10);
}

/** Today's date in Mexico City: the SAT's validity dates are Mexican calendar days. */
export function hoyEnMexico(ahora = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Mexico_City' }).format(ahora);
}

// c_CodigoPostal (2022) still uses the pre-2016 code of Mexico City; c_Estado only has CMX.
const ALIAS_ESTADO: Readonly<Record<string, string>> = { DIF: 'CMX' };

const porClave = <T extends { clave: string }>(registros: readonly T[]): ReadonlyMap<string, T> =>
  new Map(registros.map((r) => [r.clave, r]));

const porCodigo = <T extends { clave: string }>(a: T, b: T) =>
  a.clave < b.clave ? -1 : a.clave > b.clave ? 1 : 0;

/** Records are shared by every caller: frozen, so a validation cannot alter what the next request sees. */
const congelar = <T extends object>(registros: T[]): readonly T[] => {
  for (const r of registros) Object.freeze(r);
  return Object.freeze(registros);
};

export interface OpcionesCatalogos {
  /** 'YYYY-MM-DD' that decides which rows are valid; default today in Mexico City. */
  hoy?: string;
}

interface Listas {
  regimenes_fiscales: readonly RegistroRegimenFiscal[];
  usos_cfdi: readonly RegistroUsoCfdi[];
  formas_pago: readonly RegistroFormaPago[];
  metodos_pago: readonly RegistroSimple[];
  monedas: readonly RegistroMoneda[];
  exportaciones: readonly RegistroSimple[];
  objetos_imp: readonly RegistroSimple[];
  tipos_relacion: readonly RegistroSimple[];
}

interface Indices {
  claves_prod_serv: IndiceBusqueda<RegistroClaveProdServ>;
  claves_unidad: IndiceBusqueda<RegistroClaveUnidad>;
  codigos_postales: IndiceBusqueda<RegistroCodigoPostal>;
}

export class CatalogosEnMemoria implements ConsultaCatalogos {
  private readonly mapas: {
    [K in keyof Listas]: ReadonlyMap<string, Listas[K][number]>;
  };
  private readonly prodServ: ReadonlyMap<string, RegistroClaveProdServ>;
  private readonly unidades: ReadonlyMap<string, RegistroClaveUnidad>;
  private readonly postales: ReadonlyMap<string, RegistroCodigoPostal>;
  private huellaCalculada: string | undefined;

  private constructor(
    private readonly listas: Listas,
    private readonly indices: Indices,
    private readonly reglas: readonly ReglaTasaOCuota[],
    registrosBuscables: {
      prodServ: readonly RegistroClaveProdServ[];
      unidades: readonly RegistroClaveUnidad[];
      postales: readonly RegistroCodigoPostal[];
    },
  ) {
    this.mapas = {
      regimenes_fiscales: porClave(listas.regimenes_fiscales),
      usos_cfdi: porClave(listas.usos_cfdi),
      formas_pago: porClave(listas.formas_pago),
      metodos_pago: porClave(listas.metodos_pago),
      monedas: porClave(listas.monedas),
      exportaciones: porClave(listas.exportaciones),
      objetos_imp: porClave(listas.objetos_imp),
      tipos_relacion: porClave(listas.tipos_relacion),
    };
    this.prodServ = porClave(registrosBuscables.prodServ);
    this.unidades = porClave(registrosBuscables.unidades);
    this.postales = porClave(registrosBuscables.postales);
  }

  /**
   * Fingerprint of everything served (records after the validity filter): the same URL answers the same
   * bytes while it holds, so it can be the HTTP ETag without hashing each response. Computed on first use:
   * only the API serves catalogs.
   */
  get huella(): string {
    if (this.huellaCalculada === undefined) {
      const hash = createHash('sha256');
      for (const registros of [
        ...Object.values(this.listas),
        [...this.prodServ.values()],
        [...this.unidades.values()],
        [...this.postales.values()],
        this.reglas,
      ]) {
        hash.update(JSON.stringify(registros));
      }
      this.huellaCalculada = hash.digest('base64url').slice(0, 22);
    }
    return this.huellaCalculada;
  }

  /** Builds the search indexes and the fingerprint now (the API at start), not on the first request. */
  preparar(): void {
    for (const indice of Object.values(this.indices)) indice.indexar();
    void this.huella;
  }

  /** Reads every catalog table once (a few hundred ms for the 150k rows); the search indexes wait for `preparar` or the first search. */
  static async cargar(db: Knex, opciones: OpcionesCatalogos = {}): Promise<CatalogosEnMemoria> {
    const filas: Partial<Record<TablaCatalogo, FilaBd[]>> = {};
    await Promise.all(
      (Object.keys(COLUMNAS) as TablaCatalogo[]).map(async (tabla) => {
        filas[tabla] = await db(tabla).select(
          // As text: a DATE never goes through a time zone on its way here.
          COLUMNAS[tabla].map((c: string) =>
            c.startsWith('vigencia_') ? db.raw(`CAST(?? AS CHAR) AS ??`, [c, c]) : c,
          ),
        );
      }),
    );
    return CatalogosEnMemoria.desdeFilas(filas, opciones);
  }

  /** Builds the store from table rows (missing tables count as empty): what `cargar` and unit tests use. */
  static desdeFilas(filas: Partial<FilasCatalogos>, opciones: OpcionesCatalogos = {}): CatalogosEnMemoria {
    const hoy = opciones.hoy ?? hoyEnMexico();
    // Valid from its vigencia_desde day through its vigencia_hasta day, empty bounds open: rows expired
    // or not yet in force are gone for search, lists and lookups alike.
    const vigentes = (tabla: TablaCatalogo): readonly FilaBd[] =>
      (filas[tabla] ?? []).filter((f) => {
        const desde = fecha(f.vigencia_desde);
        const hasta = fecha(f.vigencia_hasta);
        return (desde === null || desde <= hoy) && (hasta === null || hasta >= hoy);
      });
    const simples = (tabla: TablaCatalogo): readonly RegistroSimple[] =>
      congelar(
        vigentes(tabla)
          .map((f) => ({ clave: texto(f.id), descripcion: texto(f.texto) }))
          .sort(porCodigo),
      );

    const listas: Listas = {
      regimenes_fiscales: congelar(
        vigentes('cat_regimen_fiscal')
          .map((f) => ({
            clave: texto(f.id),
            descripcion: texto(f.texto),
            aplica_fisica: booleano(f.aplica_fisica),
            aplica_moral: booleano(f.aplica_moral),
          }))
          .sort(porCodigo),
      ),
      usos_cfdi: congelar(
        vigentes('cat_uso_cfdi')
          .map((f) => ({
            clave: texto(f.id),
            descripcion: texto(f.texto),
            aplica_fisica: booleano(f.aplica_fisica),
            aplica_moral: booleano(f.aplica_moral),
            regimenes_receptor: Object.freeze(
              texto(f.regimenes_fiscales_receptores)
                .split(',')
                .map((c) => c.trim())
                .filter((c) => c !== ''),
            ),
          }))
          .sort(porCodigo),
      ),
      formas_pago: congelar(
        vigentes('cat_forma_pago')
          .map((f) => ({
            clave: texto(f.id),
            descripcion: texto(f.texto),
            bancarizado: booleano(f.es_bancarizado),
          }))
          .sort(porCodigo),
      ),
      metodos_pago: simples('cat_metodo_pago'),
      monedas: congelar(
        vigentes('cat_moneda')
          .map((f) => ({ clave: texto(f.id), descripcion: texto(f.texto), decimales: Number(f.decimales) }))
          .sort(porCodigo),
      ),
      exportaciones: simples('cat_exportacion'),
      objetos_imp: simples('cat_objeto_imp'),
      tipos_relacion: simples('cat_tipo_relacion'),
    };

    const prodServ = congelar(
      vigentes('cat_clave_prod_serv').map((f) => ({
        clave: texto(f.id),
        descripcion: texto(f.descripcion),
        palabras_similares: textoONulo(f.palabras_similares),
      })),
    );
    const unidades = congelar(
      vigentes('cat_clave_unidad').map((f) => ({
        clave: texto(f.id),
        descripcion: texto(f.texto),
        simbolo: textoONulo(f.simbolo),
      })),
    );

    const estados = new Map((filas.cat_estado ?? []).map((f) => [texto(f.estado), texto(f.texto)]));
    const municipios = new Map(
      (filas.cat_municipio ?? []).map((f) => [`${texto(f.estado)}|${texto(f.municipio)}`, texto(f.texto)]),
    );
    const postales = congelar(
      vigentes('cat_codigo_postal').map((f) => {
        const estado = texto(f.estado);
        const municipio = textoONulo(f.municipio);
        const clave = ALIAS_ESTADO[estado] ?? estado;
        const nombreEstado = estados.get(clave) ?? estado;
        const nombreMunicipio = municipio === null ? undefined : municipios.get(`${clave}|${municipio}`);
        return {
          clave: texto(f.id),
          descripcion: nombreMunicipio ? `${nombreEstado}, ${nombreMunicipio}` : nombreEstado,
          estado,
          municipio,
          localidad: textoONulo(f.localidad),
          huso_horario: texto(f.huso_horario),
        };
      }),
    );

    const indice = <T extends { clave: string; descripcion: string }>(registros: readonly T[]) =>
      new IndiceBusqueda(registros.map((r) => ({ clave: r.clave, texto: r.descripcion, registro: r })));

    const reglas = congelar(
      vigentes('cat_tasa_o_cuota')
        .slice()
        .sort((a, b) => Number(a.id) - Number(b.id))
        .map(
          (f): ReglaTasaOCuota => ({
            tipo: texto(f.tipo) === 'Rango' ? 'Rango' : 'Fijo',
            minimo: textoONulo(f.minimo),
            valor: texto(f.valor),
            impuesto: texto(f.impuesto),
            factor: texto(f.factor),
            traslado: booleano(f.traslado),
            retencion: booleano(f.retencion),
          }),
        ),
    );

    return new CatalogosEnMemoria(
      listas,
      {
        claves_prod_serv: indice(prodServ),
        claves_unidad: indice(unidades),
        codigos_postales: indice(postales),
      },
      reglas,
      { prodServ, unidades, postales },
    );
  }

  /** Search of a searchable catalog; without `q` (or with only punctuation), the first records by code. */
  buscar<N extends CatalogoBuscable>(
    nombre: N,
    q?: string,
    limite = LIMITE_DEFECTO,
  ): readonly RegistrosCatalogo[N][] {
    const indice = this.indices[nombre] as unknown as IndiceBusqueda<RegistrosCatalogo[N]>;
    return q === undefined ? indice.primeros(limite) : indice.buscar(q, limite);
  }

  /** The whole list of a small catalog, by code. */
  listar<N extends CatalogoListable>(nombre: N): readonly RegistrosCatalogo[N][] {
    return this.listas[nombre] as readonly RegistrosCatalogo[N][];
  }

  /** Number of valid records in a catalog. */
  tamano(nombre: NombreCatalogo): number {
    return esCatalogoBuscable(nombre) ? this.indices[nombre].tamano : this.listas[nombre].length;
  }

  // Lookups by exact code (case-sensitive: a CFDI attribute must match the SAT code exactly).

  regimenFiscal(clave: string): RegistroRegimenFiscal | undefined {
    return this.mapas.regimenes_fiscales.get(clave);
  }

  usoCfdi(clave: string): RegistroUsoCfdi | undefined {
    return this.mapas.usos_cfdi.get(clave);
  }

  codigoPostal(clave: string): RegistroCodigoPostal | undefined {
    return this.postales.get(clave);
  }

  claveProdServ(clave: string): RegistroClaveProdServ | undefined {
    return this.prodServ.get(clave);
  }

  claveUnidad(clave: string): RegistroClaveUnidad | undefined {
    return this.unidades.get(clave);
  }

  objetoImp(clave: string): RegistroSimple | undefined {
    return this.mapas.objetos_imp.get(clave);
  }

  formaPago(clave: string): RegistroFormaPago | undefined {
    return this.mapas.formas_pago.get(clave);
  }

  metodoPago(clave: string): RegistroSimple | undefined {
    return this.mapas.metodos_pago.get(clave);
  }

  moneda(clave: string): RegistroMoneda | undefined {
    return this.mapas.monedas.get(clave);
  }

  exportacion(clave: string): RegistroSimple | undefined {
    return this.mapas.exportaciones.get(clave);
  }

  tipoRelacion(clave: string): RegistroSimple | undefined {
    return this.mapas.tipos_relacion.get(clave);
  }

  /** The valid rows of c_TasaOCuota (rules, not codes), in the catalog's order. */
  reglasTasaOCuota(): readonly ReglaTasaOCuota[] {
    return this.reglas;
  }
}
