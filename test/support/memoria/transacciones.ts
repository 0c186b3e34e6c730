import { AsyncLocalStorage } from 'node:async_hooks';
import type { OpcionesTransacciones, Transaccion, Transacciones } from '../../../db/transacciones';
import { enConexion, type Almacen } from './almacen';

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

/**
 * The fake repository with each method run on the connection it would use in MariaDB (`enConexion`): the open
 * transaction's when given it (as an argument, or as `{ tx }`), which sees the transaction's writes; another one
 * otherwise, which while a transaction is open sees only what was committed, as under READ COMMITTED.
 */
export function porConexion<T extends object>(repositorio: T): T {
  const esAbierta = (x: unknown) =>
    typeof x === 'object' && x !== null && (abiertas.has(x) || abiertas.has((x as { tx?: object }).tx ?? {}));
  return Object.fromEntries(
    Object.entries(repositorio).map(([nombre, metodo]) => [
      nombre,
      typeof metodo === 'function'
        ? (...args: unknown[]) => enConexion(!args.some(esAbierta), () => metodo(...args))
        : metodo,
    ]),
  ) as T;
}

/** For the events fake: remember an event written inside `tx`, as `anotarEvento` does for the real one. */
export function anotarEventoEnMemoria(tx: Transaccion, id: string): void {
  eventosDe.get(tx)?.push(id);
}

/**
 * Commit or nothing: the work's writes stay only if it returns; a throw puts back what was committed before it.
 * Until then other connections see only that (`Almacen.abrir`). The store keeps one such snapshot, so
 * transactions run one at a time: the second waits as MariaDB's row locks make it wait, only for any row. A
 * transaction opened inside another would wait for itself forever, so it is refused.
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
          almacen.abrir();
          const tx = {} as Transaccion;
          abiertas.add(tx);
          eventosDe.set(tx, eventos);
          try {
            const resultado = await trabajo(tx);
            almacen.confirmar();
            t.confirmadas += 1;
            return resultado;
          } catch (e) {
            almacen.deshacer();
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
