import { randomBytes } from 'node:crypto';
import { nuevoId } from '../../db/ids';
import type { Rol } from '../../dominio/usuario';
import { contrato, instante, refusal, type Implementacion } from './soporte';

contrato('usuarios', (impl) => {
  const creado = instante('2026-11-28T10:00:00.000Z');

  async function nuevoUsuario(i: Implementacion, cuentaId: string, rol: Rol = 'finanzas') {
    const u = {
      id: nuevoId('usr'),
      cuenta_id: cuentaId,
      correo: `${randomBytes(5).toString('hex')}@empresa.mx`,
      rol,
      debe_cambiar_contrasena: true,
      creado_en: creado,
    };
    await i.repos.usuarios.insertar({ ...u, contrasena_hash: 'scrypt$1$8$1$sal$clave' });
    return u;
  }
  const sesion = async (
    i: Implementacion,
    usuarioId: string,
    venceEn = instante('2026-11-28T22:00:00.000Z'),
  ) => {
    const hash = randomBytes(32);
    await i.repos.usuarios.crearSesion({ hash, usuarioId, modo: 'test', ahora: creado, venceEn });
    return hash;
  };

  it('reads a user by email with its hash, by account and id without it; another account does not see it', async () => {
    const cuenta = await impl().nuevaCuenta();
    const u = await nuevoUsuario(impl(), cuenta);
    expect(await impl().repos.usuarios.porCorreo(u.correo)).toEqual({
      ...u,
      contrasena_hash: 'scrypt$1$8$1$sal$clave',
    });
    expect(await impl().repos.usuarios.obtener(cuenta, u.id)).toEqual(u);
    expect(await impl().repos.usuarios.obtener(await impl().nuevaCuenta(), u.id)).toBeUndefined();
  });

  it('an email names one user across accounts', async () => {
    const u = await nuevoUsuario(impl(), await impl().nuevaCuenta());
    const otra = await impl().nuevaCuenta();
    expect(
      await refusal(
        impl().repos.usuarios.insertar({ ...u, id: nuevoId('usr'), cuenta_id: otra, contrasena_hash: 'x' }),
      ),
    ).toBe('RegistroDuplicado');
  });

  it('changes a password within its account only, clearing the demand to change it', async () => {
    const cuenta = await impl().nuevaCuenta();
    const u = await nuevoUsuario(impl(), cuenta);
    await impl().repos.usuarios.cambiarContrasena(await impl().nuevaCuenta(), u.id, 'ajeno', creado);
    expect(await impl().repos.usuarios.hashContrasena(cuenta, u.id)).toBe('scrypt$1$8$1$sal$clave');
    await impl().repos.usuarios.cambiarContrasena(cuenta, u.id, 'nuevo', creado);
    expect(await impl().repos.usuarios.hashContrasena(cuenta, u.id)).toBe('nuevo');
    expect((await impl().repos.usuarios.obtener(cuenta, u.id))!.debe_cambiar_contrasena).toBe(false);
  });

  it('a session opens its user until it expires; the mode and the expiry change; closing it ends it', async () => {
    const cuenta = await impl().nuevaCuenta();
    const u = await nuevoUsuario(impl(), cuenta, 'operaciones');
    const hash = await sesion(impl(), u.id);
    const antes = instante('2026-11-28T21:59:59.000Z');
    expect(await impl().repos.usuarios.sesion(hash, antes)).toEqual({
      usuario: u,
      modo: 'test',
      vence_en: instante('2026-11-28T22:00:00.000Z'),
    });
    expect(await impl().repos.usuarios.sesion(hash, instante('2026-11-28T22:00:00.000Z'))).toBeUndefined();
    expect(await impl().repos.usuarios.sesion(randomBytes(32), antes)).toBeUndefined();
    await impl().repos.usuarios.cambiarModo(hash, 'live');
    await impl().repos.usuarios.extenderSesion(hash, instante('2026-11-29T10:00:00.000Z'));
    expect(await impl().repos.usuarios.sesion(hash, instante('2026-11-29T09:00:00.000Z'))).toMatchObject({
      modo: 'live',
      vence_en: instante('2026-11-29T10:00:00.000Z'),
    });
    await impl().repos.usuarios.cerrarSesion(hash);
    expect(await impl().repos.usuarios.sesion(hash, antes)).toBeUndefined();
  });

  it("closes a user's other sessions, not another user's; purges the expired", async () => {
    const cuenta = await impl().nuevaCuenta();
    const [a, b] = [await nuevoUsuario(impl(), cuenta), await nuevoUsuario(impl(), cuenta)];
    const [a1, a2, b1] = [await sesion(impl(), a.id), await sesion(impl(), a.id), await sesion(impl(), b.id)];
    await impl().repos.usuarios.cerrarOtrasSesiones(a.id, a1);
    const t = instante('2026-11-28T12:00:00.000Z');
    expect(await impl().repos.usuarios.sesion(a1, t)).toBeDefined();
    expect(await impl().repos.usuarios.sesion(a2, t)).toBeUndefined();
    expect(await impl().repos.usuarios.sesion(b1, t)).toBeDefined();
    const vieja = await sesion(impl(), b.id, instante('2020-01-01T00:00:00.000Z'));
    expect(
      await impl().repos.usuarios.purgarVencidas(instante('2021-01-01T00:00:00.000Z')),
    ).toBeGreaterThanOrEqual(1);
    expect(await impl().repos.usuarios.sesion(vieja, instante('2019-01-01T00:00:00.000Z'))).toBeUndefined();
  });
});
