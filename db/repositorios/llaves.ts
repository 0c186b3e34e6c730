import type { Knex } from 'knex';
import type { Modo } from '../../dominio/alcance';
import type { Pagina, Tramo } from '../../dominio/paginacion';
import { paginar } from '../paginacion';

export interface FilaLlave {
  id: string;
  cuenta_id: string;
  modo: Modo;
  nombre: string;
  prefijo: string;
  creado_en: Date;
  revocada_en: Date | null;
  ultimo_uso_en: Date | null;
}

const COLUMNAS = [
  'id',
  'cuenta_id',
  'modo',
  'nombre',
  'prefijo',
  'creado_en',
  'revocada_en',
  'ultimo_uso_en',
];

export function crearRepositorioLlaves(db: Knex) {
  return {
    /** The only lookup by secret: by its hash, active keys only, so revocation applies to the next request. */
    async activaPorHash(hash: Buffer): Promise<FilaLlave | undefined> {
      return db('llaves_api').select(COLUMNAS).where({ hash }).whereNull('revocada_en').first();
    },

    async insertar(fila: Omit<FilaLlave, 'revocada_en' | 'ultimo_uso_en'> & { hash: Buffer }): Promise<void> {
      await db('llaves_api').insert(fila);
    },

    /** Keys are an account-level resource; `modos` says which of them the caller may see. */
    async obtener(cuentaId: string, id: string, modos: readonly Modo[]): Promise<FilaLlave | undefined> {
      return db('llaves_api')
        .select(COLUMNAS)
        .where({ cuenta_id: cuentaId, id })
        .whereIn('modo', modos)
        .first();
    },

    /** Never the secret. */
    listar(cuentaId: string, modos: readonly Modo[], pagina: Pagina): Promise<Tramo<FilaLlave>> {
      return paginar(
        db('llaves_api').select(COLUMNAS).where({ cuenta_id: cuentaId }).whereIn('modo', modos),
        pagina,
      );
    },

    async revocar(cuentaId: string, id: string, modos: readonly Modo[], ahora: Date): Promise<void> {
      await db('llaves_api')
        .where({ cuenta_id: cuentaId, id })
        .whereIn('modo', modos)
        .whereNull('revocada_en')
        .update({ revocada_en: ahora });
    },

    async marcarUso(id: string, ahora: Date): Promise<void> {
      await db('llaves_api').where({ id }).update({ ultimo_uso_en: ahora });
    },
  };
}

export type RepositorioLlaves = ReturnType<typeof crearRepositorioLlaves>;
