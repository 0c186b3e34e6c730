import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import {
  destinatariosAutomaticos,
  motivoDelEvento,
  sinRepetir,
  type DestinatariosFactura,
  type EstadoCorreo,
  type MotivoCorreo,
} from '../../dominio/correo';
import type { DocumentoFactura } from '../../dominio/factura';
import type { Pagina, Tramo } from '../../dominio/paginacion';
import { nuevoId } from '../ids';
import { paginar } from '../paginacion';
import { conexion, type Transaccion } from '../transacciones';
import { columnasAlcance, conAlcance, leerJson } from './con-alcance';

export interface ErrorCorreo {
  codigo: string;
  mensaje: string;
}

export interface FilaCorreo {
  id: string;
  modo: Modo;
  factura_id: string;
  evento_id: string | null;
  motivo: MotivoCorreo;
  destinatarios: string[];
  estado: EstadoCorreo;
  intentos: number;
  respuesta_smtp: string | null;
  error: ErrorCorreo | null;
  ultimo_intento_en: Date | null;
  enviado_en: Date | null;
  creado_en: Date;
  actualizado_en: Date;
}

/** An email that needs its workflow: ids only, as the workflow takes them. */
export interface CorreoPorIniciar {
  id: string;
  cuenta_id: string;
  modo: Modo;
  factura_id: string;
  organizacion_id: string;
}

/** Everything one message is made of, read when it is sent (never carried through Temporal). */
export interface MaterialesCorreo {
  correo: FilaCorreo;
  factura: {
    id: string;
    tipo: string;
    estado: string;
    documento: DocumentoFactura;
    uuid: string | null;
    fecha_timbrado: string | null;
    xml_timbrado: string | null;
    pdf: Buffer | null;
    /** The SAT's cancellation acknowledgement, once the cancellation is final. */
    acuse: string | null;
    cancelacion: { motivo: string; actualizada_en?: string } | null;
  };
  organizacion: { nombre: string; rfc: string; correo: string | null };
}

const COLUMNAS = [
  'id',
  'modo',
  'factura_id',
  'evento_id',
  'motivo',
  'destinatarios',
  'estado',
  'intentos',
  'respuesta_smtp',
  'error',
  'ultimo_intento_en',
  'enviado_en',
  'creado_en',
  'actualizado_en',
].map((c) => `correos.${c}`);

const POR_INICIAR = [
  'correos.id',
  'correos.cuenta_id',
  'correos.modo',
  'correos.factura_id',
  'f.organizacion_id',
];

type FilaBd = Omit<FilaCorreo, 'destinatarios' | 'error'> & { destinatarios: unknown; error: unknown };

const leer = (f: FilaBd): FilaCorreo => ({
  ...f,
  destinatarios: leerJson<string[]>(f.destinatarios),
  error: f.error === null ? null : leerJson<ErrorCorreo>(f.error),
});

