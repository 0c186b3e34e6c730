import type { FilaWebhook, RepositorioWebhooks, SecretosWebhook } from '../../../db/repositorios/webhooks';
import type { Alcance } from '../../../dominio/alcance';
import { columnasAlcance, paginarEnMemoria, type Almacen, type ColumnasAlcance } from './almacen';
import { exigirAbierta, porConexion } from './transacciones';

export type WebhookGuardado = FilaWebhook & SecretosWebhook & ColumnasAlcance & { eliminado_en: Date | null };

/** Shared with deliveries (who is subscribed) and the tests that look at the sealed secrets. */
export const tablaWebhooks = (m: Almacen) => m.tabla<WebhookGuardado>('webhooks');

/** A BLOB column reads as a new Buffer: a caller never shares bytes with the table. */
const copiaBlob = (b: Buffer | null) => b && Buffer.from(b);

function leer(r: WebhookGuardado): FilaWebhook {
  return {
    id: r.id,
    modo: r.modo,
    url: r.url,
    eventos_suscritos: [...r.eventos_suscritos],
    activo: r.activo,
    secreto_anterior_hasta: r.secreto_anterior_hasta,
    creado_en: r.creado_en,
    actualizado_en: r.actualizado_en,
  };
}

const conSecretos = (r: WebhookGuardado): FilaWebhook & SecretosWebhook => ({
  ...leer(r),
  secreto_cifrado: copiaBlob(r.secreto_cifrado)!,
  secreto_anterior_cifrado: copiaBlob(r.secreto_anterior_cifrado),
  dek_cifrada: copiaBlob(r.dek_cifrada)!,
  version_clave: r.version_clave,
});

/** Knex leaves a key whose value is `undefined` out of an UPDATE. */
const definidos = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** `enAlcance` for the methods that take a scope without a key (the delivery workflow's). */
export const deAlcance =
  (a: Pick<Alcance, 'cuentaId' | 'modo'>) =>
  (r: ColumnasAlcance): boolean =>
    r.cuenta_id === a.cuentaId && r.modo === a.modo;

export function crearWebhooksEnMemoria(m: Almacen): RepositorioWebhooks {
  const tabla = tablaWebhooks(m);
  // Deleted webhooks keep their row (the deliveries' log names them) but no longer exist for the API.
  const vivos = (a: Pick<Alcance, 'cuentaId' | 'modo'>) =>
    tabla.todas().filter((r) => deAlcance(a)(r) && r.eliminado_en === null);
  const vivo = (a: Pick<Alcance, 'cuentaId' | 'modo'>, id: string) => vivos(a).find((r) => r.id === id);

  return porConexion({
    // Transactions of the fake already run one at a time: the lock only checks the transaction is open.
    bloquearAlcance: async (tx) => exigirAbierta(tx),
    contar: async (a, tx) => {
      exigirAbierta(tx);
      return vivos(a).length;
    },
    async crear(a, f, ahora, tx) {
      exigirAbierta(tx);
      tabla.insertar({
        ...f,
        ...columnasAlcance(a),
        eventos_suscritos: [...f.eventos_suscritos],
        secreto_cifrado: Buffer.from(f.secreto_cifrado),
        secreto_anterior_cifrado: copiaBlob(f.secreto_anterior_cifrado),
        dek_cifrada: Buffer.from(f.dek_cifrada),
        activo: true,
        secreto_anterior_hasta: null,
        eliminado_en: null,
        // The database's clock, as the real insert (`NOW(3)`) and the events fake: not the caller's `ahora`.
        creado_en: new Date(),
        actualizado_en: ahora,
      });
    },
    async listar(a, pagina) {
      const t = paginarEnMemoria(vivos(a), pagina);
      return { ...t, datos: t.datos.map(leer) };
    },
    async obtener(a, id, tx) {
      exigirAbierta(tx);
      const r = vivo(a, id);
      return r && leer(r);
    },
    async conSecretos(a, id) {
      const r = tabla.todas().find((x) => deAlcance(a)(x) && x.id === id);
      return r && { ...conSecretos(r), eliminado_en: r.eliminado_en };
    },
    async bloquear(tx, a, id) {
      exigirAbierta(tx);
      const r = vivo(a, id);
      return r && conSecretos(r);
    },
    async actualizar(tx, a, id, cambios, ahora) {
      exigirAbierta(tx);
      if (!vivo(a, id)) return;
      const c = definidos(cambios);
      tabla.cambiar(id, {
        ...c,
        ...(c.eventos_suscritos ? { eventos_suscritos: [...c.eventos_suscritos] } : {}),
        ...(c.secreto_cifrado ? { secreto_cifrado: Buffer.from(c.secreto_cifrado) } : {}),
        ...(c.secreto_anterior_cifrado
          ? { secreto_anterior_cifrado: Buffer.from(c.secreto_anterior_cifrado) }
          : {}),
        ...(c.dek_cifrada ? { dek_cifrada: Buffer.from(c.dek_cifrada) } : {}),
        actualizado_en: ahora,
      });
    },
    async eliminar(tx, a, id, ahora) {
      exigirAbierta(tx);
      if (vivo(a, id)) tabla.cambiar(id, { activo: false, eliminado_en: ahora, actualizado_en: ahora });
    },
  });
}
