import type {
  FilaFacturaGlobal,
  RepositorioFacturasGlobales,
} from '../../../db/repositorios/facturas-globales';
import type { Alcance } from '../../../dominio/alcance';
import { columnasAlcance, type Almacen, type ColumnasAlcance } from './almacen';
import { exigirAbierta, porConexion } from './transacciones';

type GlobalGuardada = Omit<FilaFacturaGlobal, 'modo'> & ColumnasAlcance & { id: string };

export function crearFacturasGlobalesEnMemoria(m: Almacen): RepositorioFacturasGlobales {
  const tabla = m.tabla<GlobalGuardada>('facturas_globales');
  const leer = ({ id: _id, cuenta_id: _c, ...g }: GlobalGuardada): FilaFacturaGlobal => ({ ...g });
  const visible = (a: Pick<Alcance, 'cuentaId' | 'modo'>, id: string) => {
    const g = tabla.buscar(id);
    return g && g.cuenta_id === a.cuentaId && g.modo === a.modo ? g : undefined;
  };
  return porConexion({
    async insertar(tx, a, g) {
      exigirAbierta(tx);
      tabla.insertar({
        ...g,
        ...columnasAlcance(a),
        id: g.factura_id,
        reemplazada_por: null,
        reemplazada_en: null,
      });
    },
    async obtener(a, id, tx) {
      exigirAbierta(tx);
      const g = visible(a, id);
      return g && leer(g);
    },
    async deFacturas(a, ids) {
      return ids.flatMap((id) => {
        const g = visible(a, id);
        return g ? [leer(g)] : [];
      });
    },
    async bloquear(tx, a, id) {
      exigirAbierta(tx);
      const g = visible(a, id);
      return g && leer(g);
    },
    async marcarReemplazada(tx, a, id, por, en) {
      exigirAbierta(tx);
      if (visible(a, id)) tabla.cambiar(id, { reemplazada_por: por, reemplazada_en: en });
    },
    async deshacerReemplazo(tx, a, id) {
      exigirAbierta(tx);
      if (visible(a, id)) tabla.cambiar(id, { reemplazada_por: null, reemplazada_en: null });
    },
  });
}
