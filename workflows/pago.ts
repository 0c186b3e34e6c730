import {
  allHandlersFinished,
  condition,
  defineUpdate,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Actividades } from '../activities';
import type { EntradaPago } from '../activities/pagos';
import { ATRIBUTOS } from './atributos';
import { CANCELABLE, crearEsperas, pasoAcotado } from './pasos';
import { generarPdf, timbrarConPasos, type ResultadoTimbrado } from './timbrado';

const PARCHE_TIMBRANDO = 'pago-estado-timbrando';

/** `rechazado`: a rule refused the payment; otherwise what became of its CFDI's stamping. */
export type ResultadoPago = 'rechazado' | ResultadoTimbrado;

/** The API's bounded wait: answers on a refusal, or once the payment CFDI is stamped or rejected. */
export const esperarPago = defineUpdate<ResultadoPago>('esperarPago');

// The ledger step is a short database transaction: a local activity, retried until it commits.
const libro = proxyLocalActivities<Actividades>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  summary: 'Registro del pago en el libro de saldos',
});

// Since this patch the ledger step is bounded like the stamping steps (workflows/pasos.ts): a few local tries,
// then a regular activity with backoff while the database is down.
const PARCHE_LIBRO_ACOTADO = 'libro-acotado';
const libroLocal = proxyLocalActivities<Actividades>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
  summary: 'Registro del pago en el libro de saldos',
});
const libroRemoto = proxyActivities<Actividades>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '30 seconds' },
  summary: 'Registro del pago en el libro de saldos',
  ...CANCELABLE,
});

/**
 * One per payment (workflow id `pago:<pago>`): the ledger step under the invoices' locks, then its payment
 * CFDI through the same stamping path as any invoice (exactly once, lost answers recovered), then its PDF.
 */
export async function registrarPago(e: EntradaPago): Promise<ResultadoPago> {
  const esperas = crearEsperas();
  let resultado: ResultadoPago | undefined;
  setHandler(esperarPago, async () => {
    await condition(() => resultado !== undefined);
    return resultado!;
  });

  const paso = patched(PARCHE_LIBRO_ACOTADO)
    ? (
        await pasoAcotado(
          'libro',
          esperas,
          () => libroLocal.registrarPagoEnLibro(e),
          () => libroRemoto.registrarPagoEnLibro(e),
        )
      ).valor
    : await libro.registrarPagoEnLibro(e);
  if (paso.estado === 'rechazado') {
    resultado = 'rechazado';
    upsertSearchAttributes([{ key: ATRIBUTOS.EstadoFactura, value: 'rechazado' }]);
  } else {
    // The request that registered the payment is behind its CFDI's events too.
    const cfdi = {
      facturaId: paso.facturaPagoId,
      cuentaId: e.cuentaId,
      modo: e.modo,
      origen: e.origen,
    };
    // Version 2 shows the stamping as `timbrando`, so the README's stuck-stamping filter finds payments too.
    upsertSearchAttributes([
      { key: ATRIBUTOS.FacturaId, value: paso.facturaPagoId },
      ...(patched(PARCHE_TIMBRANDO) ? [{ key: ATRIBUTOS.EstadoFactura, value: 'timbrando' }] : []),
    ]);
    resultado = await timbrarConPasos(cfdi, esperas);
    if (resultado === 'timbrada') await generarPdf(cfdi);
  }
  await condition(allHandlersFinished);
  return resultado;
}
