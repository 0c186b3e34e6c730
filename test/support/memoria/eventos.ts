import { nuevoId } from '../../../db/ids';
import type { FilaEvento, RepositorioEventos } from '../../../db/repositorios/eventos';
import { columnasAlcance, copiaJson, enAlcance, paginarEnMemoria, type Almacen } from './almacen';
import { exigirAbierta } from './transacciones';

type EventoGuardado = FilaEvento & { cuenta_id: string };

export function crearEventosEnMemoria(m: Almacen): RepositorioEventos {
  const tabla = m.tabla<EventoGuardado>('eventos');
  const leer = ({ cuenta_id: _c, ...f }: EventoGuardado): FilaEvento => ({ ...f, datos: copiaJson(f.datos) });

  return {
    async registrar(tx, a, tipo, datos) {
      exigirAbierta(tx);
      const id = nuevoId('evt');
      tabla.insertar({
        id,
        ...columnasAlcance(a),
        tipo,
        datos: copiaJson(datos) as Record<string, unknown>,
        creado_en: new Date(),
      });
      return id;
    },
    async listar(a, filtros, pagina) {
      const filas = tabla
        .todas()
        .filter((r) => enAlcance(a)(r) && (!filtros.tipo || r.tipo === filtros.tipo));
      const t = paginarEnMemoria(filas, pagina);
      return { ...t, datos: t.datos.map(leer) };
    },
    async obtener(a, id) {
      const r = tabla.todas().find((x) => enAlcance(a)(x) && x.id === id);
      return r && leer(r);
    },
  };
}
