import type { Alcance } from '../dominio/alcance';
import { noEncontrado } from '../dominio/errores';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import { dtoEvento } from '../presentacion/evento';

export function crearServicioEventos(deps: { eventos: RepositorioEventos }) {
  return {
    listar: async (a: Alcance, filtros: { tipo?: string }, pagina: Pagina) =>
      mapearTramo(await deps.eventos.listar(a, filtros, pagina), dtoEvento),
    async obtener(a: Alcance, id: string) {
      const f = await deps.eventos.obtener(a, id);
      if (!f) throw noEncontrado('evento_no_encontrado', `El evento ${id} no existe.`);
      return dtoEvento(f);
    },
  };
}

export type ServicioEventos = ReturnType<typeof crearServicioEventos>;
