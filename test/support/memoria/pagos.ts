import type { FilaPago, RepositorioPagos } from '../../../db/repositorios/pagos';
import type { Alcance } from '../../../dominio/alcance';
import type { EstadoPago, ParcialidadPago, RechazoPago, SolicitudPago } from '../../../dominio/pago';
import {
  columnasAlcance,
  copiaJson,
  decimal6,
  enAlcance,
  paginarEnMemoria,
  type Almacen,
  type ColumnasAlcance,
} from './almacen';
import { exigirAbierta, porConexion } from './transacciones';

export type PagoGuardado = ColumnasAlcance & {
  id: string;
  organizacion_id: string;
  estado: EstadoPago;
  solicitud: SolicitudPago;
  error: RechazoPago | null;
  factura_pago_id: string | null;
  creado_en: Date;
  actualizado_en: Date;
};

/** A ledger row; its id is `pago|factura`, the real primary key. */
export type RenglonLibro = ColumnasAlcance & ParcialidadPago & { id: string; pago_id: string };

export const tablaPagos = (m: Almacen) => m.tabla<PagoGuardado>('pagos');
export const tablaLibro = (m: Almacen) =>
  // The real unique key: two vigente rows of one invoice never share an instalment number.
  m.tabla<RenglonLibro>('pagos_facturas', [
    { nombre: 'parcialidad_unica', clave: (r) => (r.vigente ? `${r.factura}|${r.num_parcialidad}` : null) },
  ]);

export function crearPagosEnMemoria(m: Almacen): RepositorioPagos {
  const pagos = tablaPagos(m);
  const libro = tablaLibro(m);
  const facturas = m.tabla<{ id: string; estado: FilaPago['factura_pago_estado']; uuid: string | null }>(
    'facturas',
  );

  const leer = (p: PagoGuardado): FilaPago => {
    const cfdi = p.factura_pago_id ? facturas.buscar(p.factura_pago_id) : undefined;
    const orden = p.solicitud.facturas_pagadas.map((x) => x.factura);
    return {
      id: p.id,
      modo: p.modo,
      organizacion_id: p.organizacion_id,
      estado: p.estado,
      solicitud: copiaJson(p.solicitud),
      error: p.error && copiaJson(p.error),
      factura_pago_id: p.factura_pago_id,
      factura_pago_estado: cfdi?.estado ?? null,
      factura_pago_uuid: cfdi?.uuid ?? null,
      parcialidades: libro
        .todas()
        .filter((r) => r.pago_id === p.id)
        .map(({ id: _i, pago_id: _p, cuenta_id: _c, modo: _m, ...r }) => r)
        .sort((x, y) => orden.indexOf(x.factura) - orden.indexOf(y.factura)),
      creado_en: p.creado_en,
      actualizado_en: p.actualizado_en,
    };
  };
  const propio = (a: Alcance, id: string) => pagos.todas().find((p) => enAlcance(a)(p) && p.id === id);

  return porConexion({
    async crear(a, p, tx) {
      exigirAbierta(tx);
      const ahora = new Date();
      pagos.insertar({
        ...p,
        ...columnasAlcance(a),
        estado: 'registrando',
        solicitud: copiaJson(p.solicitud),
        error: null,
        factura_pago_id: null,
        creado_en: ahora,
        actualizado_en: ahora,
      });
    },
    async obtener(a, id, tx) {
      exigirAbierta(tx);
      const p = propio(a, id);
      return p && leer(p);
    },
    async listar(a, filtros, pagina) {
      const filas = pagos
        .todas()
        .filter(
          (p) =>
            enAlcance(a)(p) &&
            p.estado !== 'rechazado' &&
            (!filtros.organizacionId || p.organizacion_id === filtros.organizacionId) &&
            (!filtros.facturaId ||
              libro.todas().some((r) => r.pago_id === p.id && r.factura === filtros.facturaId)),
        );
      const t = paginarEnMemoria(filas, pagina);
      return { ...t, datos: t.datos.map(leer) };
    },
    async deFactura(a, facturaId) {
      return pagos
        .todas()
        .filter(
          (p) => enAlcance(a)(p) && libro.todas().some((r) => r.pago_id === p.id && r.factura === facturaId),
        )
        .sort((x, y) => (x.id < y.id ? -1 : 1))
        .map(leer);
    },
    async bloquear(tx, a, id) {
      exigirAbierta(tx);
      const p = propio(a, id);
      return p && { estado: p.estado };
    },
    async registrar(tx, a, id, facturaPagoId, parcialidades) {
      exigirAbierta(tx);
      for (const p of parcialidades) {
        libro.insertar({
          ...p,
          // DECIMAL(24,6) columns.
          imp_saldo_anterior: decimal6(p.imp_saldo_anterior),
          imp_pagado: decimal6(p.imp_pagado),
          imp_saldo_insoluto: decimal6(p.imp_saldo_insoluto),
          ...columnasAlcance(a),
          id: `${id}|${p.factura}`,
          pago_id: id,
          vigente: true,
        });
      }
      if (propio(a, id))
        pagos.cambiar(id, {
          estado: 'registrado',
          factura_pago_id: facturaPagoId,
          actualizado_en: new Date(),
        });
    },
    async rechazar(tx, a, id, error) {
      exigirAbierta(tx);
      if (propio(a, id)?.estado === 'registrando') {
        pagos.cambiar(id, { estado: 'rechazado', error: copiaJson(error), actualizado_en: new Date() });
      }
    },
    async revertir(tx, a, facturaPagoId, rechazo) {
      exigirAbierta(tx);
      const p = pagos.todas().find((x) => enAlcance(a)(x) && x.factura_pago_id === facturaPagoId);
      if (!p) return undefined;
      for (const r of libro.todas().filter((x) => x.pago_id === p.id))
        libro.cambiar(r.id, { vigente: false });
      pagos.cambiar(p.id, {
        actualizado_en: new Date(),
        ...(rechazo ? { estado: 'rechazado' as const, error: copiaJson(rechazo) } : {}),
      });
      return p.id;
    },
    async vigentesDeFactura(a, facturaId, tx) {
      exigirAbierta(tx);
      return libro
        .todas()
        .filter((r) => enAlcance(a)(r) && r.vigente && r.factura === facturaId)
        .map((r) => r.pago_id);
    },
    async registrosPendientes(antesDe, limite) {
      return pagos
        .todas()
        .filter((p) => p.estado === 'registrando' && p.actualizado_en < antesDe)
        .sort((x, y) => x.actualizado_en.getTime() - y.actualizado_en.getTime())
        .slice(0, limite)
        .map((p) => ({
          id: p.id,
          cuenta_id: p.cuenta_id,
          modo: p.modo,
          organizacion_id: p.organizacion_id,
          facturas: p.solicitud.facturas_pagadas.map((x) => x.factura),
        }));
    },
  });
}
