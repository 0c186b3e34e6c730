import { sinDuplicar } from '../../../db/repositorios/con-alcance';
import type { FilaFactura, RepositorioFacturas } from '../../../db/repositorios/facturas';
import type { Transaccion } from '../../../db/transacciones';
import type { Alcance } from '../../../dominio/alcance';
import { cancelacionEnCurso } from '../../../dominio/factura';
import {
  columnasAlcance,
  copiaJson,
  decimal6,
  enAlcance,
  paginarEnMemoria,
  plegar,
  type Almacen,
} from './almacen';
import { tablaOrganizaciones } from './organizaciones';
import { tablaLibro, tablaPagos } from './pagos';
import { exigirAbierta, porConexion } from './transacciones';

/** `=` under the tables' collation (case and accents ignored; trailing spaces too, as PAD SPACE does). */
const igualTexto = (x: string | undefined, y: string) =>
  x !== undefined && plegar(x).trimEnd() === plegar(y).trimEnd();

/** The row with what only its own endpoints read: the XMLs and the PDF. */
export type FacturaGuardada = Omit<FilaFactura, 'parcialidades' | 'pago_id'> & {
  cuenta_id: string;
  xml_sellado: string | null;
  xml_timbrado: string | null;
  pdf: Buffer | null;
  acuse_cancelacion: string | null;
  acuse_cancelacion_fecha: string | null;
};

export const tablaFacturas = (m: Almacen) =>
  m.tabla<FacturaGuardada>('facturas', [{ nombre: 'uuid', clave: (r) => r.uuid }]);

