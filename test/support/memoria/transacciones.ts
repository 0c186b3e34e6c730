import { AsyncLocalStorage } from 'node:async_hooks';
import type { OpcionesTransacciones, Transaccion, Transacciones } from '../../../db/transacciones';
import type { Almacen } from './almacen';

const abiertas = new WeakSet<object>();
// The events each open transaction has written, for the after-commit notification (the real `anotarEvento`).
const eventosDe = new WeakMap<object, string[]>();

/**
 * The real repositories run `tx` methods on the transaction's connection: a fake given a transaction that
 * already ended (or one it never opened) is a caller bug that MariaDB would report too.
 */
export function exigirAbierta(tx: Transaccion | undefined): void {
  if (tx !== undefined && !abiertas.has(tx)) throw new Error('transacción cerrada o ajena');
}

/** For the events fake: remember an event written inside `tx`, as `anotarEvento` does for the real one. */
export function anotarEventoEnMemoria(tx: Transaccion, id: string): void {
  eventosDe.get(tx)?.push(id);
}

/**
 * Commit or nothing: the work's writes stay only if it returns; a throw restores every table. The restore is
 * a snapshot of the whole store, so transactions run one at a time: two interleaved ones would undo each
 * other's writes, which MariaDB's row locks never do. A transaction opened inside another would wait for
 * itself forever, so it is refused.
 */
export function crearTransaccionesEnMemoria(
  almacen: Almacen,
  o: OpcionesTransacciones = {},
): Transacciones & { confirmadas: number } {
  const dentro = new AsyncLocalStorage<true>();
  let turno: Promise<void> = Promise.resolve();

  async function enTurno<T>(f: () => Promise<T>): Promise<T> {
    const anterior = turno;
    let liberar!: () => void;
    turno = new Promise<void>((r) => (liberar = r));
    await anterior;
    try {
      return await f();
    } finally {
      liberar();
    }
  }

  const t = {
    confirmadas: 0,
    async ejecutar<T>(trabajo: (tx: Transaccion) => Promise<T>): Promise<T> {
      if (dentro.getStore()) throw new Error('transacción anidada: el fake ejecuta una a la vez');
      const eventos: string[] = [];
      const r = await enTurno(() =>
        dentro.run(true, async () => {
          const antes = almacen.instantanea();
          const tx = {} as Transaccion;
          abiertas.add(tx);
          eventosDe.set(tx, eventos);
          try {
            const resultado = await trabajo(tx);
            t.confirmadas += 1;
            return resultado;
          } catch (e) {
            almacen.restaurar(antes);
            throw e;
          } finally {
            abiertas.delete(tx);
          }
        }),
      );
      if (eventos.length) o.alConfirmarEventos?.(eventos);
      return r;
    },
  };
  return t;
}
