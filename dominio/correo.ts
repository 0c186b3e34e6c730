/** Why an email was sent: its invoice was stamped, was cancelled, or someone asked to send it again. */
export type MotivoCorreo = 'timbrado' | 'cancelacion' | 'reenvio';

export type EstadoCorreo = 'pendiente' | 'enviado' | 'fallido';

/** Recipients of one email, the client's address included. */
export const MAXIMO_DESTINATARIOS = 10;

/** An invoice's email preferences, kept with its document (`enviar_correo`, `correos_adicionales`). */
export interface PreferenciasCorreo {
  enviar: boolean;
  adicionales: string[];
}

/** The events that email the receiver, and why. */
export function motivoDelEvento(tipo: string): Exclude<MotivoCorreo, 'reenvio'> | undefined {
  if (tipo === 'factura.timbrada') return 'timbrado';
  if (tipo === 'factura.cancelada') return 'cancelacion';
  return undefined;
}

/** The addresses once each (case aside), in the order given, without empty ones. */
export function sinRepetir(correos: (string | null | undefined)[]): string[] {
  const vistos = new Set<string>();
  const salida: string[] = [];
  for (const c of correos) {
    const limpio = c?.trim();
    if (!limpio || vistos.has(limpio.toLowerCase())) continue;
    vistos.add(limpio.toLowerCase());
    salida.push(limpio);
  }
  return salida;
}

/**
 * Who gets an invoice's automatic email: nobody when its organization turned automatic email off or the invoice
 * opted out; otherwise its client's address and the invoice's additional ones.
 */
export interface DestinatariosFactura {
  correoAutomatico: boolean;
  preferencias: PreferenciasCorreo | undefined;
  correoCliente: string | null;
}

/** Everyone an invoice's emails go to when nobody names the recipients: its client and its additional ones. */
export const destinatariosPorOmision = (o: DestinatariosFactura) =>
  sinRepetir([o.correoCliente, ...(o.preferencias?.adicionales ?? [])]).slice(0, MAXIMO_DESTINATARIOS);

export function destinatariosAutomaticos(o: DestinatariosFactura): string[] {
  if (!o.correoAutomatico || o.preferencias?.enviar === false) return [];
  return destinatariosPorOmision(o);
}