export function crearFacturasEnMemoria(m: Almacen): RepositorioFacturas {
  const tabla = tablaFacturas(m);
  const pagos = tablaPagos(m);
  const libro = tablaLibro(m);

  /** As the real read: the row, with its vigente instalments and its payment derived from the ledger. */
  const leer = (r: FacturaGuardada): FilaFactura => {
    const {
      cuenta_id: _c,
      xml_sellado: _s,
      xml_timbrado: _t,
      pdf: _p,
      acuse_cancelacion: _a,
      acuse_cancelacion_fecha: _af,
      ...f
    } = r;
    return {
      ...f,
      documento: copiaJson(f.documento),
      timbrado_error: f.timbrado_error && copiaJson(f.timbrado_error),
      cancelacion: f.cancelacion && copiaJson(f.cancelacion),
      parcialidades: libro
        .todas()
        .filter((x) => x.factura === r.id && x.vigente)
        .sort((x, y) => x.num_parcialidad - y.num_parcialidad)
        .map((x) => ({
          pago: x.pago_id,
          factura_pago: pagos.buscar(x.pago_id)?.factura_pago_id ?? '',
          num_parcialidad: x.num_parcialidad,
          imp_saldo_anterior: x.imp_saldo_anterior,
          imp_pagado: x.imp_pagado,
          imp_saldo_insoluto: x.imp_saldo_insoluto,
        })),
      pago_id: pagos.todas().find((p) => p.factura_pago_id === r.id)?.id ?? null,
    };
  };
  const folios = m.tabla<{ id: string; ultimo: number }>('folios');

  const guardada = (a: Alcance, id: string, tx?: Transaccion) => {
    exigirAbierta(tx);
    return tabla.todas().find((r) => enAlcance(a)(r) && r.id === id);
  };
  const obtener = async (a: Alcance, id: string, tx?: Transaccion) => {
    const r = guardada(a, id, tx);
    return r && leer(r);
  };
  /** The real `actualizar`: scoped, and stamps `actualizado_en`. */
  const actualizar = (a: Alcance, id: string, cambios: Partial<FacturaGuardada>, tx?: Transaccion) => {
    if (guardada(a, id, tx)) tabla.cambiar(id, { ...cambios, actualizado_en: new Date() });
  };

  return porConexion({
    obtener,

    async listar(a, f, pagina) {
      const filas = tabla
        .todas()
        .filter(
          (r) =>
            enAlcance(a)(r) &&
            (!f.organizacionId || r.organizacion_id === f.organizacionId) &&
            (!f.clienteId || r.cliente_id === f.clienteId) &&
            (!f.clienteRfc || plegar(r.documento.cliente.rfc) === plegar(f.clienteRfc)) &&
            (!f.estado || r.estado === f.estado) &&
            (!f.tipo || r.tipo === f.tipo) &&
            (!f.timbradoEstado || r.timbrado_estado === f.timbradoEstado) &&
            (!f.creadaAntes || r.creado_en < f.creadaAntes) &&
            (!f.creadaDesde || r.creado_en >= f.creadaDesde) &&
            (!f.uuid || r.uuid === f.uuid) &&
            (!f.serieFolio?.length ||
              f.serieFolio.some(
                (sf) =>
                  igualTexto(r.documento.entrada.folio, sf.folio) &&
                  (sf.serie === null || igualTexto(r.documento.entrada.serie, sf.serie)),
              )),
        );
      const t = paginarEnMemoria(filas, pagina);
      return { ...t, datos: t.datos.map(leer) };
    },

    async timbradaPorUuid(a, organizacionId, uuid) {
      const r = tabla
        .todas()
        .find(
          (x) =>
            enAlcance(a)(x) &&
            x.organizacion_id === organizacionId &&
            x.estado === 'timbrada' &&
            x.uuid === uuid.toUpperCase(),
        );
      return r && leer(r);
    },

    // The row alone, as the real locking read: the ledger is read after the lock, by a plain read.
    async bloquear(tx, a, id) {
      const f = await obtener(a, id, tx);
      if (!f) return undefined;
      const { parcialidades: _p, pago_id: _g, ...fila } = f;
      return fila;
    },

    async bloquearVarias(tx, a, ids) {
      exigirAbierta(tx);
      return tabla
        .todas()
        .filter((r) => enAlcance(a)(r) && ids.includes(r.id))
        .sort((x, y) => (x.id < y.id ? -1 : 1))
        .map(leer);
    },

    async insertar(tx, a, n) {
      exigirAbierta(tx);
      const ahora = new Date();
      tabla.insertar({
        ...n,
        ...columnasAlcance(a),
        documento: copiaJson(n.documento),
        estado: 'borrador',
        total: decimal6(n.documento.importes.total),
        metodo_pago: n.documento.entrada.metodo_pago ?? null,
        uuid: null,
        fecha_timbrado: null,
        no_certificado: null,
        no_certificado_sat: null,
        timbrado_intentos: 0,
        timbrado_error: null,
        cancelacion: null,
        xml_sellado: null,
        xml_timbrado: null,
        pdf: null,
        acuse_cancelacion: null,
        acuse_cancelacion_fecha: null,
        creado_en: ahora,
        actualizado_en: ahora,
      });
    },

    // Not scoped, as the real `folios` table: an organization id already belongs to one account and mode.
    async siguienteFolio(tx, organizacionId, serie) {
      exigirAbierta(tx);
      const id = `${organizacionId}|${serie}`;
      const ultimo = (folios.buscar(id)?.ultimo ?? 0) + 1;
      if (ultimo === 1) folios.insertar({ id, ultimo });
      else folios.cambiar(id, { ultimo });
      return String(ultimo);
    },

    async pedirTimbrado(a, id, documento) {
      actualizar(a, id, {
        timbrado_estado: 'pendiente',
        timbrado_error: null,
        documento: copiaJson(documento),
      });
    },

    async guardarSello(a, id, s, o = {}) {
      const r = guardada(a, id);
      if (r?.xml_sellado !== null) return false;
      actualizar(a, id, {
        xml_sellado: s.xml,
        no_certificado: s.noCertificado,
        documento: copiaJson(s.documento),
        ...(o.contarIntento ? { timbrado_intentos: r.timbrado_intentos + 1 } : {}),
      });
      return true;
    },

    async contarIntento(a, id) {
      const r = guardada(a, id);
      if (r) actualizar(a, id, { timbrado_intentos: r.timbrado_intentos + 1 });
    },

    async anotarErrorTransitorio(a, id, error) {
      if (guardada(a, id)?.timbrado_estado === 'pendiente')
        actualizar(a, id, { timbrado_error: copiaJson(error) });
    },

    async guardarTimbre(tx, a, id, t) {
      await sinDuplicar(async () =>
        actualizar(
          a,
          id,
          {
            estado: 'timbrada',
            uuid: t.uuid.toUpperCase(),
            xml_timbrado: t.xml,
            fecha_timbrado: t.fechaTimbrado,
            no_certificado_sat: t.noCertificadoSat,
            timbrado_estado: 'timbrada',
            timbrado_error: null,
          },
          tx,
        ),
      );
    },

    async guardarRechazo(tx, a, id, error) {
      actualizar(
        a,
        id,
        { timbrado_estado: 'fallido', timbrado_error: copiaJson(error), xml_sellado: null },
        tx,
      );
    },

    async guardarCancelacion(a, id, c, o = {}) {
      const r = guardada(a, id, o.tx);
      // The first acuse stays unless the SAT took the request as new.
      const acuse =
        o.acuse && r && (o.acuse.reemplazar || r.acuse_cancelacion === null)
          ? { acuse_cancelacion: o.acuse.xml, acuse_cancelacion_fecha: o.acuse.fecha }
          : {};
      actualizar(
        a,
        id,
        { cancelacion: copiaJson(c), ...(o.cancelada ? { estado: 'cancelada' } : {}), ...acuse },
        o.tx,
      );
    },

    async acuseCancelacion(a, id) {
      const r = guardada(a, id);
      return (
        r && {
          estado: r.estado,
          cancelacion: r.cancelacion && copiaJson(r.cancelacion),
          acuse:
            r.acuse_cancelacion === null
              ? null
              : { xml: r.acuse_cancelacion, fecha: r.acuse_cancelacion_fecha ?? '' },
        }
      );
    },

    async obtenerConSellado(a, id) {
      const f = await obtener(a, id);
      return f && { ...f, xmlSellado: guardada(a, id)!.xml_sellado };
    },

    async xml(a, id) {
      const r = guardada(a, id);
      return r && { sellado: r.xml_sellado, timbrado: r.xml_timbrado };
    },

    async pdf(a, id) {
      const r = guardada(a, id);
      return r && { pdf: r.pdf, estado: r.estado, timbrada: r.xml_timbrado !== null };
    },

    async datosPdf(a, id) {
      const r = guardada(a, id);
      const org = r && tablaOrganizaciones(m).buscar(r.organizacion_id);
      return (
        r && org && { xmlTimbrado: r.xml_timbrado, tienePdf: r.pdf !== null, colorAcento: org.color_acento }
      );
    },

    async guardarPdf(a, id, pdf) {
      if (guardada(a, id)?.pdf === null) tabla.cambiar(id, { pdf });
    },

    async procesosPendientes(antesDe, limite) {
      const viejas = tabla
        .todas()
        .filter((r) => r.actualizado_en < antesDe)
        .sort((x, y) => x.actualizado_en.getTime() - y.actualizado_en.getTime());
      const proceso = (r: FacturaGuardada) => ({
        id: r.id,
        cuenta_id: r.cuenta_id,
        modo: r.modo,
        organizacion_id: r.organizacion_id,
      });
      return {
        timbrados: viejas
          .filter((r) => r.timbrado_estado === 'pendiente' && r.tipo !== 'pago')
          .slice(0, limite)
          .map(proceso),
        cancelaciones: viejas
          .filter((r) => cancelacionEnCurso(r.cancelacion))
          .slice(0, limite)
          .map(proceso),
      };
    },

    async pendientesDeTimbrar() {
      const desde = tabla
        .todas()
        .filter((r) => r.timbrado_estado === 'pendiente')
        .map((r) => r.creado_en.getTime());
      return {
        pendientes: desde.length,
        masAntiguoSegundos: desde.length ? Math.max(0, (Date.now() - Math.min(...desde)) / 1000) : 0,
      };
    },
  });
}
