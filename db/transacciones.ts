import type { Knex } from 'knex';

declare const marca: unique symbol;
/** A unit of work opened by `Transacciones`; only repositories look inside it. */
export type Transaccion = { readonly [marca]: true };

/** Port for services and activities: several repository writes that commit together or not at all. */
export interface Transacciones {
  ejecutar<T>(trabajo: (tx: Transaccion) => Promise<T>): Promise<T>;
}

export function crearTransacciones(db: Knex): Transacciones {
  return { ejecutar: (trabajo) => db.transaction((trx) => trabajo(trx as unknown as Transaccion)) };
}

/** For repositories: the transaction's connection, or the pool outside one. */
export const conexion = (db: Knex, tx?: Transaccion): Knex | Knex.Transaction =>
  tx ? (tx as unknown as Knex.Transaction) : db;
