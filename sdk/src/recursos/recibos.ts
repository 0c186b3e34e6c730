import { Paginador } from '../paginacion';
import type { Factura, FacturacionRecibo, FiltrosLista, Recibo, ReciboNuevo } from '../tipos';
import type { OpcionesSolicitud } from '../transporte';
import { Grupo, seg } from './comun';

const ruta = (id: string) => `/v1/recibos/${seg(id)}`;

/** Receipts of sales to the public: the buyer invoices one with its `clave` at `url_autofactura`. */
export class Recibos extends Grupo {
  /** `POST /v1/recibos`: 201 with the receipt `abierto`, its `clave` and `url_autofactura`. */
  crear(datos: ReciboNuevo, opciones?: OpcionesSolicitud): Promise<Recibo> {
    return this.crearJson('/v1/recibos', datos, opciones);
  }
  obtener(id: string, opciones?: OpcionesSolicitud): Promise<Recibo> {
    return this.obtenerJson(ruta(id), opciones);
  }
  /** Newest first; `{ organizacion, estado, fecha_desde, fecha_hasta, factura_global }` combine. */
  listar(filtros: FiltrosLista<'listarRecibos'> = {}, opciones?: OpcionesSolicitud): Paginador<Recibo> {
    return new Paginador(this.t, '/v1/recibos', filtros, opciones);
  }
  /** Only an `abierto` receipt (409 `recibo_no_abierto` otherwise). */
  cancelar(id: string, opciones?: OpcionesSolicitud): Promise<Recibo> {
    return this.t.json({ metodo: 'POST', ruta: `${ruta(id)}/cancelar`, opciones });
  }
  /**
   * `POST /v1/recibos/{id}/facturar`: the buyer's fiscal data turn an `abierto` receipt into a stamped invoice
   * (201, or 202 while stamping; 200 with the same invoice when it was already invoiced to that RFC).
   */
  facturar(id: string, datos: FacturacionRecibo, opciones?: OpcionesSolicitud): Promise<Factura> {
    return this.crearJson(`${ruta(id)}/facturar`, datos, opciones);
  }
  /** The QR code of `url_autofactura` for the printed ticket: PNG bytes, or SVG with `'svg'`. */
  qr(id: string, formato: 'png' | 'svg' = 'png', opciones?: OpcionesSolicitud): Promise<Uint8Array> {
    return this.t.bytes({
      metodo: 'GET',
      ruta: `${ruta(id)}/qr`,
      ...(formato === 'svg' ? { consulta: { formato } } : {}),
      binario: formato === 'svg' ? 'image/svg+xml' : 'image/png',
      opciones,
    });
  }
}
