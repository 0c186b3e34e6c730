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

/**
 * Rows are values: a change replaces the row object, never mutates it, so copying the map is a snapshot
 * of the table (what the transaction fake restores on a throw).
 */
export class Tabla<R extends { id: string }> {
  private filas = new Map<string, R>();

  constructor(
    readonly nombre: string,
    private readonly unicos: IndiceUnico<R>[] = [],
  ) {}

  todas(): R[] {
    return [...this.filas.values()];
  }

  buscar(id: string): R | undefined {
    return this.filas.get(id);
  }

  insertar(r: R): void {
    if (this.filas.has(r.id)) throw new ClaveUnicaViolada(this.nombre, 'PRIMARY');
    this.exigirUnicos(r);
    this.filas.set(r.id, r);
  }

  cambiar(id: string, cambios: Partial<R>): void {
    const actual = this.filas.get(id);
    if (!actual) return;
    const nueva = { ...actual, ...cambios };
    this.exigirUnicos(nueva);
    this.filas.set(id, nueva);
  }

  instantanea(): Map<string, R> {
    return new Map(this.filas);
  }

  restaurar(copia: Map<string, R>): void {
    this.filas = new Map(copia);
  }

  private exigirUnicos(r: R): void {
    for (const i of this.unicos) {
      const clave = i.clave(r);
      if (clave === null) continue;
      const otra = this.todas().find((x) => x.id !== r.id && i.clave(x) === clave);
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

/** JSON columns: stored as text and parsed on read, so a caller never shares an object with the table. */
export const copiaJson = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** `LIKE '%q%'` under MariaDB's case-insensitive collation. */
export const contiene = (texto: string | null, q: string) =>
  texto !== null && texto.toLowerCase().includes(q.toLowerCase());

export class Almacen {
  private readonly tablas = new Map<string, Tabla<{ id: string }>>();

  /** The table `nombre`, created with its unique indexes on first use. */
  tabla<R extends { id: string }>(nombre: string, unicos: IndiceUnico<R>[] = []): Tabla<R> {
    let t = this.tablas.get(nombre);
    if (!t) {
      t = new Tabla<R>(nombre, unicos) as unknown as Tabla<{ id: string }>;
      this.tablas.set(nombre, t);
    }
    return t as unknown as Tabla<R>;
  }

  instantanea(): Map<string, Map<string, { id: string }>> {
    return new Map([...this.tablas].map(([n, t]) => [n, t.instantanea()]));
  }

  restaurar(copia: Map<string, Map<string, { id: string }>>): void {
    for (const [n, t] of this.tablas) t.restaurar(copia.get(n) ?? new Map());
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
