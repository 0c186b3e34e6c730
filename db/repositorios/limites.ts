import type { Knex } from 'knex';
import type { Alcance } from '../../dominio/alcance';

/** A key's token bucket: `rafaga` requests at once, refilled at `porSegundo`. */
export interface Cubeta {
  rafaga: number;
  porSegundo: number;
}

export interface Ficha {
  /** Whether this request took a token. */
  concedida: boolean;
  /** Tokens left after it, in thousandths (integers: the same figure on every replica and engine). */
  milifichas: number;
}

export interface VentanaFallos {
  fallos: number;
  inicio: Date;
}

// A counter that cannot overflow its INT column, however long an address keeps failing.
const TOPE_FALLOS = 1_000_000_000;

/** The `insertId` of the OK packet: what the statement passed to LAST_INSERT_ID(expr). */
const valorDevuelto = (r: unknown) => Number((r as { insertId: number | string }).insertId);

/**
 * The API's limits, shared by every replica through the database. Each write is one statement that reads and
 * changes its row under the row's lock, so two replicas taking the last token at once cannot both get it; its
 * figure comes back in the same round trip through LAST_INSERT_ID(expr), which MySQL and MariaDB both report in
 * the statement's OK packet (INSERT … RETURNING is MariaDB's only).
 */
export function crearRepositorioLimites(db: Knex) {
  return {
    /**
     * Refills the key's bucket for the time since its last request (never for time going back: replicas' clocks
     * differ a little), then takes one token if a whole one is there. A key's first request finds it full.
     * The self-invoicing portal keeps its buckets here too, under a `cuentaId` of its own
     * (`BUCKETS_AUTOFACTURA`) and a client address or a receipt key's hash as `llaveId`.
     */
    async tomarFicha(a: Pick<Alcance, 'cuentaId' | 'llaveId'>, c: Cubeta, ahora: Date): Promise<Ficha> {
      const capacidad = c.rafaga * 1000;
      const t = ahora.getTime();
      // Milli-tokens per elapsed millisecond = tokens per second. Assignments run left to right: milifichas is
      // computed from the old actualizado_ms, which changes after it.
      const recarga = `LEAST(?, milifichas + GREATEST(0, ? - actualizado_ms) * ?)`;
      const [r] = await db.raw(
        `INSERT INTO limites_llaves (cuenta_id, llave_id, milifichas, actualizado_ms)
         VALUES (?, ?, LAST_INSERT_ID(?) - 1000, ?)
         ON DUPLICATE KEY UPDATE
           milifichas = LAST_INSERT_ID(${recarga}) - IF(${recarga} >= 1000, 1000, 0),
           actualizado_ms = GREATEST(actualizado_ms, ?)`,
        [
          ...[a.cuentaId, a.llaveId, capacidad, t],
          ...[capacidad, t, c.porSegundo, capacidad, t, c.porSegundo, t],
        ],
      );
      // What the bucket held before this request's token.
      const antes = valorDevuelto(r);
      const concedida = antes >= 1000;
      return { concedida, milifichas: concedida ? antes - 1000 : antes };
    },

    /**
     * Forgets the buckets of `cuentaId` untouched since `antesDe`: a caller passes an instant after which every one
     * of them has refilled to its burst, so deleting them changes no answer (a first request finds the bucket
     * full). Keeps the portal's buckets, one per client address or key, from piling up.
     */
    async purgarCubetasInactivas(cuentaId: string, antesDe: Date): Promise<number> {
      return db('limites_llaves')
        .where('cuenta_id', cuentaId)
        .andWhere('actualizado_ms', '<', antesDe.getTime())
        .delete();
    },

    /** Counts one failed authentication of the address: the count in its window, this one included. */
    async registrarFallo(direccion: string, ventanaMs: number, ahora: Date): Promise<number> {
      const t = ahora.getTime();
      // An expired window starts again at this failure; fallos is assigned first, from the old inicio_ms.
      const [r] = await db.raw(
        `INSERT INTO fallos_autenticacion (direccion, inicio_ms, fallos)
         VALUES (?, ?, LAST_INSERT_ID(1))
         ON DUPLICATE KEY UPDATE
           fallos = LAST_INSERT_ID(IF(? - inicio_ms >= ?, 1, LEAST(fallos + 1, ?))),
           inicio_ms = IF(? - inicio_ms >= ?, ?, inicio_ms)`,
        [direccion, t, t, ventanaMs, TOPE_FALLOS, t, ventanaMs, t],
      );
      return valorDevuelto(r);
    },

    /** The address's last window (expired or not: the caller knows its length). */
    async leerFallos(direccion: string): Promise<VentanaFallos | undefined> {
      const f = (await db('fallos_autenticacion')
        .select('fallos', 'inicio_ms')
        .where({ direccion })
        .first()) as { fallos: number; inicio_ms: string | number } | undefined;
      return f && { fallos: f.fallos, inicio: new Date(Number(f.inicio_ms)) };
    },

    /** Forgets windows that started before `limite` (every one of them has ended): the table stays small. */
    async purgarFallosAnterioresA(limite: Date): Promise<number> {
      return db('fallos_autenticacion').where('inicio_ms', '<', limite.getTime()).delete();
    },
  };
}

export type RepositorioLimites = ReturnType<typeof crearRepositorioLimites>;
