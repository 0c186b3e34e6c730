import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

/** bench:timbrado's floor: Update-With-Start on a workflow that does no work at all. */
export const listo = defineUpdate<string>('listo');

export async function flujoVacio(): Promise<void> {
  let respondido = false;
  setHandler(listo, () => {
    respondido = true;
    return 'ok';
  });
  await condition(() => respondido);
}
