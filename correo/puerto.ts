/**
 * The email port: what the email activity asks of an SMTP server. The adapter (correo/smtp.ts) speaks SMTP with
 * nodemailer; tests use Mailpit, a real SMTP server, or an in-memory fake.
 *
 * Contract on failures, as the PAC port's:
 * - A definitive refusal (a 5xx answer: the address does not exist, the message is too large) is a *result*
 *   (`rechazado`): sending the same message again cannot change it.
 * - Anything that may pass later (no connection, timeout, a 4xx answer, the server refusing our credentials
 *   until someone fixes them) throws `ErrorCorreoTransitorio`, and the activity is retried with backoff.
 */
export interface PuertoCorreo {
  enviar(m: MensajeCorreo): Promise<ResultadoCorreo>;
}

export interface AdjuntoCorreo {
  nombre: string;
  tipo: string;
  contenido: Buffer;
}

export interface MensajeCorreo {
  de: { nombre: string; direccion: string };
  para: string[];
  responderA: string | null;
  asunto: string;
  texto: string;
  html: string;
  adjuntos: AdjuntoCorreo[];
  /** `<id@dominio>`, the same on every attempt, so a receiver can tell a repeat from a new message. */
  messageId: string;
}

export type ResultadoCorreo =
  | {
      tipo: 'enviado';
      /** The server's answer to the message ("250 2.0.0 Ok: queued as …"). */
      respuesta: string;
      /** Recipients the server refused while it took the message for the others, with its answer. */
      rechazados: string[];
    }
  | { tipo: 'rechazado'; codigo: CodigoRechazoCorreo; respuesta: string };

export type CodigoRechazoCorreo = 'destinatario_rechazado' | 'correo_demasiado_grande' | 'correo_rechazado';

export class ErrorCorreoTransitorio extends Error {
  constructor(
    /** The server's answer or the connection error, for the email log. */
    readonly respuesta: string,
    readonly codigo: 'smtp_no_disponible' | 'smtp_configuracion' = 'smtp_no_disponible',
  ) {
    super(respuesta);
    this.name = 'ErrorCorreoTransitorio';
  }
}
