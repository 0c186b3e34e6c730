import { randomBytes } from 'node:crypto';
import type { Modo } from '../dominio/alcance';
import { ErrorNegocio, RegistroDuplicado } from '../dominio/errores';
import { CONTRASENA_MAXIMA, CONTRASENA_MINIMA, PREFIJO_USUARIO, ROLES, type Rol } from '../dominio/usuario';
import type { FilaUsuario, RepositorioUsuarios } from '../db/repositorios/usuarios';
import { nuevoId } from '../db/ids';
import {
  COSTO_SCRYPT,
  contrasenaTemporal,
  hashContrasena,
  verificarContrasena,
  type CostoScrypt,
} from '../seguridad/contrasenas';
import { hashSesion, nuevaSesion } from '../seguridad/sesiones';

/** A session lives 12 hours after its last use; its expiry is written at most once a minute. */
export const DURACION_SESION_MS = 12 * 3600_000;
const RENOVACION_MS = 60_000;

/** One shape for an address everywhere: sign-in compares the lower-cased, trimmed text. */
export const normalizarCorreo = (c: string) => c.trim().toLowerCase();
const CORREO = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface SesionConsola {
  usuario: FilaUsuario;
  modo: Modo;
  /** The stored key of the session (its token's hash). */
  hash: Buffer;
}

const credencialesInvalidas = () =>
  new ErrorNegocio('autenticacion', 'credenciales_invalidas', 'El correo o la contraseña no son correctos.');

function validarNueva(contrasena: string, correo: string) {
  if (contrasena.length < CONTRASENA_MINIMA || contrasena.length > CONTRASENA_MAXIMA)
    throw new ErrorNegocio(
      'solicitud_invalida',
      'contrasena_invalida',
      `La contraseña debe tener entre ${CONTRASENA_MINIMA} y ${CONTRASENA_MAXIMA} caracteres.`,
      'nueva',
    );
  // The email's name is the first guess; a name of 3 letters or fewer would refuse half the phrases.
  const nombre = correo.split('@')[0]!.toLowerCase();
  if (nombre.length >= 4 && contrasena.toLowerCase().includes(nombre))
    throw new ErrorNegocio(
      'solicitud_invalida',
      'contrasena_invalida',
      'La contraseña no puede contener su correo.',
      'nueva',
    );
}

/**
 * The console's people: users of an account created by `usuario:crear`, sign-in by email and password (scrypt),
 * sessions by an opaque token kept hashed, the test/live switch per session.
 */
