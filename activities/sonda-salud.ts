import type { Knex } from 'knex';
import type { Navegador } from '../pdf/navegador';

export interface DepsSonda {
  db: Knex;
  navegador: Navegador;
  identidadWorker: string;
}

export function crearActividadesSonda({ db, navegador, identidadWorker }: DepsSonda) {
  return {
    async registrarSonda(id: string): Promise<void> {
      let chromium: string | null = null;
      let chromiumError: string | null = null;
      try {
        chromium = await navegador.version();
      } catch (e) {
        chromiumError = (e as Error).message.slice(0, 500);
      }
      // Upsert keeps the activity idempotent under retries.
      await db('sondas_salud')
        .insert({ id, worker: identidadWorker, chromium, chromium_error: chromiumError })
        .onConflict('id')
        .merge();
    },
  };
}
