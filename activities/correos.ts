import { ApplicationFailure } from '@temporalio/common';
import type { MaterialesCorreo, RepositorioCorreos } from '../db/repositorios/correos';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { Transacciones } from '../db/transacciones';
import { alcanceSistema, type Modo } from '../dominio/alcance';
import type { EstadoCorreo } from '../dominio/correo';
import { armarMensaje, type DatosMensaje } from '../correo/mensaje';
import { ErrorCorreoTransitorio, type PuertoCorreo } from '../correo/puerto';
import { dtoCorreo } from '../presentacion/correo';
import { registroInexistente } from './definitivo';

/** What an email workflow passes around: ids only, never an address or a document. */
export interface EntradaCorreo {
  correoId: string;
  facturaId: string;
  cuentaId: string;
  modo: Modo;
}

export interface DepsCorreos {
  correos: RepositorioCorreos;
  eventos: Pick<RepositorioEventos, 'registrar'>;
  transacciones: Transacciones;
  /** The SMTP server of each mode: test mode's may be a sink (`SMTP_URL_TEST`), so no test invoice reaches a person. */
  correoPara(modo: Modo): PuertoCorreo;
  /** The From address (`CORREO_REMITENTE`); the display name is the issuer's. */
  remitente: string;
  ahora?: () => Date;
  /** Between two looks at a PDF not stored yet (tests shorten it). */
  esperaPdfMs?: number;
}

const VUELTAS_PDF = 5;
const ESPERA_PDF_MS = 500;

const MENSAJES_RECHAZO: Record<string, string> = {
  destinatario_rechazado: 'El servidor de correo rechazó a los destinatarios',
  correo_demasiado_grande: 'El servidor de correo rechazó el mensaje por su tamaño (XML y PDF adjuntos)',
  correo_rechazado: 'El servidor de correo rechazó el mensaje',
};

function datosMensaje(m: MaterialesCorreo): DatosMensaje {
  const f = m.factura;
  const e = f.documento.entrada;
  return {
    correoId: m.correo.id,
    motivo: m.correo.motivo,
    destinatarios: m.correo.destinatarios,
    emisor: { nombre: e.emisor.nombre, rfc: e.emisor.rfc, correo: m.organizacion.correo },
    receptor: { nombre: e.receptor.nombre, rfc: e.receptor.rfc },
    tipo: f.tipo as DatosMensaje['tipo'],
    serie: e.serie ?? null,
    folio: e.folio ?? null,
    uuid: f.uuid!,
    fechaTimbrado: f.fecha_timbrado,
    // A payment CFDI's own total is 0 XXX: what it tells is the amount paid, always in pesos (MontoTotalPagos).
    total: f.documento.pago?.complemento.totales.monto_total_pagos ?? f.documento.importes.total,
    moneda: f.documento.pago ? 'MXN' : e.moneda,
    motivoCancelacion: f.estado === 'cancelada' ? (f.cancelacion?.motivo ?? null) : null,
    xml: f.xml_timbrado!,
    pdf: f.pdf,
    acuse: f.acuse,
  };
}

