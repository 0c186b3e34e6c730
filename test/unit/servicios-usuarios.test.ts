import { ErrorNegocio } from '../../dominio/errores';
import { puede } from '../../dominio/usuario';
import { hashSesion } from '../../seguridad/sesiones';
import { crearServicioUsuarios, DURACION_SESION_MS } from '../../servicios/usuarios';
import { crearMemoria } from '../support/memoria';

/** The console's people over the in-memory repositories: creation, sign-in, sessions, passwords, the mode switch. */
describe('servicio de usuarios de la consola', () => {
  let reloj: Date;
  let live: boolean;
  const armar = () => {
    const m = crearMemoria();
    reloj = new Date('2026-11-28T10:00:00Z');
    live = false;
    const s = crearServicioUsuarios({
      usuarios: m.usuarios,
      liveHabilitado: async () => live,
      costo: { N: 1024, r: 8, p: 1 },
      ahora: () => reloj,
    });
    return { m, s };
  };
  const codigo = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      if (e instanceof ErrorNegocio) return e.codigo;
      throw e;
    }
    return 'sin error';
  };

  it('crea un usuario con una contraseña temporal que sirve una vez para entrar y exige elegir otra', async () => {
    const { s } = armar();
    const { usuario, contrasena } = await s.crear({
      cuentaId: 'cta_a',
      correo: ' Ana@Empresa.MX ',
      rol: 'finanzas',
    });
    expect(usuario).toMatchObject({
      correo: 'ana@empresa.mx',
      rol: 'finanzas',
      debe_cambiar_contrasena: true,
    });
    expect(usuario.id).toMatch(/^usr_[0-9a-z]{26}$/);
    expect(contrasena).toMatch(/^[a-zA-Z2-9]{20}$/);
    const { token, usuario: dentro } = await s.entrar('ANA@empresa.mx', contrasena);
    expect(dentro.debe_cambiar_contrasena).toBe(true);
    const sesion = (await s.sesion(token))!;
    expect(sesion).toMatchObject({ modo: 'test', usuario: { id: usuario.id } });
    await s.cambiarContrasena(sesion, contrasena, 'mi frase de acceso segura');
    expect((await s.sesion(token))!.usuario.debe_cambiar_contrasena).toBe(false);
    expect(await codigo(s.entrar('ana@empresa.mx', contrasena))).toBe('credenciales_invalidas');
    expect(await s.entrar('ana@empresa.mx', 'mi frase de acceso segura')).toMatchObject({
      usuario: { id: usuario.id },
    });
  });

  it('rechaza correo repetido, correo inválido y rol desconocido', async () => {
    const { s } = armar();
    await s.crear({ cuentaId: 'cta_a', correo: 'ops@empresa.mx', rol: 'operaciones' });
    expect(await codigo(s.crear({ cuentaId: 'cta_b', correo: 'OPS@empresa.mx', rol: 'admin' }))).toBe(
      'correo_en_uso',
    );
    expect(await codigo(s.crear({ cuentaId: 'cta_a', correo: 'sin-arroba', rol: 'admin' }))).toBe(
      'correo_invalido',
    );
    expect(await codigo(s.crear({ cuentaId: 'cta_a', correo: 'x@y.mx', rol: 'dueño' }))).toBe('rol_invalido');
  });

  it('un correo desconocido y una contraseña mala dan la misma negativa', async () => {
    const { s } = armar();
    await s.crear({ cuentaId: 'cta_a', correo: 'a@b.mx', rol: 'admin' });
    expect(await codigo(s.entrar('nadie@b.mx', 'lo que sea'))).toBe('credenciales_invalidas');
    expect(await codigo(s.entrar('a@b.mx', 'lo que sea'))).toBe('credenciales_invalidas');
  });

  it('la sesión vence 12 h después de su último uso, y se guarda solo por el hash de su token', async () => {
    const { m, s } = armar();
    const { contrasena } = await s.crear({ cuentaId: 'cta_a', correo: 'a@b.mx', rol: 'admin' });
    const { token } = await s.entrar('a@b.mx', contrasena);
    expect(m.almacen.volcado()).not.toContain(token);
    expect(m.almacen.volcado()).toContain(hashSesion(token).toString('hex'));
    reloj = new Date(reloj.getTime() + DURACION_SESION_MS - 1000);
    expect(await s.sesion(token)).toBeDefined();
    reloj = new Date(reloj.getTime() + DURACION_SESION_MS - 1000);
    expect(await s.sesion(token)).toBeDefined();
    reloj = new Date(reloj.getTime() + DURACION_SESION_MS);
    expect(await s.sesion(token)).toBeUndefined();
  });

  it('cambiar la contraseña exige la actual, una nueva de 12 o más que no contenga el correo, y cierra las otras sesiones', async () => {
    const { s } = armar();
    const { contrasena } = await s.crear({ cuentaId: 'cta_a', correo: 'pedro@b.mx', rol: 'admin' });
    const una = (await s.sesion((await s.entrar('pedro@b.mx', contrasena)).token))!;
    const otra = (await s.entrar('pedro@b.mx', contrasena)).token;
    expect(await codigo(s.cambiarContrasena(una, 'no es', 'frase nueva y larga'))).toBe(
      'contrasena_incorrecta',
    );
    expect(await codigo(s.cambiarContrasena(una, contrasena, 'corta'))).toBe('contrasena_invalida');
    expect(await codigo(s.cambiarContrasena(una, contrasena, 'soy pedro el de siempre'))).toBe(
      'contrasena_invalida',
    );
    await s.cambiarContrasena(una, contrasena, 'frase nueva y larga');
    expect(await s.sesion(otra)).toBeUndefined();
    expect(await s.sesion((await s.entrar('pedro@b.mx', 'frase nueva y larga')).token)).toBeDefined();
    // A name of three letters or fewer is not a guess worth refusing phrases for.
    const corto = await s.crear({ cuentaId: 'cta_a', correo: 'al@b.mx', rol: 'admin' });
    const sesionCorta = (await s.sesion((await s.entrar('al@b.mx', corto.contrasena)).token))!;
    await s.cambiarContrasena(sesionCorta, corto.contrasena, 'algo largo de verdad');
  });

  it('el modo live se abre solo a una cuenta habilitada; salir cierra la sesión', async () => {
    const { s } = armar();
    const { contrasena } = await s.crear({ cuentaId: 'cta_a', correo: 'a@b.mx', rol: 'finanzas' });
    const { token } = await s.entrar('a@b.mx', contrasena);
    const sesion = (await s.sesion(token))!;
    expect(await codigo(s.cambiarModo(sesion, 'live'))).toBe('live_no_habilitado');
    live = true;
    await s.cambiarModo(sesion, 'live');
    expect((await s.sesion(token))!.modo).toBe('live');
    // The account stops meeting live's requirements (its CSD expired): the session is back in test.
    live = false;
    expect((await s.sesion(token))!.modo).toBe('test');
    await s.salir(sesion);
    expect(await s.sesion(token)).toBeUndefined();
  });

  it('los permisos por rol: finanzas exporta, operaciones actúa, administración ambas', () => {
    expect([puede('finanzas', 'exportar'), puede('finanzas', 'operar')]).toEqual([true, false]);
    expect([puede('operaciones', 'exportar'), puede('operaciones', 'operar')]).toEqual([false, true]);
    expect([puede('admin', 'exportar'), puede('admin', 'operar')]).toEqual([true, true]);
  });
});
