import { nuevoId } from '../../../db/ids';
import {
  pagoDelCfdi,
  recursosDelEvento,
  type FilaEvento,
  type RepositorioEventos,
} from '../../../db/repositorios/eventos';
import { columnasAlcance, copiaJson, enAlcance, paginarEnMemoria, type Almacen } from './almacen';
import { tablaLibro } from './pagos';
import { anotarEventoEnMemoria, exigirAbierta, porConexion } from './transacciones';

/** The row and its relation (`eventos_recursos`): the invoices and payments it is about. */
type EventoGuardado = FilaEvento & { cuenta_id: string; recursos: string[] };

/** An outbox row: keyed by its event, as the real table. */
export interface EventoPorDespachar {
  id: string;
  creado_en: Date;
}

/** Shared with deliveries (an event's type) and the dispatcher's tests (what is still queued). */
export const tablaEventos = (m: Almacen) => m.tabla<EventoGuardado>('eventos');
export const tablaPorDespachar = (m: Almacen) => m.tabla<EventoPorDespachar>('eventos_por_despachar');

export function crearEventosEnMemoria(m: Almacen): RepositorioEventos {
  const tabla = tablaEventos(m);
  const cola = tablaPorDespachar(m);
  const libro = tablaLibro(m);
  const leer = ({ cuenta_id: _c, recursos: _r, ...f }: EventoGuardado): FilaEvento => ({
    ...f,
    datos: copiaJson(f.datos),
  });

  return porConexion({
    async registrar(tx, a, tipo, datos) {
      exigirAbierta(tx);
      const id = nuevoId('evt');
      const creado_en = new Date();
      const d = copiaJson(datos) as Record<string, unknown>;
      const recursos = recursosDelEvento(tipo, d);
      const pago = pagoDelCfdi(tipo, d);
      for (const r of libro.todas())
        if (pago && r.pago_id === pago && enAlcance(a)(r) && !recursos.includes(r.factura))
          recursos.push(r.factura);
      tabla.insertar({
        id,
        ...columnasAlcance(a),
        tipo,
        datos: d,
        actor: a.llaveId,
        solicitud_id: a.origen?.solicitudId ?? null,
        solicitud_llave_id: a.origen?.llaveId ?? null,
        recursos,
        creado_en,
      });
      cola.insertar({ id, creado_en });
      anotarEventoEnMemoria(tx, id);
      return id;
    },
    async listar(a, filtros, pagina) {
      const filas = tabla
        .todas()
        .filter(
          (r) =>
            enAlcance(a)(r) &&
            (!filtros.tipo || r.tipo === filtros.tipo) &&
            (!filtros.facturaId || r.recursos.includes(filtros.facturaId)) &&
            (!filtros.pagoId || r.recursos.includes(filtros.pagoId)),
        );
      const t = paginarEnMemoria(filas, pagina);
      return { ...t, datos: t.datos.map(leer) };
    },
    async obtener(a, id) {
      const r = tabla.todas().find((x) => enAlcance(a)(x) && x.id === id);
      return r && leer(r);
    },
    async paraDespacho(id) {
      const r = tabla.buscar(id);
      return r && { ...leer(r), cuenta_id: r.cuenta_id };
    },
    async porDespachar(antesDe, limite) {
      return cola
        .todas()
        .filter((r) => r.creado_en < antesDe)
        .sort((x, y) => x.creado_en.getTime() - y.creado_en.getTime() || (x.id < y.id ? -1 : 1))
        .slice(0, limite)
        .map((r) => r.id);
    },
    async despachado(id) {
      cola.borrar(id);
    },
  });
}
