import { WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { esperarAcotado, sinRespuesta } from '../../temporal/espera';

describe('esperarAcotado', () => {
  it('termina con la respuesta del update, o al vencer el plazo', async () => {
    await expect(esperarAcotado(Promise.resolve('timbrada'), 10_000)).resolves.toBeUndefined();
    const t0 = Date.now();
    await esperarAcotado(new Promise(() => undefined), 50);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
  });

  it('un update que el servidor no pudo entregar cuenta como sin respuesta: el llamador lee MySQL', async () => {
    // What the server answers when the workflow task that carried the update failed (a killed worker).
    const precondicion = Object.assign(new Error('Unable to perform workflow execution update'), { code: 9 });
    const perdidos = [
      precondicion,
      new WorkflowUpdateRPCTimeoutOrCancelledError('cancelado', { cause: new Error('x') }),
      new WorkflowUpdateFailedError('falló', undefined),
    ];
    for (const e of perdidos) {
      expect(sinRespuesta(e)).toBe(true);
      await expect(esperarAcotado(Promise.reject(e), 10_000)).resolves.toBeUndefined();
    }
  });

  it('cualquier otro error (Temporal caído, un inicio rechazado) sube tal cual', async () => {
    const caido = Object.assign(new Error('14 UNAVAILABLE'), { code: 14 });
    expect(sinRespuesta(caido)).toBe(false);
    await expect(esperarAcotado(Promise.reject(caido), 10_000)).rejects.toBe(caido);
  });
});
