import type { Knex } from 'knex';
import type { Alcance } from '../../api/alcance';

/** The only way repositories open a business table: already filtered by account and mode. */
export function conAlcance(db: Knex | Knex.Transaction, tabla: string, a: Alcance): Knex.QueryBuilder {
  return db(tabla).where(`${tabla}.cuenta_id`, a.cuentaId).andWhere(`${tabla}.modo`, a.modo);
}

/** Columns every scoped insert carries. */
export const columnasAlcance = (a: Alcance) => ({ cuenta_id: a.cuentaId, modo: a.modo });

/** MySQL/MariaDB duplicate-key error (unique index). */
export const esDuplicado = (e: unknown) => (e as { code?: string })?.code === 'ER_DUP_ENTRY';
