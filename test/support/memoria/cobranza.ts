import Decimal from 'decimal.js';
import { porDia, type RepositorioCobranza } from '../../../db/repositorios/cobranza';
import { decimal6, enAlcance, plegar, type Almacen } from './almacen';
import { tablaFacturas } from './facturas';
import { tablaLibro, tablaPagos } from './pagos';
import { porConexion } from './transacciones';

const suma = (montos: string[]) => decimal6(montos.reduce((s, m) => s.plus(m), new Decimal(0)).toString());
const enRango = (fecha: string | null, desde: string, hasta: string) =>
  fecha !== null && fecha >= `${desde}T00:00:00` && fecha <= `${hasta}T23:59:59`;

/** The reads of collections over the shared tables, as the real queries compute them. */
export function crearCobranzaEnMemoria(m: Almacen): RepositorioCobranza {
  const facturas = tablaFacturas(m);
  const pagos = tablaPagos(m);
  const libro = tablaLibro(m);

  const delCliente = (a: Parameters<RepositorioCobranza['facturasDeCliente']>[0], clienteId: string) =>
    facturas
      .todas()
      .filter((r) => enAlcance(a)(r) && r.cliente_id === clienteId && r.tipo === 'ingreso')
      .sort((x, y) => (x.id < y.id ? -1 : 1));

  return porConexion({
    async facturasDeCliente(a, clienteId) {
      return delCliente(a, clienteId)
        .filter((r) => r.estado === 'timbrada' || r.estado === 'cancelada')
        .map((r) => ({
          id: r.id,
          organizacion_id: r.organizacion_id,
          uuid: r.uuid,
          serie: r.documento.entrada.serie ?? null,
          folio: r.documento.entrada.folio ?? null,
          fecha: r.documento.entrada.fecha,
          estado: r.estado as 'timbrada' | 'cancelada',
          total: r.total,
          moneda: r.documento.entrada.moneda,
          metodo_pago: r.metodo_pago,
        }));
    },

    async pagosDeCliente(a, clienteId) {
      const ids = new Set(delCliente(a, clienteId).map((r) => r.id));
      return libro
        .todas()
        .filter((l) => l.vigente && ids.has(l.factura))
        .map((l) => {
          const p = pagos.buscar(l.pago_id)!;
          const cfdi = p.factura_pago_id ? facturas.buscar(p.factura_pago_id) : undefined;
          return {
            factura_id: l.factura,
            pago_id: l.pago_id,
            factura_pago_id: p.factura_pago_id,
            uuid_pago: cfdi?.uuid ?? null,
            serie_pago: cfdi?.documento.entrada.serie ?? null,
            folio_pago: cfdi?.documento.entrada.folio ?? null,
            fecha_pago: p.solicitud.fecha_pago,
            num_parcialidad: l.num_parcialidad,
            imp_saldo_anterior: decimal6(l.imp_saldo_anterior),
            imp_pagado: decimal6(l.imp_pagado),
            imp_saldo_insoluto: decimal6(l.imp_saldo_insoluto),
          };
        })
        .sort((x, y) => {
          const k = (r: typeof x) =>
            `${r.fecha_pago}|${r.factura_id}|${String(r.num_parcialidad).padStart(6, '0')}`;
          return k(x) < k(y) ? -1 : k(x) > k(y) ? 1 : 0;
        });
    },

    async facturadoPorDia(a, f) {
      const grupos = new Map<
        string,
        { dia: string; estado: 'timbrada' | 'cancelada'; metodo_pago: string | null; totales: string[] }
      >();
      for (const r of facturas.todas()) {
        if (!enAlcance(a)(r) || r.tipo !== 'ingreso') continue;
        if (r.estado !== 'timbrada' && r.estado !== 'cancelada') continue;
        // The column's collation: `mxn` is `MXN`.
        if (plegar(r.documento.entrada.moneda) !== plegar(f.moneda)) continue;
        if (f.organizacionId && r.organizacion_id !== f.organizacionId) continue;
        if (!enRango(r.fecha_timbrado, f.desde, f.hasta)) continue;
        const dia = r.fecha_timbrado!.slice(0, 10);
        const clave = `${dia}|${r.estado}|${r.metodo_pago}`;
        const g = grupos.get(clave) ?? { dia, estado: r.estado, metodo_pago: r.metodo_pago, totales: [] };
        g.totales.push(r.total);
        grupos.set(clave, g);
      }
      return [...grupos.values()]
        .map(({ totales, ...g }) => ({ ...g, facturas: totales.length, total: suma(totales) }))
        .sort(porDia);
    },

    async cobradoPorDia(a, f) {
      const grupos = new Map<string, string[]>();
      for (const l of libro.todas()) {
        if (!enAlcance(a)(l) || !l.vigente || plegar(l.moneda) !== plegar(f.moneda)) continue;
        const p = pagos.buscar(l.pago_id);
        if (!p || p.estado !== 'registrado') continue;
        if (f.organizacionId && p.organizacion_id !== f.organizacionId) continue;
        if (!enRango(p.solicitud.fecha_pago, f.desde, f.hasta)) continue;
        const dia = p.solicitud.fecha_pago.slice(0, 10);
        grupos.set(dia, [...(grupos.get(dia) ?? []), l.imp_pagado]);
      }
      return [...grupos]
        .map(([dia, montos]) => ({ dia, parcialidades: montos.length, total: suma(montos) }))
        .sort(porDia);
    },
  });
}
