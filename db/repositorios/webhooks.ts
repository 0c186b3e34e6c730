import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import type { Pagina, Tramo } from '../../dominio/paginacion';
import { paginar } from '../paginacion';
import { conexion, type Transaccion } from '../transacciones';
import { columnasAlcance, conAlcance, leerJson } from './con-alcance';

export interface FilaWebhook {
  id: string;
  modo: Modo;
  url: string;
  eventos_suscritos: string[];
  activo: boolean;
  /** End of the rotation overlap, while the previous secret still signs. */
  secreto_anterior_hasta: Date | null;
  creado_en: Date;
  actualizado_en: Date;
}

/** The sealed signing secrets, read only by the code that signs. */
export interface SecretosWebhook {
  secreto_cifrado: Buffer;
  secreto_anterior_cifrado: Buffer | null;
  dek_cifrada: Buffer;
  version_clave: number;
}

const COLUMNAS = [
  'id',
  'modo',
  'url',
  'eventos_suscritos',
  'activo',
  'secreto_anterior_hasta',
  'creado_en',
  'actualizado_en',
];
const SECRETOS = ['secreto_cifrado', 'secreto_anterior_cifrado', 'dek_cifrada', 'version_clave'];

type FilaBd = Omit<FilaWebhook, 'eventos_suscritos' | 'activo'> & {
  eventos_suscritos: unknown;
  activo: boolean | number;
};
const leer = <F extends FilaBd>(f: F) => ({
  ...f,
  eventos_suscritos: leerJson<string[]>(f.eventos_suscritos),
  activo: Boolean(f.activo),
});

export function crearRepositorioWebhooks(db: Knex) {
  // Deleted webhooks stay for the deliveries' log but no longer exist for the API.
  const vivos = (a: Pick<Alcance, 'cuentaId' | 'modo'>, tx?: Transaccion) =>
    conAlcance(conexion(db, tx), 'webhooks', a).whereNull('eliminado_en');

  return {
    /**
     * Locks the scope's account row: registrations of one account then run one at a time, so the count one reads
     * inside `tx` stays true until it inserts (under READ COMMITTED nothing else stops a concurrent insert).
     */
    async bloquearAlcance(tx: Transaccion, a: Alcance): Promise<void> {
      await conexion(db, tx)('cuentas').select('id').where({ id: a.cuentaId }).forUpdate().first();
    },
    async contar(a: Alcance, tx?: Transaccion): Promise<number> {
      const [f] = (await vivos(a, tx).count({ n: '*' })) as { n: number | string }[];
      return Number(f?.n ?? 0);
    },
    async crear(
      a: Alcance,
      f: { id: string; url: string; eventos_suscritos: string[] } & SecretosWebhook,
      ahora: Date,
      tx?: Transaccion,
    ): Promise<void> {
      await conexion(
        db,
        tx,
      )('webhooks').insert({
        ...f,
        ...columnasAlcance(a),
        eventos_suscritos: JSON.stringify(f.eventos_suscritos),
        activo: true,
        // The database's clock, as events have: a delivery goes to webhooks created before its event.
        creado_en: db.fn.now(3),
        actualizado_en: ahora,
      });
    },
    async listar(a: Alcance, pagina: Pagina): Promise<Tramo<FilaWebhook>> {
      const t = await paginar<FilaBd>(vivos(a).select(COLUMNAS), pagina);
      return { datos: t.datos.map(leer), hayMas: t.hayMas };
    },
    async obtener(a: Alcance, id: string, tx?: Transaccion): Promise<FilaWebhook | undefined> {
      const f = await vivos(a, tx).select(COLUMNAS).where({ id }).first();
      return f && leer(f);
    },
    /** The webhook with its sealed secrets, deleted or not: the delivery decides what a deleted one means. */
    async conSecretos(
      a: Pick<Alcance, 'cuentaId' | 'modo'>,
      id: string,
    ): Promise<(FilaWebhook & SecretosWebhook & { eliminado_en: Date | null }) | undefined> {
      const f = await conAlcance(db, 'webhooks', a)
        .select([...COLUMNAS, ...SECRETOS, 'eliminado_en'])
        .where({ id })
        .first();
      return f && leer(f);
    },
    /** Locks the webhook for a change that must not interleave with another (rotation, deletion). */
    async bloquear(
      tx: Transaccion,
      a: Alcance,
      id: string,
    ): Promise<(FilaWebhook & SecretosWebhook) | undefined> {
      const f = await vivos(a, tx)
        .select([...COLUMNAS, ...SECRETOS])
        .where({ id })
        .forUpdate()
        .first();
      return f && leer(f);
    },
    async actualizar(
      tx: Transaccion,
      a: Alcance,
      id: string,
      cambios: Partial<{ url: string; eventos_suscritos: string[]; activo: boolean }> &
        Partial<SecretosWebhook & { secreto_anterior_hasta: Date | null }>,
      ahora: Date,
    ): Promise<void> {
      const { eventos_suscritos, ...resto } = cambios;
      await vivos(a, tx)
        .where({ id })
        .update({
          ...resto,
          ...(eventos_suscritos ? { eventos_suscritos: JSON.stringify(eventos_suscritos) } : {}),
          actualizado_en: ahora,
        });
    },
    async eliminar(tx: Transaccion, a: Alcance, id: string, ahora: Date): Promise<void> {
      await vivos(a, tx).where({ id }).update({ activo: false, eliminado_en: ahora, actualizado_en: ahora });
    },
  };
}

export type RepositorioWebhooks = ReturnType<typeof crearRepositorioWebhooks>;
