import type { WebhookNuevo } from '../../servicios/webhooks';
import { randomBytes } from 'node:crypto';
import { MAXIMO_WEBHOOKS } from '../../dominio/webhook';
import type { Pagina } from '../../dominio/paginacion';
import { crearBoveda } from '../../seguridad/boveda';
import { crearServicioWebhooks } from '../../servicios/webhooks';
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

/**
 * The webhook service over each implementation: its limit and its rotations hold under real concurrency, which
 * only MariaDB's row locks (and the fake's one-at-a-time transactions) can show.
 */
contrato('webhooks: the service under concurrency', (impl) => {
  const boveda = crearBoveda({ clave: randomBytes(32), version: 1 });
  const servicio = () =>
    crearServicioWebhooks({
      webhooks: impl().repos.webhooks,
      entregas: impl().repos.entregas,
      eventos: impl().repos.eventos,
      transacciones: impl().transacciones,
      boveda,
      iniciador: {
        iniciar: async () => undefined,
        detener: async () => undefined,
        adelantar: async () => 'sin_flujo' as const,
      },
      localesEnTest: false,
      resolver: async () => ['203.0.114.10'],
    });

  it(`concurrent registrations never store more than ${MAXIMO_WEBHOOKS} per account and mode`, async () => {
    const { a, live } = await escenario(impl());
    for (let i = 0; i < MAXIMO_WEBHOOKS - 3; i++) await nuevoWebhook(impl(), a);
    await nuevoWebhook(impl(), live);
    const nuevo: WebhookNuevo = {
      url: 'https://hooks.ejemplo.mx/cfdi',
      eventos_suscritos: ['factura.timbrada'],
    };
    const r = await Promise.allSettled(Array.from({ length: 8 }, () => servicio().crear(a, nuevo)));
    expect(r.filter((x) => x.status === 'fulfilled')).toHaveLength(3);
    for (const x of r) {
      if (x.status === 'rejected') expect(x.reason).toMatchObject({ codigo: 'limite_de_webhooks' });
    }
    expect(await impl().repos.webhooks.contar(a)).toBe(MAXIMO_WEBHOOKS);
    expect(await impl().repos.webhooks.contar(live)).toBe(1);
  });

  it('concurrent rotations run one after another: both secrets answered sign', async () => {
    const { a } = await escenario(impl());
    const w = await servicio().crear(a, {
      url: 'https://hooks.ejemplo.mx/cfdi',
      eventos_suscritos: ['factura.timbrada'],
    });
    // Connections ready in the pool, so the two rotations do overlap (a new connection takes longer than one).
    await Promise.all(
      Array.from({ length: 4 }, () =>
        impl().transacciones.ejecutar((tx) => impl().repos.webhooks.obtener(a, w.id, tx)),
      ),
    );
    const respuestas = await Promise.all([
      servicio().rotarSecreto(a, w.id),
      servicio().rotarSecreto(a, w.id),
    ]);
    const f = (await impl().repos.webhooks.conSecretos(a, w.id))!;
    const abiertos = boveda.abrir(
      { cuentaId: a.cuentaId, modo: a.modo, registroId: w.id },
      f.dek_cifrada,
      { secreto: f.secreto_cifrado, secreto_anterior: f.secreto_anterior_cifrado! },
      f.version_clave,
    );
    // The second rotation kept the first one's secret as the previous one, not the secret both would have read.
    const firman = [abiertos.secreto!, abiertos.secreto_anterior!].map((b) => b.toString('utf8'));
    expect(firman.sort()).toEqual(respuestas.map((r) => r.secreto_firma).sort());
    expect(f.secreto_anterior_hasta).not.toBeNull();
  });
});
