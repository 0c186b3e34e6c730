import type { FilaPendiente, RepositorioPendientes } from '../../../db/repositorios/pendientes';
import type { Alcance } from '../../../dominio/alcance';
import type { Pagina } from '../../../dominio/paginacion';
import {
  PREFIJO_PENDIENTE,
  sinPrefijo,
  TIPOS_PENDIENTE,
  type TipoPendiente,
} from '../../../dominio/pendiente';
import { copiaJson, enAlcance, type Almacen, type ColumnasAlcance } from './almacen';
import { tablaCorreos } from './correos';
import { tablaEntregas, tablaIntentos } from './entregas';
import { tablaEventos } from './eventos';
import { tablaFacturas } from './facturas';
import { tablaPagos } from './pagos';
import { tablaRecibos } from './recibos';
import { porConexion } from './transacciones';

const VACIA = {
  organizacion_id: null,
  intentos: null,
  error: null,
  factura_id: null,
  pago_id: null,
  evento_id: null,
  tipo_evento: null,
  webhook_id: null,
  numero: null,
  factura_global_id: null,
  cancelacion: null,
  estado_factura: null,
  proximo_intento_en: null,
  ultimo_intento_en: null,
  status_http: null,
  huso_horario: null,
} satisfies Omit<FilaPendiente, 'tipo' | 'id' | 'desde'>;

