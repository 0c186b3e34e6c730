import { randomBytes } from 'node:crypto';
import type { Pagina } from '../../dominio/paginacion';
import { contrato, escenario, instante, nuevoWebhook, paginasEsperadas, recorrer } from './soporte';

contrato('webhooks', (impl) => {
  const ahora = instante('2025-06-01T12:00:00.000Z');

  it('reads a webhook with its subscriptions as an array and activo as a boolean, never its secrets', async () => {
    const { a } = await escenario(impl());
    const antes = Date.now();
    const id = await nuevoWebhook(impl(), a, ['factura.timbrada', 'pago.creado'], ahora);
    const w = await impl().repos.webhooks.obtener(a, id);
    expect(w).toEqual({
      id,
      modo: 'test',
      url: `https://hooks.ejemplo.mx/${id}`,
      eventos_suscritos: ['factura.timbrada', 'pago.creado'],
      activo: true,
      secreto_anterior_hasta: null,
      creado_en: expect.any(Date),
      actualizado_en: ahora,
    });
    // Created on the database's clock, as events are (a delivery goes to webhooks created before its event).
    expect(w!.creado_en.getTime()).toBeGreaterThanOrEqual(antes - 1000);
    expect(w!.creado_en.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('the sealed secrets come with conSecretos and bloquear', async () => {
    const { a } = await escenario(impl());
    const id = await nuevoWebhook(impl(), a);
    const s = await impl().repos.webhooks.conSecretos(a, id);
    expect(s).toMatchObject({ id, eliminado_en: null, secreto_anterior_cifrado: null, version_clave: 1 });
    expect(Buffer.isBuffer(s!.secreto_cifrado) && Buffer.isBuffer(s!.dek_cifrada)).toBe(true);
    const b = await impl().transacciones.ejecutar((tx) => impl().repos.webhooks.bloquear(tx, a, id));
    expect(b!.secreto_cifrado).toEqual(s!.secreto_cifrado);
    expect(b).not.toHaveProperty('eliminado_en');
  });

  it('counts and lists the live webhooks of the scope, newest first, page by page', async () => {
    const { a, live } = await escenario(impl());
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await nuevoWebhook(impl(), a));
    const eliminado = await nuevoWebhook(impl(), a);
    await impl().transacciones.ejecutar((tx) => impl().repos.webhooks.eliminar(tx, a, eliminado, ahora));
    await nuevoWebhook(impl(), live);
    expect(await impl().repos.webhooks.contar(a)).toBe(4);
    expect(await impl().repos.webhooks.contar(live)).toBe(1);
    const listar = (p: Pagina) => impl().repos.webhooks.listar(a, p);
    expect(await recorrer(listar, 3)).toEqual(paginasEsperadas(ids, 3));
    expect(await recorrer(listar, 4)).toEqual(paginasEsperadas(ids, 4));
  });

  it('updates the fields named, only while alive and in scope', async () => {
    const { a, live, otra } = await escenario(impl());
    const id = await nuevoWebhook(impl(), a, ['factura.timbrada']);
    const antes = await impl().repos.webhooks.conSecretos(a, id);
    for (const fuera of [live, otra]) {
      await impl().transacciones.ejecutar((tx) =>
        impl().repos.webhooks.actualizar(
          tx,
          fuera,
          id,
          { url: 'https://otro.ejemplo.mx/', activo: false },
          ahora,
        ),
      );
      await impl().transacciones.ejecutar((tx) => impl().repos.webhooks.eliminar(tx, fuera, id, ahora));
    }
    expect(await impl().repos.webhooks.conSecretos(a, id)).toEqual(antes);

    const nuevo = randomBytes(40);
    const hasta = instante('2025-06-02T12:00:00.000Z');
    await impl().transacciones.ejecutar((tx) =>
      impl().repos.webhooks.actualizar(
        tx,
        a,
        id,
        {
          eventos_suscritos: ['pago.creado'],
          activo: false,
          secreto_cifrado: nuevo,
          secreto_anterior_cifrado: antes!.secreto_cifrado,
          secreto_anterior_hasta: hasta,
          url: undefined,
        },
        ahora,
      ),
    );
    expect(await impl().repos.webhooks.conSecretos(a, id)).toEqual({
      ...antes,
      eventos_suscritos: ['pago.creado'],
      activo: false,
      secreto_cifrado: nuevo,
      secreto_anterior_cifrado: antes!.secreto_cifrado,
      secreto_anterior_hasta: hasta,
      actualizado_en: ahora,
    });
  });

  it('a deleted webhook is gone for the API but its row stays for the deliveries', async () => {
    const { a, otra } = await escenario(impl());
    const id = await nuevoWebhook(impl(), a);
    const despues = instante('2025-06-03T00:00:00.000Z');
    await impl().transacciones.ejecutar((tx) => impl().repos.webhooks.eliminar(tx, a, id, ahora));
    expect(await impl().repos.webhooks.obtener(a, id)).toBeUndefined();
    expect(
      await impl().transacciones.ejecutar((tx) => impl().repos.webhooks.bloquear(tx, a, id)),
    ).toBeUndefined();
    expect(await impl().repos.webhooks.contar(a)).toBe(0);
    expect(await impl().repos.webhooks.conSecretos(a, id)).toMatchObject({
      activo: false,
      eliminado_en: ahora,
      actualizado_en: ahora,
    });
    expect(await impl().repos.webhooks.conSecretos(otra, id)).toBeUndefined();
    // Deleting or changing it again does nothing.
    await impl().transacciones.ejecutar(async (tx) => {
      await impl().repos.webhooks.eliminar(tx, a, id, despues);
      await impl().repos.webhooks.actualizar(tx, a, id, { activo: true }, despues);
    });
    expect(await impl().repos.webhooks.conSecretos(a, id)).toMatchObject({
      activo: false,
      eliminado_en: ahora,
    });
  });

  it('another account or mode never sees the webhook', async () => {
    const { a, live, otra } = await escenario(impl());
    const id = await nuevoWebhook(impl(), a);
    for (const fuera of [live, otra]) {
      expect(await impl().repos.webhooks.obtener(fuera, id)).toBeUndefined();
      expect(await impl().repos.webhooks.conSecretos(fuera, id)).toBeUndefined();
      expect(
        await impl().transacciones.ejecutar((tx) => impl().repos.webhooks.bloquear(tx, fuera, id)),
      ).toBeUndefined();
      expect(await impl().repos.webhooks.contar(fuera)).toBe(0);
      expect((await impl().repos.webhooks.listar(fuera, { limite: 10 })).datos).toEqual([]);
    }
  });
});
