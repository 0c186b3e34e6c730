import type { Knex } from 'knex';
import type { Alcance } from '../../api/alcance';

export interface FilaIdempotencia {
  huella: Buffer;
  estado: 'en_curso' | 'completada';
  status: number | null;
  cuerpo: string | null;
  creado_en: Date;
  actualizado_en: Date;
}

const clavePk = (a: Alcance, clave: string) => ({ cuenta_id: a.cuentaId, modo: a.modo, clave });

export function crearRepositorioIdempotencia(db: Knex) {
  return {
    /** Claims the key atomically: true when this request is the one that runs. */
    async reclamar(a: Alcance, clave: string, huella: Buffer, ahora: Date): Promise<boolean> {
      const [r] = await db.raw(
        `INSERT IGNORE INTO idempotencia (cuenta_id, modo, clave, huella, estado, creado_en, actualizado_en)
         VALUES (?, ?, ?, ?, 'en_curso', ?, ?)`,
        [a.cuentaId, a.modo, clave, huella, ahora, ahora],
      );
      return (r as { affectedRows: number }).affectedRows === 1;
    },

    async leer(a: Alcance, clave: string): Promise<FilaIdempotencia | undefined> {
      return db('idempotencia')
        .select('huella', 'estado', 'status', 'cuerpo', 'creado_en', 'actualizado_en')
        .where(clavePk(a, clave))
        .first();
    },

    /** Takes over an expired or abandoned row, only if it is still the row we read (no race with another taker). */
    async retomar(
      a: Alcance,
      clave: string,
      leida: FilaIdempotencia,
      huella: Buffer,
      ahora: Date,
    ): Promise<boolean> {
      const n = await db('idempotencia')
        .where(clavePk(a, clave))
        .where({ actualizado_en: leida.actualizado_en, estado: leida.estado })
        .update({
          huella,
          estado: 'en_curso',
          status: null,
          cuerpo: null,
          creado_en: ahora,
          actualizado_en: ahora,
        });
      return n === 1;
    },

    async completar(a: Alcance, clave: string, status: number, cuerpo: string, ahora: Date): Promise<void> {
      await db('idempotencia')
        .where(clavePk(a, clave))
        .update({ estado: 'completada', status, cuerpo, actualizado_en: ahora });
    },

    async liberar(a: Alcance, clave: string): Promise<void> {
      await db('idempotencia').where(clavePk(a, clave)).where({ estado: 'en_curso' }).delete();
    },

    async purgarAnterioresA(limite: Date): Promise<number> {
      return db('idempotencia').where('creado_en', '<', limite).delete();
    },
  };
}

export type RepositorioIdempotencia = ReturnType<typeof crearRepositorioIdempotencia>;
