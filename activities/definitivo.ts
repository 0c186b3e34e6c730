import { ApplicationFailure } from '@temporalio/common';
import type { ErrorTimbrado } from '../dominio/factura';

/**
 * Errors classified once, by where they happen. A step's pure part (building, validating and sealing a CFDI,
 * opening the stored CSD) has no I/O: whatever it throws, every retry throws again, so it is a definitive
 * rejection that ends the operation `fallido` with its event. I/O (MySQL, the PAC's transport) throws and is
 * retried by Temporal with backoff. A PAC's answer that refuses the document is a rejection too, but it arrives
 * as an answer, not as an error.
 */
export type Definitivo<T> = { ok: true; valor: T } | { ok: false; error: ErrorTimbrado };

// Long enough for the cause, short enough for a JSON column, an event and a log line.
const LARGO_MENSAJE = 500;

export function pasoDefinitivo<T>(codigo: string, que: string, paso: () => T): Definitivo<T> {
  try {
    return { ok: true, valor: paso() };
  } catch (err) {
    const causa = err instanceof Error ? err.message : String(err);
    const mensaje = `${que}: ${causa}`;
    return {
      ok: false,
      error: {
        codigo,
        mensaje: mensaje.length > LARGO_MENSAJE ? `${mensaje.slice(0, LARGO_MENSAJE - 1)}…` : mensaje,
      },
    };
  }
}

/**
 * A record the workflow was started for is gone: a bug or a manual deletion, never a state a retry reaches.
 * The workflow fails (red in the Temporal UI) instead of retrying forever.
 */
export const registroInexistente = (mensaje: string) =>
  ApplicationFailure.nonRetryable(mensaje, 'RegistroInexistente');
