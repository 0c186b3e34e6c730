import { esperarHasta, type OpcionesEspera } from '../esperar';
import { Paginador } from '../paginacion';
import type { Correo, CorreoNuevo, FiltrosLista } from '../tipos';
import type { OpcionesSolicitud } from '../transporte';
import { Grupo, seg } from './comun';

/** The emails of invoices to their receivers: send one again, read the log, wait for one. */
export class Correos extends Grupo {
  /** `POST /v1/facturas/{id}/correo`: 202 with the email `pendiente`; `esperar` follows it. */
  enviar(facturaId: string, datos: CorreoNuevo = {}, opciones?: OpcionesSolicitud): Promise<Correo> {
    return this.crearJson(`/v1/facturas/${seg(facturaId)}/correo`, datos, opciones);
  }
  obtener(id: string, opciones?: OpcionesSolicitud): Promise<Correo> {
    return this.obtenerJson(`/v1/correos/${seg(id)}`, opciones);
  }
  /** The email log, newest first; `{ factura }` gives one invoice's. */
  listar(filtros: FiltrosLista<'listarCorreos'> = {}, opciones?: OpcionesSolicitud): Paginador<Correo> {
    return new Paginador(this.t, '/v1/correos', filtros, opciones);
  }
  /** Waits until the email leaves `pendiente` (`enviado` or `fallido`). */
  esperar(correo: Correo | string, opciones?: OpcionesEspera): Promise<Correo> {
    return esperarHasta(
      this.t,
      correo,
      (id) => `/v1/correos/${seg(id)}`,
      (c) => c.estado !== 'pendiente',
      'El correo',
      opciones,
    );
  }
}
