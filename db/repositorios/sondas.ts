import type { Knex } from 'knex';

export interface FilaSonda {
  id: string;
  worker: string;
  chromium: string | null;
  chromium_error: string | null;
}

/** The health probe's round trip: the worker writes a row, the API reads it back; plus the server's version. */
export function crearRepositorioSondas(db: Knex) {
  return {
    /** Upsert keeps the probe activity idempotent under retries. */
    async registrar(f: FilaSonda): Promise<void> {
      await db('sondas_salud').insert(f).onConflict('id').merge();
    },
    async obtener(id: string): Promise<FilaSonda | undefined> {
      return db('sondas_salud').select('id', 'worker', 'chromium', 'chromium_error').where({ id }).first();
    },
    async versionServidor(): Promise<string> {
      const [filas] = await db.raw('SELECT VERSION() AS v');
      return String(filas[0].v);
    },
  };
}

export type RepositorioSondas = ReturnType<typeof crearRepositorioSondas>;
