import { nuevoId } from '../../db/ids';
import { contrato } from './soporte';

contrato('sondas', (impl) => {
  it('a probe is read back as written', async () => {
    const id = nuevoId('sonda');
    expect(await impl().repos.sondas.obtener(id)).toBeUndefined();
    await impl().repos.sondas.registrar({ id, worker: 'w1', chromium: '131.0', chromium_error: null });
    expect(await impl().repos.sondas.obtener(id)).toEqual({
      id,
      worker: 'w1',
      chromium: '131.0',
      chromium_error: null,
    });
  });

  it('registering the same probe again overwrites it (a retried activity)', async () => {
    const id = nuevoId('sonda');
    await impl().repos.sondas.registrar({ id, worker: 'w1', chromium: '131.0', chromium_error: null });
    await impl().repos.sondas.registrar({ id, worker: 'w2', chromium: null, chromium_error: 'sin chromium' });
    expect(await impl().repos.sondas.obtener(id)).toEqual({
      id,
      worker: 'w2',
      chromium: null,
      chromium_error: 'sin chromium',
    });
  });

  it('the server version names MariaDB', async () => {
    expect(await impl().repos.sondas.versionServidor()).toMatch(/^\d+\.\d+\.\d+-MariaDB/);
  });
});
