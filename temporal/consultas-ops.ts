/**
 * The Temporal list filters ops use, in one place: the README quotes them (test/unit/readme-config.test.ts
 * keeps it equal), `npm run capturas:ui` screenshots the UI with them and the runbook test runs them.
 */

/**
 * Stampings waiting on a failure (the PAC or the database down), invoices' and payments' alike: running, with
 * the step and code of the error that made them wait in `ErrorTimbrado`.
 */
export const FILTRO_TIMBRADOS_ATORADOS = 'ExecutionStatus="Running" AND ErrorTimbrado IS NOT NULL';

/** The same, only those started before `desde` (the README computes it with `date`). */
export const filtroAtoradosDesde = (desde: Date) =>
  `${FILTRO_TIMBRADOS_ATORADOS} AND StartTime < "${desde.toISOString().replace(/\.\d{3}Z$/, 'Z')}"`;
