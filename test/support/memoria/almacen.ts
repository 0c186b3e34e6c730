import { AsyncLocalStorage } from 'node:async_hooks';
import Decimal from 'decimal.js';
import type { Alcance, Modo } from '../../../dominio/alcance';
import type { Pagina, Tramo } from '../../../dominio/paginacion';

/**
 * The in-memory "database" the fakes share: one `Tabla` per table, so that joins (an organization's active
 * certificate, an invoice's accent color) and transactions span every fake the way they span MariaDB.
 */

/** A unique index's refusal, shaped like MariaDB's so the real `sinDuplicar` translates it. */
export class ClaveUnicaViolada extends Error {
  readonly code = 'ER_DUP_ENTRY';
  constructor(tabla: string, indice: string) {
    super(`Duplicate entry for key '${tabla}.${indice}'`);
  }
}

/** A unique index: rows whose key is null never collide (as NULL in SQL). */
export interface IndiceUnico<R> {
  nombre: string;
  clave(r: R): string | null;
}

// Whether the fake repository method running now is on another connection than the open transaction's (set by
// `porConexion`, transacciones.ts); unset for a test reading the store itself.
const conexionAjena = new AsyncLocalStorage<boolean>();

/** Runs `f` as a statement on the open transaction's connection (`ajena` false) or on another one. */
export const enConexion = <T>(ajena: boolean, f: () => T): T => conexionAjena.run(ajena, f);

/**
 * Rows are values: a change replaces the row object, never mutates it, so copying the map is a snapshot of the
 * table. While a transaction is open the table also keeps what was committed before it (`confirmadas`): the
 * transaction's statements read and write the live rows; another connection's read the committed ones (READ
 * COMMITTED), and their writes commit at once, into both. A test reading the store itself sees the live rows.
 */
export class Tabla<R extends { id: string }> {
  private filas = new Map<string, R>();
  private confirmadas: Map<string, R> | null = null;

  constructor(
    readonly nombre: string,
    private readonly unicos: IndiceUnico<R>[] = [],
  ) {}

  /** A statement on another connection than the open transaction's: it autocommits. */
  private get fuera(): boolean {
    return this.confirmadas !== null && conexionAjena.getStore() === true;
  }

  private vista(): Map<string, R> {
    return this.fuera ? this.confirmadas! : this.filas;
  }

  todas(): R[] {
    return [...this.vista().values()];
  }

  buscar(id: string): R | undefined {
    return this.vista().get(id);
  }

  insertar(r: R): void {
    if (this.filas.has(r.id)) throw new ClaveUnicaViolada(this.nombre, 'PRIMARY');
    this.exigirUnicos(r);
    this.filas.set(r.id, r);
    if (this.fuera) this.confirmadas!.set(r.id, r);
  }

  cambiar(id: string, cambios: Partial<R>): void {
    // Another connection's change commits at once: it lands in what is committed and in the live rows.
    const cambiadas = (this.fuera ? [this.confirmadas!, this.filas] : [this.filas]).flatMap((filas) => {
      const actual = filas.get(id);
      return actual ? [{ filas, nueva: { ...actual, ...cambios } }] : [];
    });
    for (const { nueva } of cambiadas) this.exigirUnicos(nueva);
    for (const { filas, nueva } of cambiadas) filas.set(id, nueva);
  }

  /** DELETE of one row (absent: nothing happens). */
  borrar(id: string): void {
    if (this.fuera) this.confirmadas!.delete(id);
    this.filas.delete(id);
  }

  /** A transaction opens: what is committed so far is kept apart. */
  abrir(): void {
    this.confirmadas = new Map(this.filas);
  }

  /** It commits: its writes are the table. */
  confirmar(): void {
    this.confirmadas = null;
  }

  /** It rolls back: the table is what was committed, autocommit writes made meanwhile included. */
  deshacer(): void {
    if (this.confirmadas) this.filas = this.confirmadas;
    this.confirmadas = null;
  }

  private exigirUnicos(r: R): void {
    for (const i of this.unicos) {
      const clave = i.clave(r);
      if (clave === null) continue;
      const otra = [...this.filas.values()].find((x) => x.id !== r.id && i.clave(x) === clave);
      if (otra) throw new ClaveUnicaViolada(this.nombre, i.nombre);
    }
  }
}

/** Columns every scoped row carries. */
export interface ColumnasAlcance {
  cuenta_id: string;
  modo: Modo;
}

