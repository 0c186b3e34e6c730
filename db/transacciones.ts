import type { Knex } from 'knex';

declare const marca: unique symbol;
/** A unit of work opened by `Transacciones`; only repositories look inside it. */
export type Transaccion = { readonly [marca]: true };

/** Port for services and activities: several repository writes that commit together or not at all. */
export interface Transacciones {
  ejecutar<T>(trabajo: (tx: Transaccion) => Promise<T>): Promise<T>;
}

/**
 * Every transaction runs READ COMMITTED. Our transactions lock rows (`FOR UPDATE`) and then read what depends
 * on them: under REPEATABLE READ a plain read made before the lock would fix an older snapshot, and locking
 * reads through a secondary index take gap locks that deadlock against a concurrent insert (two payments of
 * the same invoices). Under READ COMMITTED every read sees the latest commit and locks only the rows it finds.
 */
export function crearTransacciones(db: Knex): Transacciones {
  return {
    ejecutar: (trabajo) =>
      db.transaction((trx) => trabajo(trx as unknown as Transaccion), { isolationLevel: 'read committed' }),
  };
}

/** For repositories: the transaction's connection, or the pool outside one. */
export const conexion = (db: Knex, tx?: Transaccion): Knex | Knex.Transaction =>
  tx ? (tx as unknown as Knex.Transaction) : db;
