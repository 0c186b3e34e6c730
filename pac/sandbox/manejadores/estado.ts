import type { AlmacenTimbres, FilaTimbre } from '../almacen';
import { comoCancelable } from '../almacen';
import { estadoVigente, type EstadoCancelacion, type Reloj } from '../reglas-cancelacion';

export const estadoDe = (f: FilaTimbre): EstadoCancelacion => ({
  estado: f.estado,
  estatusCancelacion: f.estatus_cancelacion,
});

/**
 * The cancellation state now, writing down a term that ran out while nobody asked, so every later reader
 * (cancel_signature, get_sat_status, the receiver) starts from the same row.
 */
export async function estadoAlDia(
  almacen: AlmacenTimbres,
  fila: FilaTimbre,
  r: Reloj,
): Promise<EstadoCancelacion> {
  const actual = estadoVigente(comoCancelable(fila), r);
  if (actual.estado !== fila.estado || actual.estatusCancelacion !== fila.estatus_cancelacion) {
    await almacen.cambiarEstado(fila.uuid, estadoDe(fila), actual);
  }
  return actual;
}
