import type { Alcance } from '../dominio/alcance';
import { noEncontrado } from '../dominio/errores';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioPagos } from '../db/repositorios/pagos';
import { dtoEvento } from '../presentacion/evento';

export interface FiltrosEventos {
  tipo?: string;
  /** `fac_…`: its own events, its payments' and their CFDIs'. */
  factura?: string;
  /** `pago_…`: the payment's events and its CFDI's. */
  pago?: string;
}

export function crearServicioEventos(deps: {
  eventos: RepositorioEventos;
  facturas: Pick<RepositorioFacturas, 'obtener'>;
  pagos: Pick<RepositorioPagos, 'obtener'>;
}) {
  return {
    async listar(a: Alcance, filtros: FiltrosEventos, pagina: Pagina) {
      // A filter naming a resource outside the scope is a missing one, as in every list.
      if (filtros.factura && !(await deps.facturas.obtener(a, filtros.factura)))
        throw noEncontrado('factura_no_encontrada', `La factura ${filtros.factura} no existe.`, 'factura');
      if (filtros.pago && !(await deps.pagos.obtener(a, filtros.pago)))
        throw noEncontrado('pago_no_encontrado', `El pago ${filtros.pago} no existe.`, 'pago');
      const f = { tipo: filtros.tipo, facturaId: filtros.factura, pagoId: filtros.pago };
      return mapearTramo(await deps.eventos.listar(a, f, pagina), dtoEvento);
    },
    async obtener(a: Alcance, id: string) {
      const f = await deps.eventos.obtener(a, id);
      if (!f) throw noEncontrado('evento_no_encontrado', `El evento ${id} no existe.`);
      return dtoEvento(f);
    },
  };
}

export type ServicioEventos = ReturnType<typeof crearServicioEventos>;