/** db/repositorios/pendientes.ts over the store: the same states per kind, the same merge by the ids' time part. */
export function crearPendientesEnMemoria(m: Almacen): RepositorioPendientes {
  const facturas = tablaFacturas(m);
  const pagos = tablaPagos(m);
  const correos = tablaCorreos(m);
  const entregas = tablaEntregas(m);
  const intentos = tablaIntentos(m);
  const eventos = tablaEventos(m);
  const recibos = tablaRecibos(m);

  const enCurso = (estado: string | undefined) => estado === 'solicitada' || estado === 'en_proceso';

  /** Every pending operation of every kind, as the real queries select them (before the filters). */
  function filas(filtro: (r: ColumnasAlcance) => boolean): FilaPendiente[] {
    const timbrados = facturas
      .todas()
      .filter((f) => filtro(f) && f.timbrado_estado === 'pendiente')
      .map(
        (f): FilaPendiente => ({
          ...VACIA,
          tipo: 'timbrado',
          id: f.id,
          organizacion_id: f.organizacion_id,
          desde: f.creado_en,
          intentos: f.timbrado_intentos,
          error: f.timbrado_error && copiaJson(f.timbrado_error),
          factura_id: f.id,
          pago_id: f.documento.pago?.id ?? null,
          huso_horario: f.documento.huso_horario ?? null,
        }),
      );
    const cancelaciones = facturas
      .todas()
      .filter((f) => filtro(f) && enCurso(f.cancelacion?.estado))
      .map(
        (f): FilaPendiente => ({
          ...VACIA,
          tipo: 'cancelacion',
          id: f.id,
          organizacion_id: f.organizacion_id,
          desde: new Date(f.cancelacion!.solicitada_en),
          factura_id: f.id,
          pago_id: f.documento.pago?.id ?? null,
          cancelacion: copiaJson(f.cancelacion),
          error: f.cancelacion!.error ? copiaJson(f.cancelacion!.error) : null,
          huso_horario: f.documento.huso_horario ?? null,
        }),
      );
    const registros = pagos
      .todas()
      .filter((p) => filtro(p) && p.estado === 'registrando')
      .map(
        (p): FilaPendiente => ({
          ...VACIA,
          tipo: 'pago',
          id: p.id,
          organizacion_id: p.organizacion_id,
          desde: p.creado_en,
          pago_id: p.id,
        }),
      );
    const envios = correos
      .todas()
      .filter((c) => filtro(c) && c.estado === 'pendiente')
      .flatMap((c): FilaPendiente[] => {
        // The real query's inner join on the invoice.
        const f = facturas.buscar(c.factura_id);
        if (!f) return [];
        const smtp = c.respuesta_smtp;
        return [
          {
            ...VACIA,
            tipo: 'correo',
            id: c.id,
            organizacion_id: f.organizacion_id,
            desde: c.creado_en,
            intentos: c.intentos,
            error: c.error
              ? copiaJson(c.error)
              : smtp
                ? { codigo: 'smtp_no_disponible', mensaje: smtp }
                : null,
            factura_id: c.factura_id,
            ultimo_intento_en: c.ultimo_intento_en,
            huso_horario: f.documento.huso_horario ?? null,
          },
        ];
      });
    const deliveries = entregas
      .todas()
      .filter((e) => filtro(e) && e.estado === 'pendiente')
      .flatMap((e): FilaPendiente[] => {
        const ev = eventos.buscar(e.evento_id);
        if (!ev) return [];
        const ultimo = intentos.buscar(`${e.id}|${e.intentos}`);
        const datos = ev.datos as { organizacion?: string; factura?: string };
        const org = datos.organizacion ?? (datos.factura && facturas.buscar(datos.factura)?.organizacion_id);
        return [
          {
            ...VACIA,
            tipo: 'entrega',
            id: e.id,
            organizacion_id: org || null,
            desde: e.creado_en,
            intentos: e.intentos,
            error: ultimo?.error ? copiaJson(ultimo.error) : null,
            evento_id: e.evento_id,
            tipo_evento: ev.tipo,
            webhook_id: e.webhook_id,
            numero: e.numero,
            proximo_intento_en: e.proximo_intento_en,
            ultimo_intento_en: ultimo?.iniciado_en ?? null,
            status_http: ultimo?.status_http ?? null,
          },
        ];
      });
    const reclamos = recibos
      .todas()
      .filter(
        (r) =>
          filtro(r) &&
          r.estado === 'facturado' &&
          r.fuera_de_global_en === null &&
          r.factura_global_id !== null,
      )
      .map((r): FilaPendiente => {
        const f = r.factura_id ? facturas.buscar(r.factura_id) : undefined;
        return {
          ...VACIA,
          tipo: 'reexpedicion',
          id: r.id,
          organizacion_id: r.organizacion_id,
          desde: r.actualizado_en,
          factura_id: r.factura_id,
          factura_global_id: r.factura_global_id,
          estado_factura: f?.timbrado_estado ?? null,
          huso_horario: f?.documento.huso_horario ?? null,
        };
      });
    return [...timbrados, ...cancelaciones, ...registros, ...envios, ...deliveries, ...reclamos];
  }

  const despues = (f: FilaPendiente, p: Pagina) =>
    !p.despuesDe || f.id < `${PREFIJO_PENDIENTE[f.tipo]}_${sinPrefijo(p.despuesDe)}`;

  return porConexion({
    async listar(a: Alcance, f, pagina) {
      const todas = filas(enAlcance(a))
        .filter(
          (x) =>
            (!f.tipo || x.tipo === f.tipo) &&
            (!f.organizacionId || x.organizacion_id === f.organizacionId) &&
            (!f.antesDe || x.desde < f.antesDe) &&
            despues(x, pagina),
        )
        .sort((x, y) =>
          sinPrefijo(x.id) < sinPrefijo(y.id) ? 1 : sinPrefijo(x.id) > sinPrefijo(y.id) ? -1 : 0,
        );
      return { datos: todas.slice(0, pagina.limite), hayMas: todas.length > pagina.limite };
    },

    async atrasos() {
      const todas = filas(() => true);
      const ahora = Date.now();
      return TIPOS_PENDIENTE.map((tipo: TipoPendiente) => {
        const delTipo = todas.filter((x) => x.tipo === tipo);
        const masAntigua = Math.min(...delTipo.map((x) => x.desde.getTime()));
        return {
          tipo,
          pendientes: delTipo.length,
          masAntiguoSegundos: delTipo.length ? Math.max(0, (ahora - masAntigua) / 1000) : 0,
        };
      });
    },
  });
}
