import type { RetryPolicy } from '@temporalio/common';

/**
 * Retries of a PAC call: backoff up to 5 minutes, without end, since the PAC may be down for hours. Wrong or
 * missing PAC settings do not heal by retrying: those errors fail the workflow visibly instead.
 */
export const REINTENTO_PAC: RetryPolicy = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '5 minutes',
  nonRetryableErrorTypes: ['ErrorPacConfiguracion', 'ErrorPacNoConfigurado'],
};
