import type { Alcance } from '../api/alcance';
import { ApiError } from '../api/errores';
import { paginar, type Pagina } from '../api/paginacion';
import type { FilaEvento, RepositorioEventos } from '../db/repositorios/eventos';

export function dtoEvento(f: FilaEvento) {
  return {
    id: f.id,
    objeto: 'evento' as const,
    modo: f.modo,
    tipo: f.tipo,
    creado_en: new Date(f.creado_en).toISOString(),
    // MariaDB returns JSON columns as text; MySQL 8 as objects.
    datos: typeof f.datos === 'string' ? (JSON.parse(f.datos) as Record<string, unknown>) : f.datos,
  };
}

export function crearServicioEventos(deps: { eventos: RepositorioEventos }) {
  return {
    listar: (a: Alcance, tipo: string | undefined, pagina: Pagina) =>
      paginar(deps.eventos.consulta(a, tipo), pagina, dtoEvento),
    async obtener(a: Alcance, id: string) {
      const f = await deps.eventos.obtener(a, id);
      if (!f) throw new ApiError('no_encontrado', 'evento_no_encontrado', `El evento ${id} no existe.`, 'id');
      return dtoEvento(f);
    },
  };
}

export type ServicioEventos = ReturnType<typeof crearServicioEventos>;
