import type { TipoEvento } from '../../db/repositorios/eventos';
import type { Alcance } from '../../dominio/alcance';
import { alcance } from '../support/memoria';
import { crearServiciosEnMemoria, errorNegocio, type ServiciosEnMemoria } from '../support/memoria/servicios';

const a = alcance();
let s: ServiciosEnMemoria;

beforeEach(() => {
  s = crearServiciosEnMemoria();
});

const registrar = (alc: Alcance, tipo: TipoEvento, datos: object) =>
  s.m.transacciones.ejecutar((tx) => s.m.eventos.registrar(tx, alc, tipo, datos));

describe('eventos', () => {
  it('se obtiene con sus datos; de otra cuenta o modo, o inexistente → evento_no_encontrado', async () => {
    const id = await registrar(a, 'factura.creada', { id: 'fac_1', total: '10.00' });
    expect(await s.eventos.obtener(a, id)).toMatchObject({
      id,
      objeto: 'evento',
      modo: 'test',
      tipo: 'factura.creada',
      datos: { id: 'fac_1', total: '10.00' },
    });
    for (const [alc, buscado] of [
      [alcance('cta_b'), id],
      [alcance('cta_a', 'live'), id],
      [a, 'evt_inexistente'],
    ] as const) {
      const e = await errorNegocio(s.eventos.obtener(alc, buscado));
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['no_encontrado', 'evento_no_encontrado', 'id']);
    }
  });

  it('lista por tipo, de la más nueva a la más vieja, por páginas', async () => {
    const ids = [];
    for (const tipo of ['factura.creada', 'factura.timbrada', 'factura.creada', 'factura.cancelada'] as const)
      ids.push(await registrar(a, tipo, { tipo }));
    await registrar(alcance('cta_b'), 'factura.creada', {});
    const creadas = [ids[0], ids[2]].sort().reverse();
    const p1 = await s.eventos.listar(a, { tipo: 'factura.creada' }, { limite: 1 });
    const p2 = await s.eventos.listar(
      a,
      { tipo: 'factura.creada' },
      { limite: 1, despuesDe: p1.datos[0]!.id },
    );
    expect([p1.hayMas, p2.hayMas]).toEqual([true, false]);
    expect([...p1.datos, ...p2.datos].map((e) => e.id)).toEqual(creadas);
    expect((await s.eventos.listar(a, {}, { limite: 10 })).datos).toHaveLength(4);
  });

  it('un evento escrito en una transacción que falla no queda', async () => {
    await expect(
      s.m.transacciones.ejecutar(async (tx) => {
        await s.m.eventos.registrar(tx, a, 'factura.creada', {});
        throw new Error('la transición falló');
      }),
    ).rejects.toThrow('la transición falló');
    expect((await s.eventos.listar(a, {}, { limite: 10 })).datos).toEqual([]);
  });
});