export const columnasAlcance = (a: Pick<Alcance, 'cuentaId' | 'modo'>): ColumnasAlcance => ({
  cuenta_id: a.cuentaId,
  modo: a.modo,
});

/** What every scoped insert writes besides the data: id, scope and timestamps. */
export const filaNueva = (a: Pick<Alcance, 'cuentaId' | 'modo'>, id: string, ahora: Date) => ({
  id,
  ...columnasAlcance(a),
  creado_en: ahora,
  actualizado_en: ahora,
});

/** The fakes' `conAlcance`: another account's or mode's row does not exist. */
export const enAlcance =
  (a: Alcance) =>
  (r: ColumnasAlcance): boolean =>
    r.cuenta_id === a.cuentaId && r.modo === a.modo;

/** db/paginacion.ts over an array: ids descending, strictly below the cursor, one extra row to see `hayMas`. */
export function paginarEnMemoria<R extends { id: string }>(filas: R[], pagina: Pagina): Tramo<R> {
  const orden = filas
    .filter((r) => !pagina.despuesDe || r.id < pagina.despuesDe)
    .sort((x, y) => (x.id < y.id ? 1 : x.id > y.id ? -1 : 0));
  return { datos: orden.slice(0, pagina.limite), hayMas: orden.length > pagina.limite };
}

/** A DECIMAL(24,6) column as MariaDB stores and returns it: text with six places, rounded half away from zero. */
export const decimal6 = (v: string) => new Decimal(v).toFixed(6, Decimal.ROUND_HALF_UP);

/** JSON columns: stored as text and parsed on read, so a caller never shares an object with the table. */
export const copiaJson = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/**
 * Text as the tables' collation (utf8mb4_unicode_ci) compares it: without case or accents, so `jose` finds
 * `JOSÉ` and a unique key holds `abc` and `ABC` for the same value.
 */
export const plegar = (texto: string) => texto.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** `LIKE '%q%'` under that collation. */
export const contiene = (texto: string | null, q: string) =>
  texto !== null && plegar(texto).includes(plegar(q));

export class Almacen {
  private readonly tablas = new Map<string, Tabla<{ id: string }>>();
  private abierta = false;

  /** The table `nombre`, created with its unique indexes on first use. */
  tabla<R extends { id: string }>(nombre: string, unicos: IndiceUnico<R>[] = []): Tabla<R> {
    let t = this.tablas.get(nombre);
    if (!t) {
      t = new Tabla<R>(nombre, unicos) as unknown as Tabla<{ id: string }>;
      if (this.abierta) t.abrir();
      this.tablas.set(nombre, t);
    }
    return t as unknown as Tabla<R>;
  }

  /** Transactions run one at a time (transacciones.ts): one is open between `abrir` and its end. */
  abrir(): void {
    this.abierta = true;
    for (const t of this.tablas.values()) t.abrir();
  }

  confirmar(): void {
    this.abierta = false;
    for (const t of this.tablas.values()) t.confirmar();
  }

  deshacer(): void {
    this.abierta = false;
    for (const t of this.tablas.values()) t.deshacer();
  }

  /** Every row of every table as text: equal before and after means nothing was written. */
  volcado(): string {
    const tablas = [...this.tablas].map(([n, t]) => [n, t.todas()] as const);
    return JSON.stringify(tablas.filter(([, filas]) => filas.length > 0));
  }
}

/** Clients and products: logically deleted rows vanish, lists filter by organization and `q` over two columns. */
export function vigentesDeOrganizacion<
  R extends ColumnasAlcance & { id: string; organizacion_id: string; eliminado_en: Date | null },
  F,
>(tabla: Tabla<R>, buscables: (r: R) => (string | null)[], leer: (r: R) => F) {
  const vigentes = (a: Alcance) => tabla.todas().filter((r) => enAlcance(a)(r) && r.eliminado_en === null);
  const vigente = (a: Alcance, id: string) => vigentes(a).find((r) => r.id === id);
  return {
    vigentes,
    vigente,
    async listar(a: Alcance, filtros: { organizacionId?: string; q?: string }, pagina: Pagina) {
      const q = filtros.q;
      const filas = vigentes(a).filter(
        (r) =>
          (!filtros.organizacionId || r.organizacion_id === filtros.organizacionId) &&
          (!q || buscables(r).some((texto) => contiene(texto, q))),
      );
      const t = paginarEnMemoria(filas, pagina);
      return { ...t, datos: t.datos.map(leer) };
    },
    async obtener(a: Alcance, id: string) {
      const r = vigente(a, id);
      return r && leer(r);
    },
  };
}
