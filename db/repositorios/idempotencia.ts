import type { Knex } from 'knex';
import type { Alcance } from '../../dominio/alcance';
import { conexion, type Transaccion } from '../transacciones';
import type { Boveda, ContextoBoveda } from '../../seguridad/boveda';

export interface FilaIdempotencia {
  huella: Buffer;
  estado: 'en_curso' | 'completada';
  status: number | null;
  /** The stored answer, decrypted; null while the request runs. */
  cuerpo: string | null;
  /** What the request created, committed with it: set while `en_curso` means its answer was lost. */
  recurso: string | null;
  creado_en: Date;
  actualizado_en: Date;
}

interface FilaBd extends Omit<FilaIdempotencia, 'cuerpo'> {
  cuerpo_cifrado: Buffer | null;
  dek_cifrada: Buffer | null;
  version_clave: number | null;
}

const clavePk = (a: Alcance, clave: string) => ({ cuenta_id: a.cuentaId, modo: a.modo, clave });

// The ciphertext is bound to the account, mode and request fingerprint: it cannot be replayed elsewhere.
const contexto = (a: Alcance, huella: Buffer): ContextoBoveda => ({
  cuentaId: a.cuentaId,
  modo: a.modo,
  registroId: `idempotencia:${huella.toString('hex')}`,
});

/** Keeps each answer to replay it; answers may carry secrets (a new key's `secreto`), so they are encrypted. */
export function crearRepositorioIdempotencia(db: Knex, boveda: Boveda) {
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
      const f: FilaBd | undefined = await db('idempotencia')
        .select(
          'huella',
          'estado',
          'status',
          'cuerpo_cifrado',
          'dek_cifrada',
          'version_clave',
          'recurso',
          'creado_en',
          'actualizado_en',
        )
        .where(clavePk(a, clave))
        .first();
      if (!f) return undefined;
      const { cuerpo_cifrado, dek_cifrada, version_clave, ...resto } = f;
      const cuerpo =
        cuerpo_cifrado && dek_cifrada && version_clave !== null
          ? boveda
              .abrir(contexto(a, f.huella), dek_cifrada, { cuerpo: cuerpo_cifrado }, version_clave)
              .cuerpo!.toString('utf8')
          : null;
      return { ...resto, cuerpo };
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
          cuerpo_cifrado: null,
          dek_cifrada: null,
          version_clave: null,
          recurso: null,
          creado_en: ahora,
          actualizado_en: ahora,
        });
      return n === 1;
    },

    async completar(
      a: Alcance,
      clave: string,
      huella: Buffer,
      status: number,
      cuerpo: string,
      ahora: Date,
    ): Promise<void> {
      const sellado = boveda.sellar(contexto(a, huella), { cuerpo: Buffer.from(cuerpo, 'utf8') });
      await db('idempotencia').where(clavePk(a, clave)).update({
        estado: 'completada',
        status,
        cuerpo_cifrado: sellado.campos.cuerpo,
        dek_cifrada: sellado.dekCifrada,
        version_clave: sellado.version,
        actualizado_en: ahora,
      });
    },

    /** Inside the creating transaction: the key now names what it created, committed or rolled back with it. */
    async anotarRecurso(tx: Transaccion, a: Alcance, clave: string, recurso: string): Promise<void> {
      await conexion(db, tx)('idempotencia')
        .where(clavePk(a, clave))
        .where({ estado: 'en_curso' })
        .update({ recurso });
    },

    /** A request that ended without an answer to keep: its key is free again, unless it created something. */
    async liberar(a: Alcance, clave: string): Promise<void> {
      await db('idempotencia')
        .where(clavePk(a, clave))
        .where({ estado: 'en_curso' })
        .whereNull('recurso')
        .delete();
    },

    async purgarAnterioresA(limite: Date): Promise<number> {
      return db('idempotencia').where('creado_en', '<', limite).delete();
    },
  };
}

export type RepositorioIdempotencia = ReturnType<typeof crearRepositorioIdempotencia>;
