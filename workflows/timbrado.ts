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
import type { EntradaTimbrado } from '../activities/timbrado';
import { ATRIBUTOS } from './atributos';
import { REINTENTO_PAC } from './reintentos';

export type ResultadoTimbrado = 'timbrada' | 'fallido';

/** The API's bounded wait: answers as soon as the invoice is stamped or rejected (before the PDF). */
export const esperarTimbrado = defineUpdate<ResultadoTimbrado>('esperarTimbrado');

const opcionesPasos = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
} as const;

// Short database and CPU steps run as local activities: in the worker, without a round trip through the
// Temporal server per step (a stamping costs the server a few writes instead of dozens).
const locales = proxyLocalActivities<Actividades>(opcionesPasos);

// Stampings started before that change ran every step as a regular activity: their histories must still
// replay after a deployment, so they go on that way (see PARCHE_LOCALES).
const remotas = proxyActivities<Actividades>(opcionesPasos);
const PARCHE_LOCALES = 'pasos-locales';

// The PAC's usual answer takes well under a second: the first attempt is local too.
const pacRapido = proxyLocalActivities<Actividades>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 1 },
  summary: 'Timbrado con el PAC (primer intento)',
});

// When the first attempt fails, the PAC may be down for hours: a regular activity retries forever with
// backoff, each attempt visible in the history and the Temporal UI.
const pac = proxyActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  heartbeatTimeout: '5 seconds',
  retry: REINTENTO_PAC,
  summary: 'Timbrado con el PAC',
});

const pdf = proxyActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' },
});

/** Exactly once either way: enviarAlPac asks the PAC for a previous stamp before sending again. */
async function timbrar(e: EntradaTimbrado, conLocales: boolean) {
  if (!conLocales) return pac.enviarAlPac(e);
  try {
    return await pacRapido.enviarAlPac(e);
  } catch {
    return pac.enviarAlPac(e);
  }
}

/**
 * Seal, pre-validate and stamp exactly once: the stamping path of every CFDI, invoices and payment CFDIs
 * alike (the payment workflow runs it for its CFDI). A rejection is recorded on the invoice with its event.
 */
export async function timbrarConPasos(e: EntradaTimbrado): Promise<ResultadoTimbrado> {
  const conLocales = patched(PARCHE_LOCALES);
  const pasos = conLocales ? locales : remotas;
  const preparado = await pasos.prepararTimbrado(e);
  const paso = preparado.estado === 'listo' ? await timbrar(e, conLocales) : preparado;
  if (paso.estado === 'rechazado') {
    await pasos.registrarRechazo(e, paso.error);
    return 'fallido';
  }
  return 'timbrada';
}

/** Renders and stores the PDF of a stamped CFDI (after the API's wait has its answer). */
export const generarPdf = (e: EntradaTimbrado) => pdf.generarPdf(e);

/** One per invoice (workflow id `timbrado:<factura>`): seal, pre-validate, stamp exactly once, render the PDF. */
export async function timbrarFactura(e: EntradaTimbrado): Promise<ResultadoTimbrado> {
  // Set once, read by the update handler (which may run before it is set).
  const fin: { resultado?: ResultadoTimbrado } = {};
  setHandler(esperarTimbrado, async () => {
    await condition(() => fin.resultado !== undefined);
    return fin.resultado!;
  });

  const resultado = await timbrarConPasos(e);
  fin.resultado = resultado;
  upsertSearchAttributes([{ key: ATRIBUTOS.EstadoFactura, value: resultado }]);
  if (resultado === 'timbrada') await generarPdf(e);
  await condition(allHandlersFinished);
  return resultado;
}
