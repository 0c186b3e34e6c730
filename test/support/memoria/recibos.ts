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
          fuera_de_global_en: null,
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
            (!filtros.fechaHasta || r.fecha <= `${filtros.fechaHasta}T23:59:59`) &&
            (!filtros.facturaGlobalId || r.factura_global_id === filtros.facturaGlobalId),
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
    async abiertosDelPeriodo(tx, a, p) {
      exigirAbierta(tx);
      return tabla
        .todas()
        .filter(
          (r) =>
            enAlcance(a)(r) &&
            r.organizacion_id === p.organizacionId &&
            r.estado === 'abierto' &&
            r.fecha >= `${p.desde}T00:00:00` &&
            r.fecha <= `${p.hasta}T23:59:59` &&
            r.documento.moneda === p.moneda,
        )
        .sort((x, y) => x.fecha.localeCompare(y.fecha) || x.id.localeCompare(y.id))
        .slice(0, p.limite)
        .map(leer);
    },
    async deGlobal(tx, a, globalId) {
      exigirAbierta(tx);
      return tabla
        .todas()
        .filter((r) => enAlcance(a)(r) && r.factura_global_id === globalId)
        .sort((x, y) => x.fecha.localeCompare(y.fecha) || x.id.localeCompare(y.id))
        .map(leer);
    },
    async aGlobal(tx, a, ids, globalId, en) {
      exigirAbierta(tx);
      for (const id of ids) {
        const r = tabla.buscar(id);
        if (!r || !enAlcance(a)(r)) continue;
        tabla.cambiar(id, {
          ...(r.estado === 'abierto' ? { estado: 'en_factura_global' as const } : {}),
          factura_global_id: globalId,
          actualizado_en: en,
        });
      }
    },
    async reclamar(tx, a, id, facturaId, en) {
      exigirAbierta(tx);
      const r = tabla.buscar(id);
      if (!r || !enAlcance(a)(r) || r.estado !== 'en_factura_global') return false;
      tabla.cambiar(id, { estado: 'facturado', factura_id: facturaId, actualizado_en: en });
      return true;
    },
    async devolverPorRechazo(tx, a, facturaId, en) {
      exigirAbierta(tx);
      const filas = tabla
        .todas()
        .filter((r) => enAlcance(a)(r) && r.factura_id === facturaId && r.estado === 'facturado');
      for (const r of filas) {
        tabla.cambiar(r.id, {
          estado: r.factura_global_id === null ? 'abierto' : 'en_factura_global',
          factura_id: null,
          actualizado_en: en,
        });
      }
      return filas.length;
    },
    async fueraDeGlobal(tx, a, ids, en) {
      exigirAbierta(tx);
      for (const id of ids) {
        const r = tabla.buscar(id);
        if (r && enAlcance(a)(r) && r.fuera_de_global_en === null) {
          tabla.cambiar(id, { fuera_de_global_en: en, actualizado_en: en });
        }
      }
    },
    async liberarDeGlobal(tx, a, globalId, en) {
      exigirAbierta(tx);
      const filas = tabla
        .todas()
        .filter(
          (r) => enAlcance(a)(r) && r.factura_global_id === globalId && r.estado === 'en_factura_global',
        );
      for (const r of filas) {
        tabla.cambiar(r.id, { estado: 'abierto', factura_global_id: null, actualizado_en: en });
      }
      return filas.length;
    },
    async reclamosPendientes(antesDe, limite) {
      return tabla
        .todas()
        .filter(
          (r) =>
            r.estado === 'facturado' &&
            r.fuera_de_global_en === null &&
            r.factura_global_id !== null &&
            r.actualizado_en < antesDe,
        )
        .slice(0, limite)
        .map((r) => ({
          id: r.id,
          cuenta_id: r.cuenta_id,
          modo: r.modo,
          factura_id: r.factura_id!,
          factura_global_id: r.factura_global_id!,
          organizacion_id: r.organizacion_id,
        }));
    },
    async porHashClave(hash) {
      const r = tabla.todas().find((x) => x.clave_hash === hash);
      return r && { id: r.id, cuenta_id: r.cuenta_id, modo: r.modo };
    },
  });
}
