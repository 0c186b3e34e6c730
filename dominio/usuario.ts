/** The people of an account who use the console, by what they do. */
export const ROLES = ['admin', 'finanzas', 'operaciones'] as const;
export type Rol = (typeof ROLES)[number];

/**
 * What a console user may do beyond reading. Everyone reads invoices, histories, pending operations and
 * deliveries; finance exports statements, ops acts on stuck operations, an admin does both.
 */
export type Permiso = 'exportar' | 'operar';

const PERMISOS: Record<Rol, readonly Permiso[]> = {
  admin: ['exportar', 'operar'],
  finanzas: ['exportar'],
  operaciones: ['operar'],
};

export const puede = (rol: Rol, permiso: Permiso): boolean => PERMISOS[rol].includes(permiso);

export const NOMBRE_ROL: Record<Rol, string> = {
  admin: 'Administración',
  finanzas: 'Finanzas',
  operaciones: 'Operaciones',
};

/** Ids of console users; an event's actor with this prefix is a person, not an API key. */
export const PREFIJO_USUARIO = 'usr_';

export const esUsuario = (id: string | null | undefined): id is string => !!id?.startsWith(PREFIJO_USUARIO);

/** What a password must be: long enough to resist guessing; no composition rules (NIST SP 800-63B). */
export const CONTRASENA_MINIMA = 12;
export const CONTRASENA_MAXIMA = 200;
