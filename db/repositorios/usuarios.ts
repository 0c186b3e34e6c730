import type { Knex } from 'knex';
import type { Modo } from '../../dominio/alcance';
import type { Rol } from '../../dominio/usuario';
import { sinDuplicar } from './con-alcance';

export interface FilaUsuario {
  id: string;
  cuenta_id: string;
  correo: string;
  rol: Rol;
  debe_cambiar_contrasena: boolean;
  creado_en: Date;
}

export interface SesionConUsuario {
  usuario: FilaUsuario;
  modo: Modo;
  vence_en: Date;
}

const COLUMNAS = ['id', 'cuenta_id', 'correo', 'rol', 'debe_cambiar_contrasena', 'creado_en'];
const COLUMNAS_U = COLUMNAS.map((c) => `u.${c}`);

const leer = (f: FilaUsuario): FilaUsuario => ({
  ...f,
  debe_cambiar_contrasena: !!f.debe_cambiar_contrasena,
});

/**
 * Console users and their sessions. A user belongs to one account in both modes (the mode is the session's);
 * reads by email and by session hash are the sign-in's and every page's lookups, the rest take the account.
 */
export function crearRepositorioUsuarios(db: Knex) {
  return {
    /** A taken email is refused with `RegistroDuplicado`. */
    async insertar(f: FilaUsuario & { contrasena_hash: string }): Promise<void> {
      await sinDuplicar(() => db('usuarios').insert({ ...f, actualizado_en: f.creado_en }));
    },

    /** Sign-in's lookup: the user and the hash to verify against (emails are stored lower-case). */
    async porCorreo(correo: string): Promise<(FilaUsuario & { contrasena_hash: string }) | undefined> {
      const f = (await db('usuarios')
        .select([...COLUMNAS, 'contrasena_hash'])
        .where({ correo })
        .first()) as (FilaUsuario & { contrasena_hash: string }) | undefined;
      return f && { ...leer(f), contrasena_hash: f.contrasena_hash };
    },

    async obtener(cuentaId: string, id: string): Promise<FilaUsuario | undefined> {
      const f = (await db('usuarios').select(COLUMNAS).where({ cuenta_id: cuentaId, id }).first()) as
        | FilaUsuario
        | undefined;
      return f && leer(f);
    },

    async hashContrasena(cuentaId: string, id: string): Promise<string | undefined> {
      const f = (await db('usuarios')
        .select('contrasena_hash')
        .where({ cuenta_id: cuentaId, id })
        .first()) as { contrasena_hash: string } | undefined;
      return f?.contrasena_hash;
    },

    async cambiarContrasena(cuentaId: string, id: string, hash: string, ahora: Date): Promise<void> {
      await db('usuarios')
        .where({ cuenta_id: cuentaId, id })
        .update({ contrasena_hash: hash, debe_cambiar_contrasena: false, actualizado_en: ahora });
    },

    async crearSesion(s: { hash: Buffer; usuarioId: string; modo: Modo; ahora: Date; venceEn: Date }) {
      await db('sesiones_consola').insert({
        hash: s.hash,
        usuario_id: s.usuarioId,
        modo: s.modo,
        creado_en: s.ahora,
        vence_en: s.venceEn,
      });
    },

    /** The session behind a cookie, with its user, if it has not expired. */
    async sesion(hash: Buffer, ahora: Date): Promise<SesionConUsuario | undefined> {
      const f = (await db('sesiones_consola as s')
        .join('usuarios as u', 'u.id', 's.usuario_id')
        .select([...COLUMNAS_U, 's.modo as sesion_modo', 's.vence_en as sesion_vence_en'])
        .where('s.hash', hash)
        .where('s.vence_en', '>', ahora)
        .first()) as (FilaUsuario & { sesion_modo: Modo; sesion_vence_en: Date }) | undefined;
      if (!f) return undefined;
      const { sesion_modo, sesion_vence_en, ...u } = f;
      return { usuario: leer(u), modo: sesion_modo, vence_en: sesion_vence_en };
    },

    /** Sliding expiry: an active session lives on; written at most once a minute per session by the caller. */
    async extenderSesion(hash: Buffer, venceEn: Date): Promise<void> {
      await db('sesiones_consola').where({ hash }).update({ vence_en: venceEn });
    },

    async cambiarModo(hash: Buffer, modo: Modo): Promise<void> {
      await db('sesiones_consola').where({ hash }).update({ modo });
    },

    async cerrarSesion(hash: Buffer): Promise<void> {
      await db('sesiones_consola').where({ hash }).delete();
    },

    /** Every session of a user but one: a changed password signs out the other browsers. */
    async cerrarOtrasSesiones(usuarioId: string, salvo: Buffer): Promise<void> {
      await db('sesiones_consola').where({ usuario_id: usuarioId }).whereNot({ hash: salvo }).delete();
    },

    async purgarVencidas(ahora: Date): Promise<number> {
      return db('sesiones_consola').where('vence_en', '<=', ahora).delete();
    },
  };
}

export type RepositorioUsuarios = ReturnType<typeof crearRepositorioUsuarios>;
