import type { Knex } from 'knex';
import type { Alcance } from '../../dominio/alcance';
import { columnasAlcance, conAlcance } from './con-alcance';

/** The image types a logo may have: what browsers show and what the magic bytes tell apart. */
export type TipoLogo = 'image/png' | 'image/jpeg';

export interface FilaLogo {
  organizacion_id: string;
  tipo: TipoLogo;
  datos: Buffer;
  bytes: number;
  sha256: string;
  actualizado_en: Date;
}

/** What describes a logo without its bytes (the answer of an upload). */
export type ResumenLogo = Omit<FilaLogo, 'datos'>;

export function crearRepositorioLogos(db: Knex) {
  return {
    /** Stores or replaces the organization's logo (one per organization). */
    async guardar(a: Alcance, logo: Omit<FilaLogo, 'bytes'>): Promise<void> {
      // The primary key is the organization, which belongs to one scope: a replace never crosses scopes.
      await db('logos_organizacion')
        .insert({ ...logo, ...columnasAlcance(a), bytes: logo.datos.length })
        .onConflict('organizacion_id')
        .merge(['tipo', 'datos', 'bytes', 'sha256', 'actualizado_en']);
    },

    async obtener(
      a: Pick<Alcance, 'cuentaId' | 'modo'>,
      organizacionId: string,
    ): Promise<FilaLogo | undefined> {
      const f = (await conAlcance(db, 'logos_organizacion', a)
        .select('organizacion_id', 'tipo', 'datos', 'bytes', 'sha256', 'actualizado_en')
        .where({ organizacion_id: organizacionId })
        .first()) as FilaLogo | undefined;
      return f && { ...f, datos: Buffer.from(f.datos) };
    },

    /** False when the organization had none. */
    async eliminar(a: Alcance, organizacionId: string): Promise<boolean> {
      const n = await conAlcance(db, 'logos_organizacion', a)
        .where({ organizacion_id: organizacionId })
        .delete();
      return n > 0;
    },
  };
}

export type RepositorioLogos = ReturnType<typeof crearRepositorioLogos>;
