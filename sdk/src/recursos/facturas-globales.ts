import type { Factura, FacturaGlobalNueva } from '../tipos';
import type { OpcionesSolicitud } from '../transporte';
import { Grupo } from './comun';

/** Global invoices to the general public: the open receipts of a closed period in one CFDI. */
export class FacturasGlobales extends Grupo {
  /**
   * `POST /v1/facturas_globales`: 201 stamped (or 202 while stamping) with `factura_global` set; its receipts
   * move to `en_factura_global`. Without `fecha`, the period that closed last.
   */
  crear(datos: FacturaGlobalNueva, opciones?: OpcionesSolicitud): Promise<Factura> {
    return this.crearJson('/v1/facturas_globales', datos, opciones);
  }
}
