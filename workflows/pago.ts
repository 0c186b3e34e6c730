import {
  allHandlersFinished,
  condition,
  defineUpdate,
  patched,
  proxyActivities,
  proxyLocalActivities,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Actividades } from '../activities';
import type { EntradaPago } from '../activities/pagos';
import { ATRIBUTOS } from './atributos';
import { CANCELABLE, crearEsperas, pasoAcotado, responderEspera } from './pasos';
import { generarPdf, timbrarAcotado, timbrarConPasos, type ResultadoTimbrado } from './timbrado';

// registrarPago's patches stay, for the reason given in workflows/timbrado.ts: nothing starts that type any
// more, but a run of it may still wait on the PAC with either branch behind it.
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
 * The payments started before registrarPagoV2 (workflow id `pago:<pago>`): nothing starts it any more; kept so
 * running ones finish. The ledger step, then its payment CFDI through the stamping path of the same era, then
 * its PDF.
 */
export async function registrarPago(e: EntradaPago): Promise<ResultadoPago> {
  const esperas = crearEsperas();
  const fin = responderEspera(esperarPago);

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
    fin.resultado = 'rechazado';
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
    fin.resultado = await timbrarConPasos(cfdi, esperas);
    if (fin.resultado === 'timbrada') await generarPdf(cfdi);
  }
  await condition(allHandlersFinished);
  return fin.resultado;
}

/**
 * One per payment (workflow id `pago:<pago>`): the ledger step under the invoices' locks, bounded like the
 * stamping steps, then its payment CFDI through timbrarFacturaV2's path (exactly once, lost answers recovered;
 * the step that stores the stamp hands the PDF to its own workflow). A new type rather than more patches over
 * registrarPago's five: every patched() call writes TemporalChangeVersion, a visibility write per run. Its CFDI's
 * `FacturaId` and `timbrando` travel with the first error or the outcome (one write for a payment that stamps at
 * once), so the stuck-stamping filters find a waiting payment as they find an invoice.
 */
export async function registrarPagoV2(e: EntradaPago): Promise<ResultadoPago> {
  const esperas = crearEsperas();
  const fin = responderEspera(esperarPago);
  const libro = await pasoAcotado(
    'libro',
    esperas,
    () => libroLocal.registrarPagoEnLibro(e),
    () => libroRemoto.registrarPagoEnLibro(e),
  );
  const paso = libro.valor;
  if (paso.estado === 'rechazado') {
    fin.resultado = 'rechazado';
    upsertSearchAttributes([
      { key: ATRIBUTOS.EstadoFactura, value: 'rechazado' },
      ...(libro.falla ? [{ key: ATRIBUTOS.ErrorTimbrado, value: [] as string[] }] : []),
    ]);
  } else {
    const facturaId = { key: ATRIBUTOS.FacturaId, value: paso.facturaPagoId };
    fin.resultado = await timbrarAcotado(
      { facturaId: paso.facturaPagoId, cuentaId: e.cuentaId, modo: e.modo, origen: e.origen },
      esperas,
      {
        referencias: true,
        conElError: [facturaId, { key: ATRIBUTOS.EstadoFactura, value: 'timbrando' }],
        conElResultado: [facturaId],
        fallaPrevia: libro.falla,
      },
    );
  }
  await condition(allHandlersFinished);
  return fin.resultado;
}
