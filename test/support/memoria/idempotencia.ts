import type { FilaIdempotencia, RepositorioIdempotencia } from '../../../db/repositorios/idempotencia';
import type { Alcance } from '../../../dominio/alcance';
import type { Boveda, ContextoBoveda } from '../../../seguridad/boveda';
import { plegar, type Almacen, type ColumnasAlcance } from './almacen';
import { exigirAbierta, porConexion } from './transacciones';

/** The row as stored: the answer sealed by the vault, as the real table keeps it. */
type ClaveGuardada = ColumnasAlcance &
  Omit<FilaIdempotencia, 'cuerpo'> & {
    id: string;
    clave: string;
    cuerpo_cifrado: Buffer | null;
    dek_cifrada: Buffer | null;
    version_clave: number | null;
  };

// The primary key (cuenta_id, modo, clave) under the table's collation: keys differing in case are one key.
const idDe = (a: Alcance, clave: string) => `${a.cuentaId}|${a.modo}|${plegar(clave)}`;

// As the real one: the ciphertext opens only for the account, mode and request fingerprint it was sealed for.
const contexto = (a: Alcance, huella: Buffer): ContextoBoveda => ({
  cuentaId: a.cuentaId,
  modo: a.modo,
  registroId: `idempotencia:${huella.toString('hex')}`,
});

export function crearIdempotenciaEnMemoria(m: Almacen, boveda: Boveda): RepositorioIdempotencia {
  const tabla = m.tabla<ClaveGuardada>('idempotencia');
  // A claimed key, fresh or taken over: in progress, no answer yet.
  const enCurso = (huella: Uint8Array, ahora: Date) => ({
    huella: Buffer.from(huella),
    estado: 'en_curso' as const,
    status: null,
    cuerpo_cifrado: null,
    dek_cifrada: null,
    version_clave: null,
    recurso: null,
    creado_en: ahora,
    actualizado_en: ahora,
  });

  return porConexion({
    // INSERT IGNORE: the key is claimed only if no row holds it.
    async reclamar(a, clave, huella, ahora) {
      const id = idDe(a, clave);
      if (tabla.buscar(id)) return false;
      tabla.insertar({
        id,
        cuenta_id: a.cuentaId,
        modo: a.modo,
        clave,
        ...enCurso(huella, ahora),
      });
      return true;
    },
    async leer(a, clave) {
      const r = tabla.buscar(idDe(a, clave));
      if (!r) return undefined;
      const cuerpo =
        r.cuerpo_cifrado && r.dek_cifrada && r.version_clave !== null
          ? boveda
              .abrir(contexto(a, r.huella), r.dek_cifrada, { cuerpo: r.cuerpo_cifrado }, r.version_clave)
              .cuerpo!.toString('utf8')
          : null;
      return {
        huella: Buffer.from(r.huella),
        estado: r.estado,
        status: r.status,
        cuerpo,
        recurso: r.recurso,
        creado_en: r.creado_en,
        actualizado_en: r.actualizado_en,
      };
    },
    // Only if the row is still the one read: same `actualizado_en` and state.
    async retomar(a, clave, leida, huella, ahora) {
      const id = idDe(a, clave);
      const r = tabla.buscar(id);
      if (!r || r.actualizado_en.getTime() !== leida.actualizado_en.getTime() || r.estado !== leida.estado)
        return false;
      tabla.cambiar(id, enCurso(huella, ahora));
      return true;
    },
    async completar(a, clave, huella, status, cuerpo, ahora) {
      const id = idDe(a, clave);
      if (!tabla.buscar(id)) return;
      const sellado = boveda.sellar(contexto(a, huella), { cuerpo: Buffer.from(cuerpo, 'utf8') });
      tabla.cambiar(id, {
        estado: 'completada',
        status,
        cuerpo_cifrado: sellado.campos.cuerpo!,
        dek_cifrada: sellado.dekCifrada,
        version_clave: sellado.version,
        actualizado_en: ahora,
      });
    },
    async anotarRecurso(tx, a, clave, recurso) {
      exigirAbierta(tx);
      const id = idDe(a, clave);
      if (tabla.buscar(id)?.estado === 'en_curso') tabla.cambiar(id, { recurso });
    },
    async liberar(a, clave) {
      const id = idDe(a, clave);
      const r = tabla.buscar(id);
      if (r?.estado === 'en_curso' && r.recurso === null) tabla.borrar(id);
    },
    async purgarAnterioresA(limite) {
      const viejas = tabla.todas().filter((r) => r.creado_en < limite);
      for (const r of viejas) tabla.borrar(r.id);
      return viejas.length;
    },
  });
}
