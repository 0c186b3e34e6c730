import { createTransport } from 'nodemailer';
import {
  ErrorCorreoTransitorio,
  type CodigoRechazoCorreo,
  type MensajeCorreo,
  type PuertoCorreo,
  type ResultadoCorreo,
} from './puerto';

/** What nodemailer's errors carry: its own code, and the server's reply when there was one. */
interface FallaSmtp {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

// Credentials and TLS are fixed by people, not by retrying at once; the email waits for them like for a server
// that is down (its deadline still ends it).
const DE_CONFIGURACION = new Set(['EAUTH', 'ENOAUTH', 'ECONFIG', 'ETLS', 'EREQUIRETLS']);

/** Permanent (a 5xx reply) or transient (everything else), and how the email log names it. */
export function clasificarFallaSmtp(e: FallaSmtp): ResultadoCorreo | ErrorCorreoTransitorio {
  const respuesta = (e.response ?? e.message ?? String(e)).slice(0, 1000);
  if (e.code && DE_CONFIGURACION.has(e.code))
    return new ErrorCorreoTransitorio(respuesta, 'smtp_configuracion');
  const codigo = e.responseCode;
  if (codigo === undefined || codigo < 500) return new ErrorCorreoTransitorio(respuesta);
  // 552 (RFC 5321: storage exceeded) and 5.3.4 (RFC 3463: message too big) are how servers refuse a size.
  const tamano = codigo === 552 || /\b5\.3\.4\b/.test(respuesta) || /too (big|large)|size/i.test(respuesta);
  const rechazo: CodigoRechazoCorreo = tamano
    ? 'correo_demasiado_grande'
    : e.code === 'EENVELOPE'
      ? 'destinatario_rechazado'
      : 'correo_rechazado';
  return { tipo: 'rechazado', codigo: rechazo, respuesta };
}

/**
 * The SMTP adapter: one pool of connections per process. `SMTP_URL` names the server and TLS (`smtp://host:587`
 * upgrades with STARTTLS when offered; `smtps://host:465` is TLS from the start); credentials come apart, secret.
 */
export function crearCorreoSmtp(o: {
  url: string;
  usuario?: string;
  contrasena?: string;
  conexiones?: number;
}): PuertoCorreo & { cerrar(): void } {
  const transporte = createTransport({
    url: o.url,
    ...(o.usuario ? { auth: { user: o.usuario, pass: o.contrasena ?? '' } } : {}),
    pool: true,
    maxConnections: o.conexiones ?? 4,
    // A server that does not answer is a transient failure, not a worker slot held for minutes.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async enviar(m: MensajeCorreo): Promise<ResultadoCorreo> {
      try {
        const info = await transporte.sendMail({
          from: { name: m.de.nombre, address: m.de.direccion },
          to: m.para,
          ...(m.responderA ? { replyTo: m.responderA } : {}),
          subject: m.asunto,
          text: m.texto,
          html: m.html,
          messageId: m.messageId,
          date: new Date(),
          attachments: m.adjuntos.map((a) => ({
            filename: a.nombre,
            contentType: a.tipo,
            content: a.contenido,
          })),
        });
        const rechazados = info.rejected ?? [];
        return { tipo: 'enviado', respuesta: String(info.response ?? ''), rechazados };
      } catch (e) {
        const r = clasificarFallaSmtp(e as FallaSmtp);
        if (r instanceof ErrorCorreoTransitorio) throw r;
        return r;
      }
    },
    cerrar: () => transporte.close(),
  };
}

/**
 * The worker's SMTP servers: live mode's, and test mode's when `SMTP_URL_TEST` names another (a sink such as
 * Mailpit, so a test invoice never reaches a person); one pool when they are the same server.
 */
export function crearCorreosPorModo(c: {
  smtpUrl: string;
  smtpUrlTest?: string;
  usuario?: string;
  contrasena?: string;
}): (modo: 'test' | 'live') => ReturnType<typeof crearCorreoSmtp> {
  const live = crearCorreoSmtp({ url: c.smtpUrl, usuario: c.usuario, contrasena: c.contrasena });
  const test = c.smtpUrlTest && c.smtpUrlTest !== c.smtpUrl ? crearCorreoSmtp({ url: c.smtpUrlTest }) : live;
  return (modo) => (modo === 'test' ? test : live);
}
