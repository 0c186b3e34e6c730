import { Paginador } from '../paginacion';
import type { FiltrosLista, Pendiente } from '../tipos';
import type { OpcionesSolicitud } from '../transporte';
import { Grupo } from './comun';

/** Every operation not final yet, of every kind, with its cause in words and what may be done about it. */
export class Pendientes extends Grupo {
  /** `GET /v1/pendientes`, newest first; `{ tipo, organizacion, antes_de }` narrow it. */
  listar(filtros: FiltrosLista<'listarPendientes'> = {}, opciones?: OpcionesSolicitud): Paginador<Pendiente> {
    return new Paginador(this.t, '/v1/pendientes', filtros, opciones);
  }
}
