import { crearActividadesPdf, type GeneradorPdf } from './pdf';
import { crearActividadesSonda, type DepsSonda } from './sonda-salud';
import { crearActividadesTimbrado, type DepsTimbrado } from './timbrado';

export type DepsActividades = DepsSonda & DepsTimbrado & { pdf: GeneradorPdf };

/** Every activity, built from injected dependencies so tests can pass their own. */
export function crearActividades(deps: DepsActividades) {
  return {
    ...crearActividadesSonda(deps),
    ...crearActividadesTimbrado(deps),
    ...crearActividadesPdf(deps),
  };
}

export type Actividades = ReturnType<typeof crearActividades>;
