import type { Knex } from 'knex';
import type { Pagina, Tramo } from '../dominio/paginacion';

/**
 * Keyset pagination, newest first. Ids are time-ordered and unique, so "id < last seen" walks every row
 * that existed when the walk started exactly once, whatever is inserted meanwhile.
 */
export async function paginar<F>(
  consulta: Knex.QueryBuilder,
  pagina: Pagina,
  columnaId = 'id',
): Promise<Tramo<F>> {
  if (pagina.despuesDe) consulta.where(columnaId, '<', pagina.despuesDe);
  const filas = (await consulta.orderBy(columnaId, 'desc').limit(pagina.limite + 1)) as F[];
  return { datos: filas.slice(0, pagina.limite), hayMas: filas.length > pagina.limite };
}
