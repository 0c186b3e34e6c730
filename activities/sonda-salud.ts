import type { RepositorioSondas } from '../db/repositorios/sondas';
import type { Navegador } from '../pdf/navegador';

export interface DepsSonda {
  sondas: RepositorioSondas;
  navegador: Pick<Navegador, 'version'>;
  identidadWorker: string;
}

export function crearActividadesSonda({ sondas, navegador, identidadWorker }: DepsSonda) {
  return {
    async registrarSonda(id: string): Promise<void> {
      let chromium: string | null = null;
      let chromiumError: string | null = null;
      try {
        chromium = await navegador.version();
      } catch (e) {
        chromiumError = (e as Error).message.slice(0, 500);
      }
      await sondas.registrar({ id, worker: identidadWorker, chromium, chromium_error: chromiumError });
    },

    /** The stamping worker's part: polling and MySQL; Chromium is the PDF worker's (its own probe row). */
    async registrarSondaWorker(id: string): Promise<void> {
      await sondas.registrar({ id, worker: identidadWorker, chromium: null, chromium_error: null });
    },
  };
}
