import type { Request, RequestHandler, Response } from 'express';
import type { Alcance } from '../../dominio/alcance';
import { ErrorNegocio } from '../../dominio/errores';
import { puede, type Permiso } from '../../dominio/usuario';
import { csrfValido, tokenCsrf } from '../../seguridad/sesiones';
import { DURACION_SESION_MS, type ServicioUsuarios, type SesionConsola } from '../../servicios/usuarios';
import type { Marco } from './diseno';

declare module 'express-serve-static-core' {
  interface Request {
    consola?: { sesion: SesionConsola; marco: Marco };
  }
}

export const COOKIE = 'consola_sesion';

/** The cookie's token, if the request carries one. */
export function tokenDe(req: Request): string | undefined {
  for (const parte of (req.get('cookie') ?? '').split(';')) {
    const i = parte.indexOf('=');
    if (i > 0 && parte.slice(0, i).trim() === COOKIE) return parte.slice(i + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's link or form sends it), limited to the console's
 * paths, Secure whenever the request came over HTTPS (directly or through a listed balancer).
 */
export function ponerCookie(req: Request, res: Response, token: string): void {
  res.cookie(COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: '/consola',
    maxAge: DURACION_SESION_MS,
  });
}

export const quitarCookie = (req: Request, res: Response) =>
  res.clearCookie(COOKIE, { httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/consola' });

/**
 * Every console page but sign-in: the session from its cookie (to sign-in otherwise), the password change a
 * one-time password demands, the CSRF token on every POST, and the scope the services work in: the user's
 * account in the session's mode, the user as the actor of what they do.
 */
export function conSesion(usuarios: ServicioUsuarios): RequestHandler {
  return async (req, res, next) => {
    const token = tokenDe(req);
    const sesion = token ? await usuarios.sesion(token) : undefined;
    if (!token || !sesion) {
      if (token) quitarCookie(req, res);
      // Back to the page asked for once signed in (a shared link to an invoice).
      if (req.method === 'GET')
        return res.redirect(303, `/consola/entrar?volver=${encodeURIComponent(req.originalUrl)}`);
      throw new ErrorNegocio('autenticacion', 'sesion_requerida', 'La sesión terminó: vuelva a entrar.');
    }
    if (req.method === 'POST' && !csrfValido(token, campo(req, '_csrf')))
      throw new ErrorNegocio(
        'permiso',
        'csrf_invalido',
        'El formulario venció o no vino de esta consola: recargue la página e intente de nuevo.',
      );
    const u = sesion.usuario;
    const ruta = req.path;
    if (u.debe_cambiar_contrasena && ruta !== '/contrasena' && ruta !== '/salir') {
      if (req.method === 'GET') return res.redirect(303, '/consola/contrasena');
      throw new ErrorNegocio('permiso', 'cambio_de_contrasena', 'Primero elija su contraseña.');
    }
    req.consola = {
      sesion,
      marco: {
        correo: u.correo,
        rol: u.rol,
        modo: sesion.modo,
        csrf: tokenCsrf(token),
        ruta: req.baseUrl + ruta,
      },
    };
    const alcance: Alcance = {
      cuentaId: u.cuenta_id,
      modo: sesion.modo,
      llaveId: u.id,
      origen: { solicitudId: req.id, llaveId: u.id },
    };
    req.alcance = alcance;
    req.log = req.log.child({ cuenta_id: u.cuenta_id, modo: sesion.modo, usuario_id: u.id });
    next();
  };
}

/**
 * A form field as text: absent, repeated (an array) or anything else is '', so no handler ever sees a non-string
 * (a body that is not a form leaves `req.body` undefined).
 */
export function campo(req: Request, nombre: string): string {
  const v = (req.body as Record<string, unknown> | undefined)?.[nombre];
  return typeof v === 'string' ? v : '';
}

/** Where to go after signing in: a console page of this site only, never another origin. */
export const destinoSeguro = (v: string) =>
  /^\/consola(\/[\w\-./?=&%]*)?$/.test(v) && !v.includes('//') && !v.startsWith('/consola/entrar')
    ? v
    : '/consola';

export function consolaDe(req: Request) {
  if (!req.consola) throw new Error('ruta de consola sin sesión');
  return req.consola;
}

/** What a role may not do is refused here, whatever the page showed. */
export function exigir(req: Request, permiso: Permiso): void {
  if (!puede(consolaDe(req).sesion.usuario.rol, permiso))
    throw new ErrorNegocio(
      'permiso',
      'rol_sin_permiso',
      permiso === 'operar'
        ? 'Su rol no permite actuar sobre operaciones: pídalo a Operaciones o a Administración.'
        : 'Su rol no permite exportar estados de cuenta: pídalo a Finanzas o a Administración.',
    );
}
