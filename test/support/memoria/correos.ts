import { nuevoId } from '../../../db/ids';
import type { CorreoPorIniciar, FilaCorreo, RepositorioCorreos } from '../../../db/repositorios/correos';
import { destinatariosAutomaticos, motivoDelEvento, sinRepetir } from '../../../dominio/correo';
import {
  ClaveUnicaViolada,
  columnasAlcance,
  copiaJson,
  enAlcance,
  paginarEnMemoria,
  type Almacen,
  type ColumnasAlcance,
} from './almacen';
import { tablaClientes } from './clientes';
import { tablaFacturas } from './facturas';
import { tablaOrganizaciones } from './organizaciones';
import { tablaLibro } from './pagos';
import { exigirAbierta, porConexion } from './transacciones';

type CorreoGuardado = Omit<FilaCorreo, 'modo'> & ColumnasAlcance;

export const tablaCorreos = (m: Almacen) =>
  m.tabla<CorreoGuardado>('correos', [{ nombre: 'evento_id', clave: (r) => r.evento_id }]);

/** db/repositorios/correos.ts over the store: the same rules (the domain's), the same unique key per event. */
export function crearCorreosEnMemoria(m: Almacen): RepositorioCorreos {
  const tabla = tablaCorreos(m);
  const facturas = tablaFacturas(m);
  const organizaciones = tablaOrganizaciones(m);
  const clientes = tablaClientes(m);
  const libro = tablaLibro(m);

  const leer = ({ cuenta_id: _c, ...r }: CorreoGuardado): FilaCorreo => ({
    ...r,
    destinatarios: [...r.destinatarios],
    error: r.error && copiaJson(r.error),
  });
  // The real read's inner join on the invoice, for its organization.
  const porIniciar = (r: CorreoGuardado): CorreoPorIniciar => ({
    id: r.id,
    cuenta_id: r.cuenta_id,
    modo: r.modo,
    factura_id: r.factura_id,
    organizacion_id: facturas.buscar(r.factura_id)!.organizacion_id,
  });
  const nueva = (
    c: Pick<
      CorreoGuardado,
      'id' | 'cuenta_id' | 'modo' | 'factura_id' | 'evento_id' | 'motivo' | 'destinatarios'
    >,
  ): CorreoGuardado => {
    const ahora = new Date();
    return {
      ...c,
      estado: 'pendiente',
      intentos: 0,
      respuesta_smtp: null,
      error: null,
      ultimo_intento_en: null,
      enviado_en: null,
      creado_en: ahora,
      actualizado_en: ahora,
    };
  };
  const guardado = (a: { cuentaId: string; modo: string }, id: string) =>
    tabla.todas().find((r) => r.cuenta_id === a.cuentaId && r.modo === a.modo && r.id === id);

  /** As the real one: a payment CFDI goes to the additional addresses of the invoices it paid. */
  async function destinatarios(a: { cuentaId: string; modo: string }, facturaId: string) {
    const f = facturas
      .todas()
      .find((r) => r.cuenta_id === a.cuentaId && r.modo === a.modo && r.id === facturaId);
    if (!f) return undefined;
    const org = organizaciones.buscar(f.organizacion_id);
    let preferencias = f.documento.correo;
    const pago = f.documento.pago;
    if (pago) {
      const adicionales = libro
        .todas()
        .filter((x) => x.pago_id === pago.id)
        .map((x) => facturas.buscar(x.factura)?.documento.correo)
        .flatMap((c) => (c?.enviar === false ? [] : (c?.adicionales ?? [])));
      preferencias = { enviar: true, adicionales: sinRepetir(adicionales) };
    }
    return {
      correoAutomatico: org?.correo_automatico !== false,
      preferencias,
      correoCliente: (f.cliente_id && clientes.buscar(f.cliente_id)?.correo) || null,
    };
  }

  return porConexion({
    destinatarios,

    async crearParaEvento(ev) {
      const motivo = motivoDelEvento(ev.tipo);
      const facturaId = ev.datos.id;
      if (!motivo || typeof facturaId !== 'string') return [];
      const a = { cuentaId: ev.cuenta_id, modo: ev.modo };
      const d = await destinatarios(a, facturaId);
      if (!d) return [];
      const para = destinatariosAutomaticos(d);
      if (!para.length) return [];
      try {
        tabla.insertar(
          nueva({
            id: nuevoId('cor'),
            ...columnasAlcance(a),
            factura_id: facturaId,
            evento_id: ev.id,
            motivo,
            destinatarios: para,
          }),
        );
      } catch (e) {
        // INSERT … ON CONFLICT IGNORE.
        if (!(e instanceof ClaveUnicaViolada)) throw e;
      }
      return tabla
        .todas()
        .filter((r) => r.evento_id === ev.id && r.estado === 'pendiente')
        .map(porIniciar);
    },

    async crearReenvio(tx, a, factura, destinatarios) {
      exigirAbierta(tx);
      const r = nueva({
        id: nuevoId('cor'),
        ...columnasAlcance(a),
        factura_id: factura.id,
        evento_id: null,
        motivo: 'reenvio',
        destinatarios,
      });
      tabla.insertar(r);
      return porIniciar(r);
    },

    async sinIniciar(antesDe, limite) {
      return tabla
        .todas()
        .filter(
          (r) =>
            r.estado === 'pendiente' && r.intentos === 0 && r.evento_id === null && r.creado_en < antesDe,
        )
        .sort((x, y) => x.creado_en.getTime() - y.creado_en.getTime())
        .slice(0, limite)
        .map(porIniciar);
    },

    async obtener(a, id, tx) {
      exigirAbierta(tx);
      const r = guardado(a, id);
      return r && leer(r);
    },

    async listar(a, filtros, pagina) {
      const filas = tabla
        .todas()
        .filter(
          (r) =>
            enAlcance(a)(r) &&
            (!filtros.facturaId || r.factura_id === filtros.facturaId) &&
            (!filtros.estado || r.estado === filtros.estado),
        );
      const t = paginarEnMemoria(filas, pagina);
      return { ...t, datos: t.datos.map(leer) };
    },

    async deFacturas(a, facturaIds) {
      return tabla
        .todas()
        .filter((r) => r.cuenta_id === a.cuentaId && r.modo === a.modo && facturaIds.includes(r.factura_id))
        .sort((x, y) => (x.id < y.id ? -1 : 1))
        .map(leer);
    },

    async estadoParaEnvio(a, id) {
      const r = guardado(a, id);
      const f = r && facturas.buscar(r.factura_id);
      return r && f && { estado: r.estado, motivo: r.motivo, tienePdf: f.pdf !== null };
    },

    async materiales(a, id) {
      const r = guardado(a, id);
      const f = r && facturas.todas().find((x) => x.cuenta_id === a.cuentaId && x.id === r.factura_id);
      const org = f && organizaciones.buscar(f.organizacion_id);
      if (!r || !f || !org) return undefined;
      const acuse = f.acuse_cancelacion;
      return {
        correo: leer(r),
        factura: {
          id: f.id,
          tipo: f.tipo,
          estado: f.estado,
          documento: copiaJson(f.documento),
          uuid: f.uuid,
          fecha_timbrado: f.fecha_timbrado,
          xml_timbrado: f.xml_timbrado,
          pdf: f.pdf,
          acuse: f.estado === 'cancelada' ? acuse : null,
          cancelacion: f.cancelacion && copiaJson(f.cancelacion),
        },
        organizacion: { nombre: org.nombre, rfc: org.rfc, correo: org.correo ?? null },
      };
    },

    async anotarIntento(a, id, intento) {
      const r = guardado(a, id);
      if (r?.estado !== 'pendiente') return;
      tabla.cambiar(id, {
        intentos: intento.numero,
        respuesta_smtp: intento.respuesta.slice(0, 1000),
        ultimo_intento_en: intento.en,
        actualizado_en: intento.en,
      });
    },

    async terminar(tx, a, id, fin) {
      exigirAbierta(tx);
      const r = guardado(a, id);
      if (r?.estado !== 'pendiente') return false;
      tabla.cambiar(id, {
        estado: fin.estado,
        intentos: fin.numero,
        respuesta_smtp: fin.respuesta?.slice(0, 1000) ?? null,
        error: fin.error && copiaJson(fin.error),
        ultimo_intento_en: fin.en,
        enviado_en: fin.estado === 'enviado' ? fin.en : null,
        actualizado_en: fin.en,
      });
      return true;
    },
  });
}
