import { createHash, randomBytes } from 'node:crypto';
import { nuevoId } from '../../db/ids';
import { contrato, escenario, instante } from './soporte';

contrato('idempotencia', (impl) => {
  const ahora = instante('2025-06-01T12:00:00.000Z');
  const despues = instante('2025-06-01T12:00:01.000Z');
  const huella = () => createHash('sha256').update(randomBytes(16)).digest();
  const clave = () => `clave-${randomBytes(6).toString('hex')}`;

  it('the first claim of a key wins; the row reads en_curso with its fingerprint', async () => {
    const { a } = await escenario(impl());
    const k = clave();
    const h = huella();
    expect(await impl().repos.idempotencia.leer(a, k)).toBeUndefined();
    expect(await impl().repos.idempotencia.reclamar(a, k, h, ahora)).toBe(true);
    expect(await impl().repos.idempotencia.reclamar(a, k, huella(), despues)).toBe(false);
    expect(await impl().repos.idempotencia.leer(a, k)).toEqual({
      huella: h,
      estado: 'en_curso',
      status: null,
      cuerpo: null,
      recurso: null,
      creado_en: ahora,
      actualizado_en: ahora,
    });
  });

  it('a key is per account and mode', async () => {
    const { a, live, otra } = await escenario(impl());
    const k = clave();
    expect(await impl().repos.idempotencia.reclamar(a, k, huella(), ahora)).toBe(true);
    expect(await impl().repos.idempotencia.leer(live, k)).toBeUndefined();
    expect(await impl().repos.idempotencia.leer(otra, k)).toBeUndefined();
    expect(await impl().repos.idempotencia.reclamar(live, k, huella(), ahora)).toBe(true);
    const h = huella();
    expect(await impl().repos.idempotencia.reclamar(otra, k, h, ahora)).toBe(true);
    await impl().repos.idempotencia.completar(otra, k, h, 201, '{"de":"otra"}', despues);
    expect(await impl().repos.idempotencia.leer(a, k)).toMatchObject({ estado: 'en_curso', cuerpo: null });
  });

  it('keys that differ only in case are one key (the column collation)', async () => {
    const { a } = await escenario(impl());
    const k = clave();
    expect(await impl().repos.idempotencia.reclamar(a, k.toUpperCase(), huella(), ahora)).toBe(true);
    expect(await impl().repos.idempotencia.reclamar(a, k, huella(), ahora)).toBe(false);
    expect(await impl().repos.idempotencia.leer(a, k)).toMatchObject({ estado: 'en_curso' });
  });

  it('a completed key replays its answer, decrypted', async () => {
    const { a } = await escenario(impl());
    const k = clave();
    const h = huella();
    await impl().repos.idempotencia.reclamar(a, k, h, ahora);
    const cuerpo = JSON.stringify({ id: 'llave_1', secreto: 'sk_test_ñ✓' });
    await impl().repos.idempotencia.completar(a, k, h, 201, cuerpo, despues);
    expect(await impl().repos.idempotencia.leer(a, k)).toEqual({
      huella: h,
      estado: 'completada',
      status: 201,
      cuerpo,
      recurso: null,
      creado_en: ahora,
      actualizado_en: despues,
    });
  });

  it('a row is taken over only if it is still the one read', async () => {
    const { a } = await escenario(impl());
    const k = clave();
    await impl().repos.idempotencia.reclamar(a, k, huella(), ahora);
    const leida = (await impl().repos.idempotencia.leer(a, k))!;
    const h2 = huella();
    expect(await impl().repos.idempotencia.retomar(a, k, leida, h2, despues)).toBe(true);
    // A second taker with the same, now stale, read loses.
    expect(await impl().repos.idempotencia.retomar(a, k, leida, huella(), despues)).toBe(false);
    expect(await impl().repos.idempotencia.leer(a, k)).toMatchObject({
      huella: h2,
      estado: 'en_curso',
      creado_en: despues,
    });

    // A completed row taken over starts afresh.
    const h3 = huella();
    await impl().repos.idempotencia.completar(a, k, h2, 200, '{}', instante('2025-06-01T12:00:02.000Z'));
    const completada = (await impl().repos.idempotencia.leer(a, k))!;
    expect(
      await impl().repos.idempotencia.retomar(a, k, { ...completada, estado: 'en_curso' }, h3, despues),
    ).toBe(false);
    expect(
      await impl().repos.idempotencia.retomar(a, k, completada, h3, instante('2025-06-01T12:00:03.000Z')),
    ).toBe(true);
    expect(await impl().repos.idempotencia.leer(a, k)).toMatchObject({
      huella: h3,
      estado: 'en_curso',
      status: null,
      cuerpo: null,
      recurso: null,
    });
    expect(await impl().repos.idempotencia.retomar(a, nuevoId('k'), completada, h3, despues)).toBe(false);
  });

  it('the resource is noted in the creating transaction: kept on commit, gone on rollback, only while en_curso', async () => {
    const { a } = await escenario(impl());
    const k = clave();
    const h = huella();
    await impl().repos.idempotencia.reclamar(a, k, h, ahora);
    await expect(
      impl().transacciones.ejecutar(async (tx) => {
        await impl().repos.idempotencia.anotarRecurso(tx, a, k, 'fac_deshecha');
        throw new Error('deshecha');
      }),
    ).rejects.toThrow('deshecha');
    expect(await impl().repos.idempotencia.leer(a, k)).toMatchObject({ recurso: null });
    await impl().transacciones.ejecutar((tx) => impl().repos.idempotencia.anotarRecurso(tx, a, k, 'fac_1'));
    expect(await impl().repos.idempotencia.leer(a, k)).toMatchObject({
      recurso: 'fac_1',
      estado: 'en_curso',
    });

    const k2 = clave();
    await impl().repos.idempotencia.reclamar(a, k2, h, ahora);
    await impl().repos.idempotencia.completar(a, k2, h, 201, '{}', despues);
    await impl().transacciones.ejecutar((tx) => impl().repos.idempotencia.anotarRecurso(tx, a, k2, 'fac_2'));
    expect(await impl().repos.idempotencia.leer(a, k2)).toMatchObject({ recurso: null });
  });

  it('releasing frees a running key that created nothing, and only that', async () => {
    const { a } = await escenario(impl());
    const [libre, conRecurso, completada] = [clave(), clave(), clave()];
    const h = huella();
    for (const k of [libre, conRecurso, completada]) await impl().repos.idempotencia.reclamar(a, k, h, ahora);
    await impl().transacciones.ejecutar((tx) =>
      impl().repos.idempotencia.anotarRecurso(tx, a, conRecurso, 'fac_1'),
    );
    await impl().repos.idempotencia.completar(a, completada, h, 200, '{}', despues);
    for (const k of [libre, conRecurso, completada]) await impl().repos.idempotencia.liberar(a, k);
    expect(await impl().repos.idempotencia.leer(a, libre)).toBeUndefined();
    expect(await impl().repos.idempotencia.reclamar(a, libre, huella(), despues)).toBe(true);
    expect(await impl().repos.idempotencia.leer(a, conRecurso)).toMatchObject({ recurso: 'fac_1' });
    expect(await impl().repos.idempotencia.leer(a, completada)).toMatchObject({ estado: 'completada' });
  });

  it('purges the keys created before the limit, across accounts', async () => {
    const { a, otra } = await escenario(impl());
    // Instants no other test uses: the count is this test's alone.
    const viejo = instante('2001-02-03T04:05:06.007Z');
    const limite = instante('2001-02-03T04:05:06.009Z');
    const [k1, k2, k3] = [clave(), clave(), clave()];
    await impl().repos.idempotencia.reclamar(a, k1, huella(), viejo);
    await impl().repos.idempotencia.reclamar(otra, k2, huella(), viejo);
    await impl().repos.idempotencia.reclamar(a, k3, huella(), limite);
    expect(await impl().repos.idempotencia.purgarAnterioresA(limite)).toBe(2);
    expect(await impl().repos.idempotencia.leer(a, k1)).toBeUndefined();
    expect(await impl().repos.idempotencia.leer(otra, k2)).toBeUndefined();
    expect(await impl().repos.idempotencia.leer(a, k3)).toMatchObject({ creado_en: limite });
  });
});
