import type { RetryPolicy } from '@temporalio/common';

/**
 * Retries of a PAC call: backoff up to 30 seconds, without end, since the PAC may be down for hours; the cap
 * keeps the first attempt after its recovery within 30 s (an operator's retry-now cuts even that). Wrong or
 * missing PAC settings do not heal by retrying: those errors fail the workflow visibly instead.
 */
export const REINTENTO_PAC: RetryPolicy = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  nonRetryableErrorTypes: ['ErrorPacConfiguracion', 'ErrorPacNoConfigurado'],
};
