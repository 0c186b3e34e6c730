import { esId } from '../db/ids';
import type { Pagina, Tramo } from '../dominio/paginacion';
import { ApiError } from './errores';

export const LIMITE_POR_DEFECTO = 20;
export const LIMITE_MAXIMO = 100;

export interface Lista<T> {
  objeto: 'lista';
  datos: T[];
  paginacion: { hay_mas: boolean; siguiente_cursor: string | null };
}

// Opaque on purpose: clients must not build cursors, so the encoding can change.
// `a` names the list when several share a prefix (the deliveries of a webhook, of an event).
const codificar = (id: string, ambito?: string) =>
  Buffer.from(JSON.stringify(ambito ? { v: 1, id, a: ambito } : { v: 1, id })).toString('base64url');

/** The id prefix of each list's items: a cursor only walks the list that issued it. */
export type PrefijoLista =
  | 'org'
  | 'cli'
  | 'prod'
  | 'cert'
  | 'llave'
  | 'fac'
  | 'evt'
  | 'pago'
  | 'wh'
  | 'ent'
  | 'cor'
  | 'rec';

function decodificar(
  cursor: string,
  prefijo: PrefijoLista | readonly PrefijoLista[],
  ambito?: string,
): string {
  const prefijos = typeof prefijo === 'string' ? [prefijo] : prefijo;
  try {
    const { v, id, a } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      v?: number;
      id?: unknown;
      a?: unknown;
    };
    if (v === 1 && a === ambito && typeof id === 'string' && esId(id, prefijos)) return id;
  } catch {
    // falls through to the error
  }
  throw new ApiError(
    'solicitud_invalida',
    'cursor_invalido',
    'El cursor no es válido para esta lista: use el valor de paginacion.siguiente_cursor de la página anterior de la misma lista.',
    'paginacion.cursor_inicio',
  );
}

/**
 * Reads `paginacion.limite` and `paginacion.cursor_inicio` (already type-checked by the OpenAPI validator). A list
 * of several kinds of item (the pending view) names every prefix its items may have.
 */
export function leerPagina(
  query: Record<string, unknown>,
  prefijo: PrefijoLista | readonly PrefijoLista[],
  ambito?: string,
): Pagina {
  const limite =
    query['paginacion.limite'] === undefined ? LIMITE_POR_DEFECTO : Number(query['paginacion.limite']);
  if (!Number.isInteger(limite) || limite < 1 || limite > LIMITE_MAXIMO) {
    throw new ApiError(
      'solicitud_invalida',
      'parametro_invalido',
      `paginacion.limite debe ser un entero entre 1 y ${LIMITE_MAXIMO}.`,
      'paginacion.limite',
    );
  }
  const cursor = query['paginacion.cursor_inicio'];
  return {
    limite,
    despuesDe: typeof cursor === 'string' && cursor ? decodificar(cursor, prefijo, ambito) : undefined,
  };
}

/** A page as every list answers it; the cursor is the last item's id, opaque to clients. */
export function lista<T extends { id: string }>(t: Tramo<T>, ambito?: string): Lista<T> {
  const ultimo = t.datos[t.datos.length - 1];
  return {
    objeto: 'lista',
    datos: t.datos,
    paginacion: {
      hay_mas: t.hayMas,
      siguiente_cursor: t.hayMas && ultimo ? codificar(ultimo.id, ambito) : null,
    },
  };
}
