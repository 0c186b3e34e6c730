import type { FilaSonda, RepositorioSondas } from '../../../db/repositorios/sondas';
import type { Almacen } from './almacen';
import { porConexion } from './transacciones';

export function crearSondasEnMemoria(m: Almacen, version = '10.11.0-MariaDB-falso'): RepositorioSondas {
  const tabla = m.tabla<FilaSonda>('sondas_salud');
  return porConexion({
    // An upsert, as the real one: a retried probe overwrites its row.
    async registrar(f) {
      if (tabla.buscar(f.id)) tabla.cambiar(f.id, f);
      else tabla.insertar({ ...f });
    },
    async obtener(id) {
      const r = tabla.buscar(id);
      return r && { ...r };
    },
    versionServidor: async () => version,
  });
}
