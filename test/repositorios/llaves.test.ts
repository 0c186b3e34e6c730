import { createHash, randomBytes } from 'node:crypto';
import { nuevoId } from '../../db/ids';
import type { Modo } from '../../dominio/alcance';
import { contrato, instante, paginasEsperadas, recorrer, refusal, type Implementacion } from './soporte';

contrato('llaves', (impl) => {
  const creado = instante('2025-03-04T05:06:07.089Z');
  const ahora = instante('2025-06-01T12:00:00.000Z');

  async function nuevaLlave(i: Implementacion, cuentaId: string, modo: Modo = 'test') {
    const id = nuevoId('llave');
    const hash = createHash('sha256').update(randomBytes(32)).digest();
    const prefijo = `sk_${modo}_${id.slice(-6)}`;
    await i.repos.llaves.insertar({
      id,
      cuenta_id: cuentaId,
      modo,
      nombre: `llave ${modo}`,
      prefijo,
      hash,
      creado_en: creado,
    });
    return { id, hash, prefijo };
  }

  it('reads a key by id within the modes allowed, never with its hash', async () => {
    const cuenta = await impl().nuevaCuenta();
    const { id, prefijo } = await nuevaLlave(impl(), cuenta, 'live');
    const esperada = {
      id,
      cuenta_id: cuenta,
      modo: 'live',
      nombre: 'llave live',
      prefijo,
      creado_en: creado,
      revocada_en: null,
      ultimo_uso_en: null,
    };
    expect(await impl().repos.llaves.obtener(cuenta, id, ['test', 'live'])).toEqual(esperada);
    expect(await impl().repos.llaves.obtener(cuenta, id, ['test'])).toBeUndefined();
    expect(
      await impl().repos.llaves.obtener(await impl().nuevaCuenta(), id, ['test', 'live']),
    ).toBeUndefined();
  });

  it('finds an active key by its hash; a revoked one is not found', async () => {
    const cuenta = await impl().nuevaCuenta();
    const { id, hash } = await nuevaLlave(impl(), cuenta);
    expect(await impl().repos.llaves.activaPorHash(hash)).toMatchObject({
      id,
      cuenta_id: cuenta,
      modo: 'test',
    });
    expect(await impl().repos.llaves.activaPorHash(randomBytes(32))).toBeUndefined();
    await impl().repos.llaves.revocar(cuenta, id, ['test'], ahora);
    expect(await impl().repos.llaves.activaPorHash(hash)).toBeUndefined();
  });

  it('lists the keys of the account in the modes allowed, newest first, page by page', async () => {
    const cuenta = await impl().nuevaCuenta();
    const test = [];
    for (let i = 0; i < 5; i++) test.push((await nuevaLlave(impl(), cuenta)).id);
    const live = (await nuevaLlave(impl(), cuenta, 'live')).id;
    await nuevaLlave(impl(), await impl().nuevaCuenta());
    const listar = (modos: Modo[]) => (p: Parameters<Implementacion['repos']['llaves']['listar']>[2]) =>
      impl().repos.llaves.listar(cuenta, modos, p);
    expect(await recorrer(listar(['test']), 2)).toEqual(paginasEsperadas(test, 2));
    expect(await recorrer(listar(['test', 'live']), 3)).toEqual(paginasEsperadas([...test, live], 3));
    expect(await recorrer(listar(['live']), 10)).toEqual([[live]]);
    const t = await impl().repos.llaves.listar(cuenta, ['test'], { limite: 1 });
    expect(t.datos[0]).not.toHaveProperty('hash');
  });

  it('revokes only within the account and modes, and keeps the first revocation', async () => {
    const cuenta = await impl().nuevaCuenta();
    const { id } = await nuevaLlave(impl(), cuenta, 'live');
    await impl().repos.llaves.revocar(await impl().nuevaCuenta(), id, ['test', 'live'], ahora);
    await impl().repos.llaves.revocar(cuenta, id, ['test'], ahora);
    expect(await impl().repos.llaves.obtener(cuenta, id, ['live'])).toMatchObject({ revocada_en: null });
    await impl().repos.llaves.revocar(cuenta, id, ['live'], ahora);
    await impl().repos.llaves.revocar(cuenta, id, ['live'], instante('2025-07-01T00:00:00.000Z'));
    expect(await impl().repos.llaves.obtener(cuenta, id, ['live'])).toMatchObject({ revocada_en: ahora });
  });

  it('notes the last use', async () => {
    const cuenta = await impl().nuevaCuenta();
    const { id } = await nuevaLlave(impl(), cuenta);
    await impl().repos.llaves.marcarUso(id, ahora);
    expect(await impl().repos.llaves.obtener(cuenta, id, ['test'])).toMatchObject({ ultimo_uso_en: ahora });
  });

  it('a repeated hash is a duplicate-key error (not translated)', async () => {
    const cuenta = await impl().nuevaCuenta();
    const { hash } = await nuevaLlave(impl(), cuenta);
    const otra = {
      id: nuevoId('llave'),
      cuenta_id: cuenta,
      modo: 'test' as const,
      nombre: 'otra',
      prefijo: 'sk_test_x',
      hash,
      creado_en: creado,
    };
    expect(await refusal(impl().repos.llaves.insertar(otra))).toBe('ER_DUP_ENTRY');
    expect(await impl().repos.llaves.obtener(cuenta, otra.id, ['test'])).toBeUndefined();
  });
});