export function crearRepositorioCorreos(db: Knex) {
  const porIniciar = (c: Knex | Knex.Transaction) =>
    c('correos').join('facturas as f', 'f.id', 'correos.factura_id').select(POR_INICIAR);

  async function obtener(
    a: Pick<Alcance, 'cuentaId' | 'modo'>,
    id: string,
    tx?: Transaccion,
  ): Promise<FilaCorreo | undefined> {
    const f = (await conAlcance(conexion(db, tx), 'correos', a)
      .select(COLUMNAS)
      .where('correos.id', id)
      .first()) as FilaBd | undefined;
    return f && leer(f);
  }

  /**
   * Who an invoice's emails go to: its client's address (as it is now) and its additional ones, with its choice
   * and its organization's switch. A payment CFDI has no choice of its own: it goes to its client and to the
   * additional addresses of the invoices it paid (those that did not opt out), so whoever gets an invoice gets its
   * payments.
   */
  async function destinatarios(
    a: Pick<Alcance, 'cuentaId' | 'modo'>,
    facturaId: string,
  ): Promise<DestinatariosFactura | undefined> {
    const f = (await conAlcance(db, 'facturas', a)
      .join('organizaciones as o', 'o.id', 'facturas.organizacion_id')
      .leftJoin('clientes as c', 'c.id', 'facturas.cliente_id')
      .where('facturas.id', facturaId)
      .first('facturas.documento', 'o.correo_automatico', 'c.correo as correo_cliente')) as
      | { documento: unknown; correo_automatico: number | boolean; correo_cliente: string | null }
      | undefined;
    if (!f) return undefined;
    const doc = leerJson<DocumentoFactura>(f.documento);
    let preferencias = doc.correo;
    if (doc.pago) {
      const pagadas = (await conAlcance(db, 'pagos_facturas', a)
        .join('facturas as f', 'f.id', 'pagos_facturas.factura_id')
        .where('pagos_facturas.pago_id', doc.pago.id)
        .select('f.documento')) as { documento: unknown }[];
      const adicionales = pagadas
        .map((p) => leerJson<DocumentoFactura>(p.documento).correo)
        .flatMap((c) => (c?.enviar === false ? [] : (c?.adicionales ?? [])));
      preferencias = { enviar: true, adicionales: sinRepetir(adicionales) };
    }
    return {
      correoAutomatico: Boolean(f.correo_automatico),
      preferencias,
      correoCliente: f.correo_cliente,
    };
  }

  return {
    /**
     * The automatic email an event causes, if any: a stamped or cancelled invoice whose organization sends
     * automatic email, which did not opt out and has someone to send to. Repeating the call creates nothing new
     * and returns the same email while it is pending.
     */
    async crearParaEvento(ev: {
      id: string;
      cuenta_id: string;
      modo: Modo;
      tipo: string;
      datos: Record<string, unknown>;
    }): Promise<CorreoPorIniciar[]> {
      const motivo = motivoDelEvento(ev.tipo);
      const facturaId = ev.datos.id;
      if (!motivo || typeof facturaId !== 'string') return [];
      const a = { cuentaId: ev.cuenta_id, modo: ev.modo };
      const d = await destinatarios(a, facturaId);
      if (!d) return [];
      const para = destinatariosAutomaticos(d);
      if (!para.length) return [];
      // INSERT … IGNORE: the event's email is made once, however often the outbox runs.
      await db('correos')
        .insert({
          id: nuevoId('cor'),
          ...columnasAlcance(a),
          factura_id: facturaId,
          evento_id: ev.id,
          motivo,
          destinatarios: JSON.stringify(para),
          estado: 'pendiente',
        })
        .onConflict()
        .ignore();
      return porIniciar(db).where({ 'correos.evento_id': ev.id, 'correos.estado': 'pendiente' });
    },

    /** A resend asked through the API, inside the caller's transaction. */
    async crearReenvio(
      tx: Transaccion,
      a: Alcance,
      factura: { id: string; organizacion_id: string },
      destinatarios: string[],
    ): Promise<CorreoPorIniciar> {
      const id = nuevoId('cor');
      await conexion(
        db,
        tx,
      )('correos').insert({
        id,
        ...columnasAlcance(a),
        factura_id: factura.id,
        motivo: 'reenvio',
        destinatarios: JSON.stringify(destinatarios),
        estado: 'pendiente',
      });
      return {
        id,
        cuenta_id: a.cuentaId,
        modo: a.modo,
        factura_id: factura.id,
        organizacion_id: factura.organizacion_id,
      };
    },

    /**
     * Resends still pending with no attempt, created before `antesDe`: their workflow may never have started. (An
     * event's email needs no sweep: its outbox row stays until the email's workflow has started.)
     */
    async sinIniciar(antesDe: Date, limite: number): Promise<CorreoPorIniciar[]> {
      return porIniciar(db)
        .where({ 'correos.estado': 'pendiente', 'correos.intentos': 0 })
        .whereNull('correos.evento_id')
        .where('correos.creado_en', '<', antesDe)
        .orderBy('correos.creado_en')
        .limit(limite);
    },

    obtener,
    destinatarios,

    async listar(
      a: Alcance,
      filtros: { facturaId?: string; estado?: EstadoCorreo },
      pagina: Pagina,
    ): Promise<Tramo<FilaCorreo>> {
      const c = conAlcance(db, 'correos', a).select(COLUMNAS);
      if (filtros.facturaId) c.where('correos.factura_id', filtros.facturaId);
      if (filtros.estado) c.where('correos.estado', filtros.estado);
      const t = await paginar<FilaBd>(c, pagina, 'correos.id');
      return { datos: t.datos.map(leer), hayMas: t.hayMas };
    },

    /** Every email of these invoices, oldest first (the audit package's log). */
    async deFacturas(a: Pick<Alcance, 'cuentaId' | 'modo'>, facturaIds: string[]): Promise<FilaCorreo[]> {
      if (!facturaIds.length) return [];
      const filas = (await conAlcance(db, 'correos', a)
        .select(COLUMNAS)
        .whereIn('correos.factura_id', facturaIds)
        .orderBy('correos.id')) as FilaBd[];
      return filas.map(leer);
    },

    /** Whether an email can go yet, without reading the documents: its state, and whether its PDF is stored. */
    async estadoParaEnvio(
      a: Pick<Alcance, 'cuentaId' | 'modo'>,
      id: string,
    ): Promise<{ estado: EstadoCorreo; motivo: MotivoCorreo; tienePdf: boolean } | undefined> {
      const f = (await conAlcance(db, 'correos', a)
        .join('facturas as f', 'f.id', 'correos.factura_id')
        .where('correos.id', id)
        .first('correos.estado', 'correos.motivo', db.raw('f.pdf IS NOT NULL AS tiene_pdf'))) as
        | { estado: EstadoCorreo; motivo: MotivoCorreo; tiene_pdf: number }
        | undefined;
      return f && { estado: f.estado, motivo: f.motivo, tienePdf: Boolean(f.tiene_pdf) };
    },

    /** The email with its invoice's documents and its organization, to build the message from. */
    async materiales(
      a: Pick<Alcance, 'cuentaId' | 'modo'>,
      id: string,
    ): Promise<MaterialesCorreo | undefined> {
      const correo = await obtener(a, id);
      if (!correo) return undefined;
      const f = (await conAlcance(db, 'facturas', a)
        .join('organizaciones as o', 'o.id', 'facturas.organizacion_id')
        .where('facturas.id', correo.factura_id)
        .first(
          'facturas.id',
          'facturas.tipo',
          'facturas.estado',
          'facturas.documento',
          'facturas.uuid',
          'facturas.fecha_timbrado',
          'facturas.xml_timbrado',
          'facturas.pdf',
          'facturas.cancelacion',
          'facturas.acuse_cancelacion',
          'o.nombre as org_nombre',
          'o.rfc as org_rfc',
          'o.correo as org_correo',
        )) as Record<string, unknown> | undefined;
      if (!f) return undefined;
      return {
        correo,
        factura: {
          id: f.id as string,
          tipo: f.tipo as string,
          estado: f.estado as string,
          documento: leerJson<DocumentoFactura>(f.documento),
          uuid: f.uuid as string | null,
          fecha_timbrado: f.fecha_timbrado as string | null,
          xml_timbrado: f.xml_timbrado as string | null,
          pdf: f.pdf as Buffer | null,
          acuse: f.estado === 'cancelada' ? ((f.acuse_cancelacion as string | null) ?? null) : null,
          cancelacion: f.cancelacion === null ? null : leerJson(f.cancelacion),
        },
        organizacion: {
          nombre: f.org_nombre as string,
          rfc: f.org_rfc as string,
          correo: f.org_correo as string | null,
        },
      };
    },

    /** One attempt that did not end the email (the SMTP server unreachable or busy): the log shows why. */
    async anotarIntento(
      a: Pick<Alcance, 'cuentaId' | 'modo'>,
      id: string,
      intento: { numero: number; respuesta: string; en: Date },
    ): Promise<void> {
      await conAlcance(db, 'correos', a)
        .where({ id, estado: 'pendiente' })
        .update({
          intentos: intento.numero,
          respuesta_smtp: intento.respuesta.slice(0, 1000),
          ultimo_intento_en: intento.en,
          actualizado_en: intento.en,
        });
    },

    /**
     * Ends a pending email, inside the caller's transaction (the one that writes its event). Returns false when
     * it had already ended: a retried activity then writes no second event.
     */
    async terminar(
      tx: Transaccion,
      a: Pick<Alcance, 'cuentaId' | 'modo'>,
      id: string,
      fin: {
        estado: Exclude<EstadoCorreo, 'pendiente'>;
        numero: number;
        respuesta: string | null;
        error: ErrorCorreo | null;
        en: Date;
      },
    ): Promise<boolean> {
      const n = await conAlcance(conexion(db, tx), 'correos', a)
        .where({ id, estado: 'pendiente' })
        .update({
          estado: fin.estado,
          intentos: fin.numero,
          respuesta_smtp: fin.respuesta?.slice(0, 1000) ?? null,
          error: fin.error ? JSON.stringify(fin.error) : null,
          ultimo_intento_en: fin.en,
          enviado_en: fin.estado === 'enviado' ? fin.en : null,
          actualizado_en: fin.en,
        });
      return n > 0;
    },
  };
}

export type RepositorioCorreos = ReturnType<typeof crearRepositorioCorreos>;
