import type { Knex } from 'knex';
import { anotarEvento, crearTransacciones } from '../../db/transacciones';

const interbloqueo = () =>
  Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), {
    code: 'ER_LOCK_DEADLOCK',
  });

/** knex's `transaction` as the unit of work sees it: each call a new transaction; `fallos` the first ones fail. */
function baseQueFalla(fallos: Error[]) {
  let llamadas = 0;
  const db = {
    async transaction(trabajo: (trx: object) => Promise<unknown>) {
      llamadas++;
      const trx = {};
      const r = await trabajo(trx);
      const fallo = fallos.shift();
      if (fallo) throw fallo; // rolled back at commit time, as InnoDB's victim is
      return r;
    },
  } as unknown as Knex;
  return { db, llamadas: () => llamadas };
}

describe('transacciones', () => {
  it('un interbloqueo repite la unidad de trabajo entera; solo los eventos del intento confirmado se despachan', async () => {
    const b = baseQueFalla([interbloqueo()]);
    const despachados: string[][] = [];
    let n = 0;
    const t = crearTransacciones(b.db, { alConfirmarEventos: (ids) => despachados.push(ids) });
    const r = await t.ejecutar(async (tx) => {
      anotarEvento(tx, `evt_${++n}`);
      return 'hecho';
    });
    expect(r).toBe('hecho');
    expect(b.llamadas()).toBe(2);
    expect(despachados).toEqual([['evt_2']]);
  });

  it('otro error no se repite, y un interbloqueo que persiste se rinde al tercer intento', async () => {
    const otro = Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY' });
    const b1 = baseQueFalla([otro]);
    await expect(crearTransacciones(b1.db).ejecutar(async () => 1)).rejects.toBe(otro);
    expect(b1.llamadas()).toBe(1);
    const b2 = baseQueFalla([interbloqueo(), interbloqueo(), interbloqueo(), interbloqueo()]);
    await expect(crearTransacciones(b2.db).ejecutar(async () => 1)).rejects.toMatchObject({
      code: 'ER_LOCK_DEADLOCK',
    });
    expect(b2.llamadas()).toBe(3);
  });
});
