import { nuevoId } from '../../../db/ids';
import {
  DIA_MS,
  type EntregaPorIniciar,
  type FilaEntrega,
  type RepositorioEntregas,
  type SaludWebhook,
} from '../../../db/repositorios/entregas';
import type { EstadoEntrega, IntentoEntrega } from '../../../dominio/webhook';
import { columnasAlcance, copiaJson, paginarEnMemoria, type Almacen, type ColumnasAlcance } from './almacen';
import { tablaEventos } from './eventos';
import { exigirAbierta, porConexion } from './transacciones';
import { deAlcance, tablaWebhooks } from './webhooks';

export type EntregaGuardada = ColumnasAlcance & {
  id: string;
  evento_id: string;
  webhook_id: string;
  numero: number;
  estado: EstadoEntrega;
  /** The column: how many attempts were logged (the read replaces it with the attempts themselves). */
  intentos: number;
  proximo_intento_en: Date | null;
  creado_en: Date;
  actualizado_en: Date;
};

/** An attempt's row; its id is `entrega|numero`, the real primary key. */
export type IntentoGuardado = IntentoEntrega & { id: string; entrega_id: string };

export const tablaEntregas = (m: Almacen) =>
  m.tabla<EntregaGuardada>('entregas', [
    { nombre: 'evento_webhook_numero', clave: (r) => `${r.evento_id}|${r.webhook_id}|${r.numero}` },
  ]);
export const tablaIntentos = (m: Almacen) => m.tabla<IntentoGuardado>('entregas_intentos');

const porIniciar = (r: EntregaGuardada): EntregaPorIniciar => ({
  id: r.id,
  cuenta_id: r.cuenta_id,
  modo: r.modo,
  evento_id: r.evento_id,
  webhook_id: r.webhook_id,
  numero: r.numero,
});

