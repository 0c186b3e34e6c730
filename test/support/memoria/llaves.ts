import type { FilaLlave, RepositorioLlaves } from '../../../db/repositorios/llaves';
import { paginarEnMemoria, type Almacen } from './almacen';
import { porConexion } from './transacciones';

type LlaveGuardada = FilaLlave & { hash: Buffer };

export function crearLlavesEnMemoria(m: Almacen): RepositorioLlaves {
  const tabla = m.tabla<LlaveGuardada>('llaves_api', [
    { nombre: 'hash', clave: (r) => r.hash.toString('hex') },
  ]);
  const leer = ({ hash: _h, ...f }: LlaveGuardada): FilaLlave => f;
  const deCuenta = (cuentaId: string, modos: readonly string[]) =>
    tabla.todas().filter((r) => r.cuenta_id === cuentaId && modos.includes(r.modo));

  return porConexion({
    async activaPorHash(hash) {
      const r = tabla.todas().find((x) => x.hash.equals(hash) && x.revocada_en === null);
      return r && leer(r);
    },
    // The real insert has no `sinDuplicar`: a repeated hash is an unexpected error there too.
    async insertar(fila) {
      tabla.insertar({ ...fila, revocada_en: null, ultimo_uso_en: null });
    },
    async obtener(cuentaId, id, modos) {
      const r = deCuenta(cuentaId, modos).find((x) => x.id === id);
      return r && leer(r);
    },
    async listar(cuentaId, modos, pagina) {
      const t = paginarEnMemoria(deCuenta(cuentaId, modos), pagina);
      return { ...t, datos: t.datos.map(leer) };
    },
    async revocar(cuentaId, id, modos, ahora) {
      const r = deCuenta(cuentaId, modos).find((x) => x.id === id && x.revocada_en === null);
      if (r) tabla.cambiar(id, { revocada_en: ahora });
    },
    async marcarUso(id, ahora) {
      tabla.cambiar(id, { ultimo_uso_en: ahora });
    },
  });
}