export function crearActividadesCorreos(d: DepsCorreos) {
  const ahora = d.ahora ?? (() => new Date());

  /** Ends the email and writes its event in one transaction; an email already ended is left as it is. */
  async function terminar(
    e: EntradaCorreo,
    fin: Omit<Parameters<RepositorioCorreos['terminar']>[3], 'en'>,
  ): Promise<EstadoCorreo> {
    const a = alcanceSistema(e);
    await d.transacciones.ejecutar(async (tx) => {
      if (!(await d.correos.terminar(tx, a, e.correoId, { ...fin, en: ahora() }))) return;
      const correo = dtoCorreo((await d.correos.obtener(a, e.correoId, tx))!);
      await d.eventos.registrar(
        tx,
        a,
        fin.estado === 'enviado' ? 'correo.enviado' : 'correo.fallido',
        correo,
      );
    });
    return fin.estado;
  }

  async function materiales(e: EntradaCorreo) {
    const m = await d.correos.materiales(alcanceSistema(e), e.correoId);
    if (!m) throw registroInexistente(`correo ${e.correoId} inexistente`);
    return m;
  }

  return {
    /**
     * Whether the email can go: `listo` when it needs no PDF or its PDF is stored, its state when it already
     * ended. While the PDF is still being rendered (the stamping renders it right after the stamp) it throws,
     * and the workflow's retry policy waits; after a few tries the workflow renders it itself.
     */
    async pdfParaCorreo(e: EntradaCorreo): Promise<'listo' | EstadoCorreo> {
      // A render takes a second or two: look a few times here before a retry (and its log line) is needed.
      for (let vuelta = 0; ; vuelta++) {
        const m = await d.correos.estadoParaEnvio(alcanceSistema(e), e.correoId);
        if (!m) throw registroInexistente(`correo ${e.correoId} inexistente`);
        if (m.estado !== 'pendiente') return m.estado;
        if (m.motivo === 'cancelacion' || m.tienePdf) return 'listo';
        if (vuelta === VUELTAS_PDF) break;
        await new Promise((r) => setTimeout(r, d.esperaPdfMs ?? ESPERA_PDF_MS));
      }
      throw ApplicationFailure.retryable(`El PDF de ${e.facturaId} aún no está guardado.`, 'PdfPendiente');
    },

    /**
     * One attempt to hand the email to the SMTP server. Sent or refused for good, it ends with its event; a
     * server that cannot take it now is noted in the log and the attempt throws, so Temporal retries it. A worker
     * that dies after the server took the message and before this writes it sends it once more on the retry, with
     * the same Message-ID.
     */
    async intentarCorreo(e: EntradaCorreo): Promise<EstadoCorreo> {
      const m = await materiales(e);
      if (m.correo.estado !== 'pendiente') return m.correo.estado;
      const numero = m.correo.intentos + 1;
      if (!m.factura.uuid || !m.factura.xml_timbrado) {
        return terminar(e, {
          estado: 'fallido',
          numero,
          respuesta: null,
          error: { codigo: 'factura_no_timbrada', mensaje: `La factura ${e.facturaId} no está timbrada.` },
        });
      }
      const mensaje = armarMensaje(datosMensaje(m), d.remitente);
      let r;
      try {
        r = await d.correoPara(e.modo).enviar(mensaje);
      } catch (err) {
        if (!(err instanceof ErrorCorreoTransitorio)) throw err;
        await d.correos.anotarIntento(alcanceSistema(e), e.correoId, {
          numero,
          respuesta: err.respuesta,
          en: ahora(),
        });
        throw ApplicationFailure.retryable(err.respuesta, err.codigo);
      }
      if (r.tipo === 'enviado') {
        const rechazados = r.rechazados.length ? ` (rechazados: ${r.rechazados.join(', ')})` : '';
        return terminar(e, { estado: 'enviado', numero, respuesta: r.respuesta + rechazados, error: null });
      }
      return terminar(e, {
        estado: 'fallido',
        numero,
        respuesta: r.respuesta,
        error: { codigo: r.codigo, mensaje: `${MENSAJES_RECHAZO[r.codigo]}: ${r.respuesta}`.slice(0, 500) },
      });
    },

    /** The email's deadline passed with the server still unreachable (or its PDF never rendered): it fails. */
    async abandonarCorreo(
      e: EntradaCorreo,
      causa: { codigo: 'smtp_no_disponible' | 'pdf_no_disponible'; detalle: string },
    ): Promise<EstadoCorreo> {
      const m = await materiales(e);
      if (m.correo.estado !== 'pendiente') return m.correo.estado;
      const mensaje =
        causa.codigo === 'pdf_no_disponible'
          ? `No se pudo generar el PDF para el correo: ${causa.detalle}`
          : `El servidor de correo no tomó el mensaje dentro del plazo; última respuesta: ${m.correo.respuesta_smtp ?? causa.detalle}`;
      return terminar(e, {
        estado: 'fallido',
        numero: m.correo.intentos,
        respuesta: m.correo.respuesta_smtp,
        error: { codigo: causa.codigo, mensaje: mensaje.slice(0, 500) },
      });
    },
  };
}