export function crearEntregasEnMemoria(m: Almacen): RepositorioEntregas {
  const tabla = tablaEntregas(m);
  const intentos = tablaIntentos(m);
  const eventos = tablaEventos(m);
  const webhooks = tablaWebhooks(m);

  // The real read joins the event (an inner join: a delivery without its event is not shown).
  const leer = (r: EntregaGuardada): FilaEntrega | undefined => {
    const ev = eventos.buscar(r.evento_id);
    if (!ev) return undefined;
    return {
      id: r.id,
      modo: r.modo,
      evento_id: r.evento_id,
      tipo_evento: ev.tipo,
      webhook_id: r.webhook_id,
      numero: r.numero,
      estado: r.estado,
      proximo_intento_en: r.proximo_intento_en,
      creado_en: r.creado_en,
      actualizado_en: r.actualizado_en,
      intentos: intentos
        .todas()
        .filter((i) => i.entrega_id === r.id)
        .sort((x, y) => x.numero - y.numero)
        .map(({ id: _i, entrega_id: _e, ...i }) => ({ ...i, error: i.error && copiaJson(i.error) })),
    };
  };
  const leidas = (filas: EntregaGuardada[]) =>
    filas.map(leer).filter((f): f is FilaEntrega => f !== undefined);

  function insertar(
    f: Omit<EntregaGuardada, 'estado' | 'intentos' | 'proximo_intento_en' | 'creado_en' | 'actualizado_en'>,
  ) {
    const ahora = new Date();
    tabla.insertar({
      ...f,
      estado: 'pendiente',
      intentos: 0,
      proximo_intento_en: null,
      creado_en: ahora,
      actualizado_en: ahora,
    });
  }

  return porConexion({
    async crearParaEvento(ev) {
      const a = { cuentaId: ev.cuenta_id, modo: ev.modo };
      const suscritos = webhooks
        .todas()
        .filter(
          (w) =>
            deAlcance(a)(w) &&
            w.activo &&
            w.eliminado_en === null &&
            w.creado_en <= ev.creado_en &&
            w.eventos_suscritos.includes(ev.tipo),
        );
      for (const w of suscritos) {
        // INSERT … ON CONFLICT IGNORE: a repeated call leaves the first rows as they are.
        const existe = tabla
          .todas()
          .some((r) => r.evento_id === ev.id && r.webhook_id === w.id && r.numero === 0);
        if (!existe)
          insertar({
            id: nuevoId('ent'),
            ...columnasAlcance(a),
            evento_id: ev.id,
            webhook_id: w.id,
            numero: 0,
          });
      }
      return tabla
        .todas()
        .filter((r) => r.evento_id === ev.id && r.numero === 0 && r.estado === 'pendiente')
        .map(porIniciar);
    },

    async sinIniciar(antesDe, limite) {
      return tabla
        .todas()
        .filter((r) => r.estado === 'pendiente' && r.intentos === 0 && r.numero > 0 && r.creado_en < antesDe)
        .sort((x, y) => x.creado_en.getTime() - y.creado_en.getTime())
        .slice(0, limite)
        .map(porIniciar);
    },

    async crearReenvio(tx, a, eventoId, webhookId) {
      exigirAbierta(tx);
      const numeros = tabla
        .todas()
        .filter((r) => r.evento_id === eventoId && r.webhook_id === webhookId)
        .map((r) => r.numero);
      const fila = {
        id: nuevoId('ent'),
        ...columnasAlcance(a),
        evento_id: eventoId,
        webhook_id: webhookId,
        // 0 is the event's own delivery, whether or not it exists: a resend is 1, 2…
        numero: Math.max(0, ...numeros) + 1,
      };
      insertar(fila);
      return fila;
    },

    async obtener(a, id, tx) {
      exigirAbierta(tx);
      const r = tabla.todas().find((x) => deAlcance(a)(x) && x.id === id);
      return r && leer(r);
    },

    async listar(a, filtros, pagina) {
      const filas = tabla
        .todas()
        .filter(
          (r) =>
            deAlcance(a)(r) &&
            eventos.buscar(r.evento_id) !== undefined &&
            (!filtros.webhookId || r.webhook_id === filtros.webhookId) &&
            (!filtros.eventoId || r.evento_id === filtros.eventoId) &&
            (!filtros.estado || r.estado === filtros.estado),
        );
      const t = paginarEnMemoria(filas, pagina);
      return { ...t, datos: leidas(t.datos) };
    },

    async deEventos(a, eventoIds) {
      const filas = tabla
        .todas()
        .filter((r) => deAlcance(a)(r) && eventoIds.includes(r.evento_id))
        .sort((x, y) => (x.id < y.id ? -1 : 1));
      return filas.flatMap((r) => {
        const f = leer(r);
        const w = webhooks.buscar(r.webhook_id);
        return f && w ? [{ ...f, webhook_url: w.url }] : [];
      });
    },

    async registrarIntento(a, entregaId, intento, despues) {
      // An upsert: a retried activity rewrites its own attempt.
      const id = `${entregaId}|${intento.numero}`;
      const fila = { ...intento, error: intento.error && copiaJson(intento.error) };
      if (intentos.buscar(id)) intentos.cambiar(id, fila);
      else intentos.insertar({ ...fila, id, entrega_id: entregaId });
      const r = tabla.buscar(entregaId);
      if (r && deAlcance(a)(r) && r.estado === 'pendiente')
        tabla.cambiar(entregaId, {
          ...despues,
          intentos: intento.numero,
          actualizado_en: intento.iniciado_en,
        });
    },

    // Straight from the definition, over every attempt: the real one reads index ranges to the same answer.
    async salud(a, webhookIds, ahora) {
      const hace24h = new Date(ahora.getTime() - DIA_MS);
      const r = new Map<string, SaludWebhook>();
      for (const w of webhookIds) {
        const ids = new Set(
          tabla
            .todas()
            .filter((e) => deAlcance(a)(e) && e.webhook_id === w)
            .map((e) => e.id),
        );
        const todos = intentos.todas().filter((i) => ids.has(i.entrega_id));
        const ok = (i: IntentoGuardado) =>
          i.status_http !== null && i.status_http >= 200 && i.status_http < 300;
        const ultimoExito = todos
          .filter(ok)
          .reduce<Date | null>((m, i) => (!m || i.iniciado_en > m ? i.iniciado_en : m), null);
        const desde = ultimoExito === null ? new Date(0) : ultimoExito < hace24h ? ultimoExito : hace24h;
        const racha = todos.filter((i) => i.iniciado_en > (ultimoExito ?? new Date(0)));
        const fallos = todos
          .filter((i) => !ok(i) && i.iniciado_en >= desde)
          .sort((x, y) => y.iniciado_en.getTime() - x.iniciado_en.getTime());
        const ultimo = fallos[0];
        r.set(w, {
          intentos24h: todos.filter((i) => i.iniciado_en >= hace24h).length,
          exitosos24h: todos.filter((i) => i.iniciado_en >= hace24h && ok(i)).length,
          ultimoExito,
          fallandoDesde: racha.length
            ? racha.reduce((m, i) => (i.iniciado_en < m ? i.iniciado_en : m), racha[0]!.iniciado_en)
            : null,
          ultimoFallo: ultimo
            ? {
                en: ultimo.iniciado_en,
                status_http: ultimo.status_http,
                error: ultimo.error && copiaJson(ultimo.error),
              }
            : null,
        });
      }
      return r;
    },

    async cancelarPendientes(tx, a, webhookId, ahora) {
      exigirAbierta(tx);
      const filas = tabla
        .todas()
        .filter((r) => deAlcance(a)(r) && r.webhook_id === webhookId && r.estado === 'pendiente');
      for (const r of filas)
        tabla.cambiar(r.id, { estado: 'cancelada', proximo_intento_en: null, actualizado_en: ahora });
      return filas.map(porIniciar);
    },

    async pendienteDe(tx, a, eventoId, webhookId) {
      exigirAbierta(tx);
      const r = tabla
        .todas()
        .filter(
          (x) =>
            deAlcance(a)(x) &&
            x.evento_id === eventoId &&
            x.webhook_id === webhookId &&
            x.estado === 'pendiente',
        )
        .sort((x, y) => (x.id < y.id ? 1 : -1))[0];
      return r && porIniciar(r);
    },

    async cancelar(a, id, ahora, tx) {
      exigirAbierta(tx);
      const r = tabla.buscar(id);
      if (r && deAlcance(a)(r) && r.estado === 'pendiente')
        tabla.cambiar(id, { estado: 'cancelada', proximo_intento_en: null, actualizado_en: ahora });
    },
  });
}