export function crearServicioUsuarios(deps: {
  usuarios: RepositorioUsuarios;
  /** Live data opens only to an account that may work live (as its live keys). */
  liveHabilitado(cuentaId: string): Promise<boolean>;
  ahora?: () => Date;
  /** scrypt's cost for new hashes (tests lower it; a stored hash carries its own). */
  costo?: CostoScrypt;
}) {
  const ahora = deps.ahora ?? (() => new Date());
  const costo = deps.costo ?? COSTO_SCRYPT;
  const hashear = (c: string) => hashContrasena(c, costo);
  // A hash no password matches, verified when the email is unknown so both answers take as long.
  let senuelo: Promise<string> | undefined;
  const hashSenuelo = () => (senuelo ??= hashear(randomBytes(16).toString('hex')));
  // Expired sessions go at most once an hour per process, on a sign-in (no scheduler needed).
  let ultimaPurga = -Infinity;

  return {
    /** A new user with a one-time password, returned once: it must be changed at the first sign-in. */
    async crear(d: { cuentaId: string; correo: string; rol: string }) {
      const correo = normalizarCorreo(d.correo);
      if (!CORREO.test(correo) || correo.length > 254)
        throw new ErrorNegocio('solicitud_invalida', 'correo_invalido', 'El correo no es válido.', 'correo');
      if (!(ROLES as readonly string[]).includes(d.rol))
        throw new ErrorNegocio(
          'solicitud_invalida',
          'rol_invalido',
          `El rol debe ser uno de: ${ROLES.join(', ')}.`,
          'rol',
        );
      const contrasena = contrasenaTemporal();
      const usuario: FilaUsuario = {
        id: nuevoId(PREFIJO_USUARIO.slice(0, -1)),
        cuenta_id: d.cuentaId,
        correo,
        rol: d.rol as Rol,
        debe_cambiar_contrasena: true,
        creado_en: ahora(),
      };
      try {
        await deps.usuarios.insertar({ ...usuario, contrasena_hash: await hashear(contrasena) });
      } catch (e) {
        if (e instanceof RegistroDuplicado)
          throw new ErrorNegocio(
            'conflicto',
            'correo_en_uso',
            'Ya existe un usuario con ese correo.',
            'correo',
          );
        throw e;
      }
      return { usuario, contrasena };
    },

    /** A new session for the right email and password; the same refusal for an unknown email, as slow. */
    async entrar(correoDado: string, contrasena: string) {
      const u = await deps.usuarios.porCorreo(normalizarCorreo(correoDado));
      const ok = await verificarContrasena(contrasena, u?.contrasena_hash ?? (await hashSenuelo()));
      if (!u || !ok) throw credencialesInvalidas();
      const { token, hash } = nuevaSesion();
      const t = ahora();
      await deps.usuarios.crearSesion({
        hash,
        usuarioId: u.id,
        modo: 'test',
        ahora: t,
        venceEn: new Date(t.getTime() + DURACION_SESION_MS),
      });
      if (t.getTime() - ultimaPurga >= 3600_000) {
        ultimaPurga = t.getTime();
        await deps.usuarios.purgarVencidas(t);
      }
      const { contrasena_hash: _h, ...usuario } = u;
      return { token, usuario };
    },

    /** The session a cookie's token opens, kept alive by use; undefined if unknown or expired. */
    async sesion(token: string): Promise<SesionConsola | undefined> {
      const hash = hashSesion(token);
      const t = ahora();
      const s = await deps.usuarios.sesion(hash, t);
      if (!s) return undefined;
      const nuevo = t.getTime() + DURACION_SESION_MS;
      if (nuevo - s.vence_en.getTime() >= RENOVACION_MS)
        await deps.usuarios.extenderSesion(hash, new Date(nuevo));
      // As a live key: live stays open only while the account may work live (a CSD can expire meanwhile).
      if (s.modo === 'live' && !(await deps.liveHabilitado(s.usuario.cuenta_id))) {
        await deps.usuarios.cambiarModo(hash, 'test');
        return { usuario: s.usuario, modo: 'test', hash };
      }
      return { usuario: s.usuario, modo: s.modo, hash };
    },

    async salir(s: SesionConsola): Promise<void> {
      await deps.usuarios.cerrarSesion(s.hash);
    },

    /** A new password for the signed-in user, who proves the current one; their other sessions end. */
    async cambiarContrasena(s: SesionConsola, actual: string, nueva: string): Promise<void> {
      const hash = await deps.usuarios.hashContrasena(s.usuario.cuenta_id, s.usuario.id);
      if (!hash || !(await verificarContrasena(actual, hash)))
        throw new ErrorNegocio(
          'solicitud_invalida',
          'contrasena_incorrecta',
          'La contraseña actual no es correcta.',
          'actual',
        );
      validarNueva(nueva, s.usuario.correo);
      if (nueva === actual)
        throw new ErrorNegocio(
          'solicitud_invalida',
          'contrasena_invalida',
          'La contraseña nueva debe ser distinta de la actual.',
          'nueva',
        );
      await deps.usuarios.cambiarContrasena(s.usuario.cuenta_id, s.usuario.id, await hashear(nueva), ahora());
      await deps.usuarios.cerrarOtrasSesiones(s.usuario.id, s.hash);
    },

    async cambiarModo(s: SesionConsola, modo: Modo): Promise<void> {
      if (modo === 'live' && !(await deps.liveHabilitado(s.usuario.cuenta_id)))
        throw new ErrorNegocio(
          'permiso',
          'live_no_habilitado',
          'La cuenta aún no puede operar en modo live: complete sus datos y suba un CSD vigente.',
          'modo',
        );
      await deps.usuarios.cambiarModo(s.hash, modo);
    },
  };
}

export type ServicioUsuarios = ReturnType<typeof crearServicioUsuarios>;
