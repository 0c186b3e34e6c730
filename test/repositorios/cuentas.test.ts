import { nuevoId } from '../../db/ids';
import { contrato, escenario, instante, nuevaOrganizacion, nuevoCertificado } from './soporte';

contrato('cuentas', (impl) => {
  const ahora = instante('2025-06-01T12:00:00.000Z');

  it('reads an account with its profile; an unknown id is undefined', async () => {
    const creado = instante('2025-01-02T03:04:05.678Z');
    const id = await impl().nuevaCuenta({ nombre: 'Mi cuenta', creado_en: creado, actualizado_en: creado });
    expect(await impl().repos.cuentas.obtener(id)).toEqual({
      id,
      nombre: 'Mi cuenta',
      razon_social: null,
      rfc: null,
      correo: null,
      telefono: null,
      sitio_web: null,
      terminos_aceptados_en: null,
      creado_en: creado,
      actualizado_en: creado,
    });
    expect(await impl().repos.cuentas.obtener(nuevoId('cta'))).toBeUndefined();
  });

  it('updates the fields named and actualizado_en, and only that account', async () => {
    const id = await impl().nuevaCuenta();
    const otra = await impl().nuevaCuenta();
    const otraAntes = await impl().repos.cuentas.obtener(otra);
    await impl().repos.cuentas.actualizar(
      id,
      { razon_social: 'EMPRESA SA DE CV', rfc: 'EKU9003173C9', terminos_aceptados_en: ahora },
      ahora,
    );
    expect(await impl().repos.cuentas.obtener(id)).toMatchObject({
      nombre: 'Cuenta de prueba',
      razon_social: 'EMPRESA SA DE CV',
      rfc: 'EKU9003173C9',
      correo: null,
      terminos_aceptados_en: ahora,
      actualizado_en: ahora,
    });
    expect(await impl().repos.cuentas.obtener(otra)).toEqual(otraAntes);
  });

  describe('tieneCsdParaLive', () => {
    const vigente = { de_prueba: false, valido_desde: instante('2025-01-01T00:00:00.000Z') };
    const hasta = instante('2026-01-01T00:00:00.000Z');

    it('is false with no certificate, and true with an active, valid, non-test one in either mode', async () => {
      const { cuentaId, live } = await escenario(impl());
      expect(await impl().repos.cuentas.tieneCsdParaLive(cuentaId, ahora)).toBe(false);
      const org = await nuevaOrganizacion(impl(), live);
      await nuevoCertificado(impl(), live, org, { ...vigente, valido_hasta: hasta });
      expect(await impl().repos.cuentas.tieneCsdParaLive(cuentaId, ahora)).toBe(true);

      const enTest = await escenario(impl());
      const orgTest = await nuevaOrganizacion(impl(), enTest.a);
      await nuevoCertificado(impl(), enTest.a, orgTest, { ...vigente, valido_hasta: hasta });
      expect(await impl().repos.cuentas.tieneCsdParaLive(enTest.cuentaId, ahora)).toBe(true);
    });

    it('ignores test, inactive, expired and not yet valid certificates, and other accounts', async () => {
      const { cuentaId, a, otra } = await escenario(impl());
      const org = await nuevaOrganizacion(impl(), a);
      await nuevoCertificado(impl(), a, org, { ...vigente, de_prueba: true, valido_hasta: hasta });
      expect(await impl().repos.cuentas.tieneCsdParaLive(cuentaId, ahora)).toBe(false);
      // Expiring exactly now is expired; starting after now is not valid yet.
      await nuevoCertificado(impl(), a, org, { ...vigente, valido_hasta: ahora });
      expect(await impl().repos.cuentas.tieneCsdParaLive(cuentaId, ahora)).toBe(false);
      await nuevoCertificado(impl(), a, org, {
        de_prueba: false,
        valido_desde: instante('2025-06-01T12:00:00.001Z'),
        valido_hasta: hasta,
      });
      expect(await impl().repos.cuentas.tieneCsdParaLive(cuentaId, ahora)).toBe(false);
      // Valid, but deactivated by a newer one: only the active certificate counts.
      const org2 = await nuevaOrganizacion(impl(), a);
      await nuevoCertificado(impl(), a, org2, { ...vigente, valido_hasta: hasta });
      expect(await impl().repos.cuentas.tieneCsdParaLive(cuentaId, ahora)).toBe(true);
      await nuevoCertificado(impl(), a, org2, { ...vigente, de_prueba: true, valido_hasta: hasta });
      expect(await impl().repos.cuentas.tieneCsdParaLive(cuentaId, ahora)).toBe(false);

      const orgOtra = await nuevaOrganizacion(impl(), otra);
      await nuevoCertificado(impl(), otra, orgOtra, { ...vigente, valido_hasta: hasta });
      expect(await impl().repos.cuentas.tieneCsdParaLive(cuentaId, ahora)).toBe(false);
      expect(await impl().repos.cuentas.tieneCsdParaLive(otra.cuentaId, ahora)).toBe(true);
    });
  });
});
