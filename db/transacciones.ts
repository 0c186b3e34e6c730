import type { Knex } from 'knex';

declare const marca: unique symbol;
/** A unit of work opened by `Transacciones`; only repositories look inside it. */
export type Transaccion = { readonly [marca]: true };

/** Port for services and activities: several repository writes that commit together or not at all. */
export interface Transacciones {
  ejecutar<T>(trabajo: (tx: Transaccion) => Promise<T>): Promise<T>;
}

/**
 * Every transaction runs READ COMMITTED (the pool sets each connection so when it opens it, db/conexion.ts). Our
 * transactions lock rows (`FOR UPDATE`) and then read what depends on them: under REPEATABLE READ a plain read
 * made before the lock would fix an older snapshot, and locking reads through a secondary index take gap locks
 * that deadlock against a concurrent insert (two payments of the same invoices). Under READ COMMITTED every read
 * sees the latest commit and locks only the rows it finds.
 */
export function crearTransacciones(db: Knex, o: OpcionesTransacciones = {}): Transacciones {
  return {
    async ejecutar(trabajo) {
      for (let intento = 1; ; intento++) {
        const eventos: string[] = [];
        try {
          const r = await db.transaction((trx) => {
            eventosDe.set(trx, eventos);
            return trabajo(trx as unknown as Transaccion);
          });
          if (eventos.length) o.alConfirmarEventos?.(eventos);
          return r;
        } catch (e) {
          if (intento >= INTENTOS_POR_INTERBLOQUEO || !esInterbloqueo(e)) throw e;
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * intento));
        }
      }
    },
  };
}

/**
 * InnoDB resolves a deadlock by rolling back one transaction whole and telling it to start again: the unit of
 * work runs again (its body must change nothing outside the transaction), at most this many times in all.
 */
const INTENTOS_POR_INTERBLOQUEO = 3;
const esInterbloqueo = (e: unknown) => (e as { code?: unknown } | undefined)?.code === 'ER_LOCK_DEADLOCK';

export interface OpcionesTransacciones {
  /**
   * Told the ids of the events a transaction wrote, once it committed (the outbox's fast path). Must not
   * throw: whatever it misses, the reconciler finds in `eventos_por_despachar`.
   */
  alConfirmarEventos?: (eventoIds: string[]) => void;
}

// The events each open transaction has written, for its after-commit notification.
const eventosDe = new WeakMap<object, string[]>();

/** For the events repository: remember an event written inside `tx`. */
export function anotarEvento(tx: Transaccion, id: string): void {
  eventosDe.get(tx as unknown as object)?.push(id);
}

/** For repositories: the transaction's connection, or the pool outside one. */
export const conexion = (db: Knex, tx?: Transaccion): Knex | Knex.Transaction =>
  tx ? (tx as unknown as Knex.Transaction) : db;
