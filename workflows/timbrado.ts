import {
  allHandlersFinished,
  condition,
  defineUpdate,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Actividades } from '../activities';
import type { EntradaTimbrado } from '../activities/timbrado';
import { ATRIBUTOS } from '../temporal/atributos';

export type ResultadoTimbrado = 'timbrada' | 'fallido';

/** The API's bounded wait: answers as soon as the invoice is stamped or rejected (before the PDF). */
export const esperarTimbrado = defineUpdate<ResultadoTimbrado>('esperarTimbrado');

const locales = proxyActivities<Actividades>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

// The PAC may be down for hours: retry forever with backoff; every attempt is visible in the history.
const pac = proxyActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  heartbeatTimeout: '5 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    // Wrong or missing PAC settings do not heal by retrying: the workflow fails visibly instead.
    nonRetryableErrorTypes: ['ErrorPacConfiguracion', 'ErrorPacNoConfigurado'],
  },
  summary: 'Timbrado con el PAC',
});

const pdf = proxyActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' },
});

/** One per invoice (workflow id `timbrado:<factura>`): seal, pre-validate, stamp exactly once, render the PDF. */
export async function timbrarFactura(e: EntradaTimbrado): Promise<ResultadoTimbrado> {
  let resultado: ResultadoTimbrado | undefined;
  setHandler(esperarTimbrado, async () => {
    await condition(() => resultado !== undefined);
    return resultado!;
  });

  const preparado = await locales.prepararTimbrado(e);
  const paso = preparado.estado === 'listo' ? await pac.enviarAlPac(e) : preparado;
  if (paso.estado === 'rechazado') {
    await locales.registrarRechazo(e, paso.error);
    resultado = 'fallido';
  } else {
    resultado = 'timbrada';
  }
  upsertSearchAttributes([{ key: ATRIBUTOS.EstadoFactura, value: resultado }]);
  if (resultado === 'timbrada') await pdf.generarPdf(e);
  await condition(allHandlersFinished);
  return resultado;
}
