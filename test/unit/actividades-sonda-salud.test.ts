import { crearActividadesSonda } from '../../activities/sonda-salud';
import { Almacen, navegadorEnMemoria } from '../support/memoria';
import { crearSondasEnMemoria } from '../support/memoria/sondas';

const sondas = () => crearSondasEnMemoria(new Almacen());

describe('registrarSonda', () => {
  it('escribe la identidad del worker y la versión de Chromium', async () => {
    const repo = sondas();
    const { registrarSonda } = crearActividadesSonda({
      sondas: repo,
      navegador: navegadorEnMemoria({ version: 'HeadlessChrome/142.0' }),
      identidadWorker: 'worker-1',
    });
    await registrarSonda('sonda_1');
    expect(await repo.obtener('sonda_1')).toEqual({
      id: 'sonda_1',
      worker: 'worker-1',
      chromium: 'HeadlessChrome/142.0',
      chromium_error: null,
    });
  });

  it('un Chromium caído no impide la sonda: queda su error, acotado a 500 caracteres', async () => {
    const repo = sondas();
    const { registrarSonda } = crearActividadesSonda({
      sondas: repo,
      navegador: navegadorEnMemoria({ error: new Error(`no arranca: ${'x'.repeat(1000)}`) }),
      identidadWorker: 'worker-1',
    });
    await registrarSonda('sonda_2');
    const fila = await repo.obtener('sonda_2');
    expect(fila?.chromium).toBeNull();
    expect(fila?.chromium_error).toMatch(/^no arranca: x+$/);
    expect(fila?.chromium_error).toHaveLength(500);
  });

  it('un reintento sobrescribe la misma fila', async () => {
    const repo = sondas();
    const crear = (version: string) =>
      crearActividadesSonda({
        sondas: repo,
        navegador: navegadorEnMemoria({ version }),
        identidadWorker: 'w',
      });
    await crear('v1').registrarSonda('sonda_3');
    await crear('v2').registrarSonda('sonda_3');
    expect((await repo.obtener('sonda_3'))?.chromium).toBe('v2');
  });
});

describe('registrarSondaWorker', () => {
  it('el worker principal registra su parte sin tocar Chromium (es del worker de PDF)', async () => {
    const s = sondas();
    let versiones = 0;
    const { registrarSondaWorker } = crearActividadesSonda({
      sondas: s,
      navegador: { version: async () => `v${++versiones}` },
      identidadWorker: '1@principal',
    });
    await registrarSondaWorker('sonda_9');
    expect(await s.obtener('sonda_9')).toEqual({
      id: 'sonda_9',
      worker: '1@principal',
      chromium: null,
      chromium_error: null,
    });
    expect(versiones).toBe(0);
  });
});
