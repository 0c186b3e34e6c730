import type { Pagina } from '../../dominio/paginacion';
import {
  contrato,
  escenario,
  instante,
  nuevaOrganizacion,
  nuevoCertificado,
  nuevoEvento,
  paginasEsperadas,
  propios,
  recorrer,
  refusal,
} from './soporte';

contrato('certificados', (impl) => {
  const ahora = instante('2025-06-01T12:00:00.000Z');
  const SECRETOS = ['cer', 'llave_cifrada', 'contrasena_cifrada', 'dek_cifrada', 'version_clave'];
  const activoDe = async (a: Parameters<typeof nuevaOrganizacion>[1], org: string) =>
    (await impl().repos.certificados.activo(a, org))?.id;

  it('reads the metadata only, never the secrets or the account', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const desde = instante('2023-05-18T11:43:51.000Z');
    const hasta = instante('2027-05-18T11:43:51.000Z');
    const id = await nuevoCertificado(impl(), a, org, {
      no_certificado: '30001000000500003416',
      valido_desde: desde,
      valido_hasta: hasta,
    });
    const fila = await impl().repos.certificados.obtener(a, id);
    expect({ ...fila, de_prueba: Boolean(fila!.de_prueba), activo: Boolean(fila!.activo) }).toEqual({
      id,
      modo: 'test',
      organizacion_id: org,
      no_certificado: '30001000000500003416',
      rfc: 'EKU9003173C9',
      nombre_titular: 'ESCUELA KEMPER URGATE',
      valido_desde: desde,
      valido_hasta: hasta,
      de_prueba: true,
      activo: true,
      creado_en: expect.any(Date),
      actualizado_en: expect.any(Date),
    });
    for (const s of [...SECRETOS, 'cuenta_id']) expect(fila).not.toHaveProperty(s);
    const [listada] = (await impl().repos.certificados.listar(a, {}, { limite: 1 })).datos;
    for (const s of [...SECRETOS, 'cuenta_id']) expect(listada).not.toHaveProperty(s);
  });

  it('the signing material of the active certificate comes with its sealed secrets', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevoCertificado(impl(), a, org);
    const f = await impl().repos.certificados.activoConSecretos(a, org);
    expect(f).toMatchObject({ id, version_clave: 1 });
    for (const s of SECRETOS.slice(0, 4)) expect(Buffer.isBuffer((f as never)[s])).toBe(true);
    expect(f).not.toHaveProperty('cuenta_id');
  });

  it('one active certificate per organization: inserting or activating one deactivates the others', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const otraOrg = await nuevaOrganizacion(impl(), a);
    const c1 = await nuevoCertificado(impl(), a, org);
    const ajeno = await nuevoCertificado(impl(), a, otraOrg);
    const c2 = await nuevoCertificado(impl(), a, org);
    expect(await activoDe(a, org)).toBe(c2);
    expect(Boolean((await impl().repos.certificados.obtener(a, c1))!.activo)).toBe(false);
    expect(await activoDe(a, otraOrg)).toBe(ajeno);

    await impl().repos.certificados.cambiarActivo(
      a,
      (await impl().repos.certificados.obtener(a, c1))!,
      true,
      ahora,
    );
    expect(await activoDe(a, org)).toBe(c1);
    expect(Boolean((await impl().repos.certificados.obtener(a, c2))!.activo)).toBe(false);
    expect(await impl().repos.certificados.obtener(a, c1)).toMatchObject({ actualizado_en: ahora });

    await impl().repos.certificados.cambiarActivo(
      a,
      (await impl().repos.certificados.obtener(a, c1))!,
      false,
      ahora,
    );
    expect(await activoDe(a, org)).toBeUndefined();
    expect(await impl().repos.certificados.activoConSecretos(a, org)).toBeUndefined();
    expect(await activoDe(a, otraOrg)).toBe(ajeno);
  });

  it('the same certificate twice in one organization is RegistroDuplicado and leaves the active one', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const otraOrg = await nuevaOrganizacion(impl(), a);
    const c1 = await nuevoCertificado(impl(), a, org, { no_certificado: '30001000000500003416' });
    expect(await refusal(nuevoCertificado(impl(), a, org, { no_certificado: '30001000000500003416' }))).toBe(
      'RegistroDuplicado',
    );
    expect(await activoDe(a, org)).toBe(c1);
    expect(
      (await impl().repos.certificados.listar(a, { organizacionId: org }, { limite: 10 })).datos,
    ).toHaveLength(1);
    expect(
      await refusal(nuevoCertificado(impl(), a, otraOrg, { no_certificado: '30001000000500003416' })),
    ).toBe('aceptado');
  });

  it('another account or mode never sees or changes the certificate', async () => {
    const { a, live, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevoCertificado(impl(), a, org);
    const fila = (await impl().repos.certificados.obtener(a, id))!;
    for (const fuera of [live, otra]) {
      expect(await impl().repos.certificados.obtener(fuera, id)).toBeUndefined();
      expect(await impl().repos.certificados.activo(fuera, org)).toBeUndefined();
      expect(await impl().repos.certificados.activoConSecretos(fuera, org)).toBeUndefined();
      expect((await impl().repos.certificados.listar(fuera, {}, { limite: 10 })).datos).toEqual([]);
      await impl().repos.certificados.cambiarActivo(fuera, fila, false, ahora);
    }
    expect(await activoDe(a, org)).toBe(id);
    // Nor activates it.
    await impl().repos.certificados.cambiarActivo(a, fila, false, ahora);
    for (const fuera of [live, otra]) await impl().repos.certificados.cambiarActivo(fuera, fila, true, ahora);
    expect(await activoDe(a, org)).toBeUndefined();
  });

  it('lists newest first, page by page, filtered by organization', async () => {
    const { a } = await escenario(impl());
    const org1 = await nuevaOrganizacion(impl(), a);
    const org2 = await nuevaOrganizacion(impl(), a);
    const de1 = [];
    for (let i = 0; i < 4; i++) de1.push(await nuevoCertificado(impl(), a, org1));
    const de2 = [await nuevoCertificado(impl(), a, org2)];
    const listar = (organizacionId?: string) => (p: Pagina) =>
      impl().repos.certificados.listar(a, { organizacionId }, p);
    expect(await recorrer(listar(), 2)).toEqual(paginasEsperadas([...de1, ...de2], 2));
    expect(await recorrer(listar(org1), 3)).toEqual(paginasEsperadas(de1, 3));
    expect(await recorrer(listar(org2), 3)).toEqual([de2]);
  });

  describe('expiry notices', () => {
    const limite = instante('2025-07-01T12:00:00.000Z');

    it('finds, across accounts, the active certificates due each notice, soonest expiry first', async () => {
      const { a, otra } = await escenario(impl());
      const org = await nuevaOrganizacion(impl(), a);
      const orgOtra = await nuevaOrganizacion(impl(), otra);
      const hasta = (iso: string) => ({ valido_hasta: instante(iso) });
      // Each in its own organization: they all stay active.
      const porVencerTarde = await nuevoCertificado(
        impl(),
        a,
        await nuevaOrganizacion(impl(), a),
        hasta('2025-06-30T00:00:00.000Z'),
      );
      const porVencerPronto = await nuevoCertificado(
        impl(),
        otra,
        orgOtra,
        hasta('2025-06-02T00:00:00.000Z'),
      );
      const enElLimite = await nuevoCertificado(
        impl(),
        a,
        await nuevaOrganizacion(impl(), a),
        hasta('2025-07-01T12:00:00.000Z'),
      );
      const lejos = await nuevoCertificado(
        impl(),
        a,
        await nuevaOrganizacion(impl(), a),
        hasta('2025-07-01T12:00:00.001Z'),
      );
      const vencidoAhora = await nuevoCertificado(impl(), a, org, hasta('2025-06-01T12:00:00.000Z'));
      const vencidoAntes = await nuevoCertificado(
        impl(),
        a,
        await nuevaOrganizacion(impl(), a),
        hasta('2025-01-01T00:00:00.000Z'),
      );
      const inactivo = await nuevoCertificado(
        impl(),
        a,
        await nuevaOrganizacion(impl(), a),
        hasta('2025-06-10T00:00:00.000Z'),
      );
      const fila = (await impl().repos.certificados.obtener(a, inactivo))!;
      await impl().repos.certificados.cambiarActivo(a, fila, false, ahora);
      const todos = [
        porVencerTarde,
        porVencerPronto,
        enElLimite,
        lejos,
        vencidoAhora,
        vencidoAntes,
        inactivo,
      ];

      const porVencer = propios(
        await impl().repos.certificados.sinAviso('certificado.por_vencer', ahora, limite, 10_000),
        todos,
      );
      expect(porVencer.map((c) => c.id)).toEqual([porVencerPronto, porVencerTarde, enElLimite]);
      expect(porVencer[0]).toMatchObject({ cuenta_id: otra.cuentaId, organizacion_id: orgOtra });
      expect(porVencer[1]).toMatchObject({ cuenta_id: a.cuentaId });
      for (const s of SECRETOS) expect(porVencer[0]).not.toHaveProperty(s);

      const vencidos = propios(
        await impl().repos.certificados.sinAviso('certificado.vencido', ahora, limite, 10_000),
        todos,
      );
      expect(vencidos.map((c) => c.id)).toEqual([vencidoAntes, vencidoAhora]);
    });

    it('a notice given is not due again; a second one for the same certificate and type is RegistroDuplicado', async () => {
      const { a } = await escenario(impl());
      const org = await nuevaOrganizacion(impl(), a);
      const id = await nuevoCertificado(impl(), a, org, {
        valido_hasta: instante('2025-06-15T00:00:00.000Z'),
      });
      const evento = await nuevoEvento(impl(), a, 'certificado.por_vencer', { id });
      const due = async () =>
        propios(await impl().repos.certificados.sinAviso('certificado.por_vencer', ahora, limite, 10_000), [
          id,
        ]);
      expect(await due()).toHaveLength(1);
      await impl().transacciones.ejecutar((tx) =>
        impl().repos.certificados.registrarAviso(tx, id, 'certificado.por_vencer', evento),
      );
      expect(await due()).toEqual([]);
      expect(
        await refusal(
          impl().transacciones.ejecutar((tx) =>
            impl().repos.certificados.registrarAviso(tx, id, 'certificado.por_vencer', evento),
          ),
        ),
      ).toBe('RegistroDuplicado');
      // The other type is a separate notice.
      expect(
        await refusal(
          impl().transacciones.ejecutar((tx) =>
            impl().repos.certificados.registrarAviso(tx, id, 'certificado.vencido', evento),
          ),
        ),
      ).toBe('aceptado');
    });

    it('a notice registered in a transaction that rolls back is still due', async () => {
      const { a } = await escenario(impl());
      const org = await nuevaOrganizacion(impl(), a);
      const id = await nuevoCertificado(impl(), a, org, {
        valido_hasta: instante('2025-06-15T00:00:00.000Z'),
      });
      const evento = await nuevoEvento(impl(), a, 'certificado.por_vencer', { id });
      await expect(
        impl().transacciones.ejecutar(async (tx) => {
          await impl().repos.certificados.registrarAviso(tx, id, 'certificado.por_vencer', evento);
          throw new Error('después del aviso');
        }),
      ).rejects.toThrow('después del aviso');
      const due = propios(
        await impl().repos.certificados.sinAviso('certificado.por_vencer', ahora, limite, 10_000),
        [id],
      );
      expect(due).toHaveLength(1);
    });
  });
});
