import type { Lista } from './tipos';
import type { OpcionesSolicitud, Transporte } from './transporte';

/**
 * A collection read page by page with `paginacion.cursor_inicio`, lazily: nothing is requested until it is
 * iterated or a page is asked for. `for await (const x of paginador)` walks every element of every page.
 */
export class Paginador<T> implements AsyncIterable<T> {
  constructor(
    private readonly transporte: Transporte,
    private readonly ruta: string,
    private readonly filtros: Record<string, unknown>,
    private readonly opciones?: OpcionesSolicitud,
  ) {}

  /** One page: the first (or the one at the `cursor` given to `listar`), or the one at `cursor`. */
  pagina(cursor?: string): Promise<Lista<T>> {
    const { limite, cursor: inicial, ...resto } = this.filtros;
    return this.transporte.json<Lista<T>>({
      metodo: 'GET',
      ruta: this.ruta,
      consulta: {
        ...resto,
        'paginacion.limite': limite,
        'paginacion.cursor_inicio': cursor ?? inicial,
      },
      opciones: this.opciones,
    });
  }

  /** Every page, in order; the same filters go with each cursor, as the contract requires. */
  async *paginas(): AsyncGenerator<Lista<T>, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const p = await this.pagina(cursor);
      yield p;
      // A page claiming more without a cursor would loop forever on the first page.
      if (!p.paginacion.hay_mas || !p.paginacion.siguiente_cursor) return;
      cursor = p.paginacion.siguiente_cursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const p of this.paginas()) yield* p.datos;
  }

  /** Up to `maximo` elements (all by default) in an array. */
  async aArreglo(maximo = Number.POSITIVE_INFINITY): Promise<T[]> {
    const todos: T[] = [];
    if (maximo <= 0) return todos;
    for await (const x of this) {
      todos.push(x);
      if (todos.length >= maximo) break;
    }
    return todos;
  }
}
