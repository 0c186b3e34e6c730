import type { RepositorioLimites } from '../../../db/repositorios/limites';
import type { Almacen } from './almacen';
import { porConexion } from './transacciones';

interface FilaCubeta {
  id: string;
  milifichas: number;
  actualizado_ms: number;
}

interface FilaFallos {
  id: string;
  inicio_ms: number;
  fallos: number;
}

/** The same integer arithmetic as the real statements; a JavaScript turn is as atomic as their row lock. */
export function crearLimitesEnMemoria(m: Almacen): RepositorioLimites {
  const cubetas = m.tabla<FilaCubeta>('limites_llaves');
  const fallos = m.tabla<FilaFallos>('fallos_autenticacion');
  return porConexion({
    async tomarFicha(a, c, ahora) {
      const id = `${a.cuentaId}|${a.llaveId}`;
      const capacidad = c.rafaga * 1000;
      const t = ahora.getTime();
      const fila = cubetas.buscar(id);
      const antes = fila
        ? Math.min(capacidad, fila.milifichas + Math.max(0, t - fila.actualizado_ms) * c.porSegundo)
        : capacidad;
      const concedida = antes >= 1000;
      const milifichas = concedida ? antes - 1000 : antes;
      if (fila) cubetas.cambiar(id, { milifichas, actualizado_ms: Math.max(fila.actualizado_ms, t) });
      else cubetas.insertar({ id, milifichas, actualizado_ms: t });
      return { concedida, milifichas };
    },
    async purgarCubetasInactivas(cuentaId, antesDe) {
      const viejas = cubetas
        .todas()
        .filter((f) => f.id.startsWith(`${cuentaId}|`) && f.actualizado_ms < antesDe.getTime());
      for (const f of viejas) cubetas.borrar(f.id);
      return viejas.length;
    },
    async registrarFallo(direccion, ventanaMs, ahora) {
      const t = ahora.getTime();
      const fila = fallos.buscar(direccion);
      if (!fila) {
        fallos.insertar({ id: direccion, inicio_ms: t, fallos: 1 });
        return 1;
      }
      const vencida = t - fila.inicio_ms >= ventanaMs;
      const n = vencida ? 1 : Math.min(fila.fallos + 1, 1_000_000_000);
      fallos.cambiar(direccion, { fallos: n, inicio_ms: vencida ? t : fila.inicio_ms });
      return n;
    },
    async leerFallos(direccion) {
      const fila = fallos.buscar(direccion);
      return fila && { fallos: fila.fallos, inicio: new Date(fila.inicio_ms) };
    },
    async purgarFallosAnterioresA(limite) {
      const viejas = fallos.todas().filter((f) => f.inicio_ms < limite.getTime());
      for (const f of viejas) fallos.borrar(f.id);
      return viejas.length;
    },
  });
}
