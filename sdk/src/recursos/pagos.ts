import { esperarHasta, type OpcionesEspera } from '../esperar';
import { Paginador } from '../paginacion';
import type { FiltrosLista, Pago, PagoNuevo } from '../tipos';
import type { OpcionesSolicitud } from '../transporte';
import { Grupo, seg } from './comun';

const ruta = (id: string) => `/v1/pagos/${seg(id)}`;

/** `estado` values of a payment still in progress: being validated, or its CFDI being stamped. */
const PAGO_EN_CURSO: ReadonlySet<string> = new Set(['registrando', 'borrador']);

export class Pagos extends Grupo {
  /** `POST /v1/pagos`: 201 with its CFDI stamped, or 202 while it is validated or stamped (then `esperar`). */
  crear(datos: PagoNuevo, opciones?: OpcionesSolicitud): Promise<Pago> {
    return this.crearJson('/v1/pagos', datos, opciones);
  }
  obtener(id: string, opciones?: OpcionesSolicitud): Promise<Pago> {
    return this.obtenerJson(ruta(id), opciones);
  }
  listar(filtros: FiltrosLista<'listarPagos'> = {}, opciones?: OpcionesSolicitud): Paginador<Pago> {
    return new Paginador(this.t, '/v1/pagos', filtros, opciones);
  }
  /** Waits until the payment is `timbrada`, `rechazado` (see `error`) or `cancelada`. */
  esperar(pago: Pago | string, opciones?: OpcionesEspera): Promise<Pago> {
    return esperarHasta(this.t, pago, ruta, (p) => !PAGO_EN_CURSO.has(p.estado), 'El pago', opciones);
  }
}
