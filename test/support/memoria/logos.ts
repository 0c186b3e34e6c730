import type { FilaLogo, RepositorioLogos } from '../../../db/repositorios/logos';
import { columnasAlcance, enAlcance, type Almacen, type ColumnasAlcance } from './almacen';
import { porConexion } from './transacciones';

type LogoGuardado = FilaLogo & ColumnasAlcance & { id: string };

export function crearLogosEnMemoria(m: Almacen): RepositorioLogos {
  const tabla = m.tabla<LogoGuardado>('logos_organizacion');
  const leer = ({ id: _id, cuenta_id: _c, modo: _m, ...f }: LogoGuardado): FilaLogo => ({
    ...f,
    datos: Buffer.from(f.datos),
  });
  return porConexion({
    async guardar(a, logo) {
      const fila = {
        ...logo,
        id: logo.organizacion_id,
        datos: Buffer.from(logo.datos),
        bytes: logo.datos.length,
      };
      if (tabla.buscar(fila.id)) tabla.cambiar(fila.id, fila);
      else tabla.insertar({ ...fila, ...columnasAlcance(a) });
    },
    async obtener(a, organizacionId) {
      const f = tabla.buscar(organizacionId);
      return f && f.cuenta_id === a.cuentaId && f.modo === a.modo ? leer(f) : undefined;
    },
    async eliminar(a, organizacionId) {
      const f = tabla.buscar(organizacionId);
      if (!f || !enAlcance(a)(f)) return false;
      tabla.borrar(organizacionId);
      return true;
    },
  });
}
