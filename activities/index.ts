import { crearActividadesSonda, type DepsSonda } from './sonda-salud';

export type DepsActividades = DepsSonda;

/** Every activity, built from injected dependencies so tests can pass their own. */
export function crearActividades(deps: DepsActividades) {
  return {
    ...crearActividadesSonda(deps),
  };
}

export type Actividades = ReturnType<typeof crearActividades>;
