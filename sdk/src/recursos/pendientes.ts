import { Paginador } from '../paginacion';
import type { ConsultaDe, FiltrosLista, Pendiente, ResumenFacturacion } from '../tipos';
import type { OpcionesSolicitud } from '../transporte';
import { Grupo } from './comun';

/** Every operation not final yet, of every kind, with its cause in words and what may be done about it. */
export class Pendientes extends Grupo {
  /** `GET /v1/pendientes`, newest first; `{ tipo, organizacion, antes_de }` narrow it. */
  listar(filtros: FiltrosLista<'listarPendientes'> = {}, opciones?: OpcionesSolicitud): Paginador<Pendiente> {
    return new Paginador(this.t, '/v1/pendientes', filtros, opciones);
  }
}

/** The billing summary of a dashboard: billed, cancelled and collected per day or month. */
export class Resumen extends Grupo {
  /** `GET /v1/resumen`: `{ desde, hasta, agrupacion, organizacion, moneda }`, all optional. */
  facturacion(
    consulta: ConsultaDe<'obtenerResumenFacturacion'> = {},
    opciones?: OpcionesSolicitud,
  ): Promise<ResumenFacturacion> {
    return this.t.json({ metodo: 'GET', ruta: '/v1/resumen', consulta, opciones });
  }
}
