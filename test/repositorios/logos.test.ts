import { randomBytes } from 'node:crypto';
import type { FilaLogo } from '../../db/repositorios/logos';
import { contrato, escenario, instante, nuevaOrganizacion } from './soporte';

contrato('logos', (impl) => {
  const logo = (org: string, o: Partial<FilaLogo> = {}): Omit<FilaLogo, 'bytes'> => ({
    organizacion_id: org,
    tipo: 'image/png',
    datos: randomBytes(32),
    sha256: 'a'.repeat(64),
    actualizado_en: instante('2026-11-28T10:00:00.123Z'),
    ...o,
  });

  it('guarda los bytes tal cual (hasta 256 KB) y los lee en su alcance; otro alcance no los ve', async () => {
    const { a, live, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const grande = randomBytes(256 * 1024);
    await impl().repos.logos.guardar(a, logo(org, { datos: grande }));
    expect(await impl().repos.logos.obtener(a, org)).toEqual({
      organizacion_id: org,
      tipo: 'image/png',
      datos: grande,
      bytes: grande.length,
      sha256: 'a'.repeat(64),
      actualizado_en: instante('2026-11-28T10:00:00.123Z'),
    });
    expect(await impl().repos.logos.obtener(live, org)).toBeUndefined();
    expect(await impl().repos.logos.obtener(otra, org)).toBeUndefined();
    expect(await impl().repos.logos.eliminar(otra, org)).toBe(false);
    expect(await impl().repos.logos.eliminar(live, org)).toBe(false);
    expect((await impl().repos.logos.obtener(a, org))?.bytes).toBe(grande.length);
  });

  it('uno por organización: guardar otro lo reemplaza; eliminar dice si había', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    await impl().repos.logos.guardar(a, logo(org));
    const jpeg = randomBytes(10);
    await impl().repos.logos.guardar(
      a,
      logo(org, { tipo: 'image/jpeg', datos: jpeg, actualizado_en: instante('2026-11-28T11:00:00.000Z') }),
    );
    expect(await impl().repos.logos.obtener(a, org)).toMatchObject({
      tipo: 'image/jpeg',
      datos: jpeg,
      bytes: 10,
    });
    expect(await impl().repos.logos.eliminar(a, org)).toBe(true);
    expect(await impl().repos.logos.eliminar(a, org)).toBe(false);
    expect(await impl().repos.logos.obtener(a, org)).toBeUndefined();
  });
});
