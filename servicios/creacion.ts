import type { Transaccion } from '../db/transacciones';

/**
 * A create request under `Clave-Idempotencia` (the API's idempotency layer fills it). `anotar` writes the new id
 * in the creating transaction; `recurso` is what an earlier attempt with the same key and body created and
 * committed before its answer was lost (the database went away, the process died): the service resumes it
 * instead of creating a second one.
 */
export interface CreacionIdempotente {
  recurso?: string;
  anotar?(tx: Transaccion, id: string): Promise<void>;
}
