import type { Transaccion, Transacciones } from '../../../db/transacciones';
import type { Almacen } from './almacen';

const abiertas = new WeakSet<object>();

/**
 * The real repositories run `tx` methods on the transaction's connection: a fake given a transaction that
 * already ended (or one it never opened) is a caller bug that MariaDB would report too.
 */
export function exigirAbierta(tx: Transaccion | undefined): void {
  if (tx !== undefined && !abiertas.has(tx)) throw new Error('transacción cerrada o ajena');
}

/** Commit or nothing: the work's writes stay only if it returns; a throw restores every table. */
export function crearTransaccionesEnMemoria(almacen: Almacen): Transacciones & { confirmadas: number } {
  const t = {
    confirmadas: 0,
    async ejecutar<T>(trabajo: (tx: Transaccion) => Promise<T>): Promise<T> {
      const antes = almacen.instantanea();
      const tx = {} as Transaccion;
      abiertas.add(tx);
      try {
        const r = await trabajo(tx);
        t.confirmadas += 1;
        return r;
      } catch (e) {
        almacen.restaurar(antes);
        throw e;
      } finally {
        abiertas.delete(tx);
      }
    },
  };
  return t;
}
