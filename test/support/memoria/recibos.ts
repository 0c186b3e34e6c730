import { sinDuplicar } from '../../../db/repositorios/con-alcance';
import type { FilaRecibo, RepositorioRecibos } from '../../../db/repositorios/recibos';
import {
  columnasAlcance,
  copiaJson,
  enAlcance,
  paginarEnMemoria,
  plegar,
  type Almacen,
  type ColumnasAlcance,
} from './almacen';
import { exigirAbierta, porConexion } from './transacciones';

type ReciboGuardado = Omit<FilaRecibo, 'modo'> & ColumnasAlcance & { clave_hash: string };

export const tablaRecibos = (m: Almacen) =>
  m.tabla<ReciboGuardado>('recibos', [
    { nombre: 'clave_hash', clave: (r) => r.clave_hash },
    // Under the table's collation, and NULL never collides: only folios given, case and accents aside.
    {
      nombre: 'organizacion_folio',
      clave: (r) => (r.folio === null ? null : `${r.organizacion_id}|${plegar(r.folio)}`),
    },
  ]);

export function crearRecibosEnMemoria(m: Almacen): RepositorioRecibos {
  const tabla = tablaRecibos(m);
  const leer = ({ cuenta_id: _c, clave_hash: _h, ...r }: ReciboGuardado): FilaRecibo => ({
    ...r,
    documento: copiaJson(r.documento),
  });
  return porConexion({
    async insertar(tx, a, r) {
      exigirAbierta(tx);
      const ahora = new Date();
      await sinDuplicar(async () =>
        tabla.insertar({
          ...r,
          ...columnasAlcance(a),
          documento: copiaJson(r.documento),
          estado: 'abierto',
          factura_id: null,
          factura_global_id: null,
          cancelado_en: null,
          creado_en: ahora,
          actualizado_en: ahora,
        }),
      );
    },
    async obtener(a, id, tx) {
      exigirAbierta(tx);
      const r = tabla.buscar(id);
      return r && r.cuenta_id === a.cuentaId && r.modo === a.modo ? leer(r) : undefined;
    },
    async listar(a, filtros, pagina) {
      const filas = tabla
        .todas()
        .filter(
          (r) =>
            enAlcance(a)(r) &&
            (!filtros.organizacionId || r.organizacion_id === filtros.organizacionId) &&
            (!filtros.estado || r.estado === filtros.estado) &&
            (!filtros.fechaDesde || r.fecha >= `${filtros.fechaDesde}T00:00:00`) &&
            (!filtros.fechaHasta || r.fecha <= `${filtros.fechaHasta}T23:59:59`),
        );
      const t = paginarEnMemoria(filas, pagina);
      return { ...t, datos: t.datos.map(leer) };
    },
    async cancelar(tx, a, id, en) {
      exigirAbierta(tx);
      const r = tabla.buscar(id);
      if (!r || !enAlcance(a)(r) || r.estado !== 'abierto') return false;
      tabla.cambiar(id, { estado: 'cancelado', cancelado_en: en, actualizado_en: en });
      return true;
    },
    async bloquear(tx, a, id) {
      // The fake runs one transaction at a time: holding `tx` is holding every row's lock.
      exigirAbierta(tx);
      const r = tabla.buscar(id);
      return r && enAlcance(a)(r) ? leer(r) : undefined;
    },
    async facturar(tx, a, id, facturaId, en) {
      exigirAbierta(tx);
      const r = tabla.buscar(id);
      if (!r || !enAlcance(a)(r) || r.estado !== 'abierto') return false;
      tabla.cambiar(id, { estado: 'facturado', factura_id: facturaId, actualizado_en: en });
      return true;
    },
    async porHashClave(hash) {
      const r = tabla.todas().find((x) => x.clave_hash === hash);
      return r && { id: r.id, cuenta_id: r.cuenta_id, modo: r.modo };
    },
  });
}
