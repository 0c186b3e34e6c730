import type { Knex } from 'knex';
import type { Alcance } from '../../dominio/alcance';
import { RegistroDuplicado } from '../../dominio/errores';

/** The only way repositories open a business table: already filtered by account and mode. */
export function conAlcance(
  db: Knex | Knex.Transaction,
  tabla: string,
  a: Pick<Alcance, 'cuentaId' | 'modo'>,
): Knex.QueryBuilder {
  return db(tabla).where(`${tabla}.cuenta_id`, a.cuentaId).andWhere(`${tabla}.modo`, a.modo);
}

/** Columns every scoped insert carries. */
export const columnasAlcance = (a: Pick<Alcance, 'cuentaId' | 'modo'>) => ({
  cuenta_id: a.cuentaId,
  modo: a.modo,
});

/** MySQL/MariaDB duplicate-key error (unique index). */
export const esDuplicado = (e: unknown) => (e as { code?: string })?.code === 'ER_DUP_ENTRY';

/** Runs a write; a unique key's refusal comes out as the domain's `RegistroDuplicado`. */
export async function sinDuplicar<T>(escritura: () => Promise<T>): Promise<T> {
  try {
    return await escritura();
  } catch (e) {
    throw esDuplicado(e) ? new RegistroDuplicado(e) : e;
  }
}

/** `%texto%` for LIKE, with the wildcards the user typed taken literally. */
export const patronContiene = (texto: string) => `%${texto.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

/** MariaDB returns JSON columns as text; MySQL 8 as objects. Repositories hand out parsed documents. */
export const leerJson = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
