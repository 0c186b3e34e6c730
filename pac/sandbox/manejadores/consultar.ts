import { CODIGOS } from '../../finkok/protocolo';
import { campo } from '../../soap/sobre';
import type { AlmacenTimbres } from '../almacen';
import { camposTimbre, soap, type ManejadorSoap } from '../respuesta';
import { decodificarXml, RECHAZO_BASE64 } from '../solicitud';
import { leerComprobante, rechazo } from '../timbrado';

export interface DepsConsultar {
  almacen: AlmacenTimbres;
  fechaLocal: () => string;
}

/** stamped: the stamp of a sealed document sent before (603 when there is none). Never stamps. */
export function crearStamped(d: DepsConsultar): ManejadorSoap {
  const sinTimbre = rechazo(CODIGOS.sinTimbrePrevio);
  return async (s) => {
    const xml = decodificarXml(s.parametros['xml']);
    const leido = xml === null ? RECHAZO_BASE64 : leerComprobante(xml);
    if ('codigo' in leido) return soap(camposTimbre(undefined, [leido], d.fechaLocal()));
    const fila = await d.almacen.porHuellas(leido.huella, leido.huellaSello);
    return soap(camposTimbre(fila, fila ? [] : [sinTimbre], d.fechaLocal()));
  };
}

/** query_pending: a stamp by UUID. The sandbox stamps synchronously, so a known UUID is always final (F). */
export function crearQueryPending(d: Pick<DepsConsultar, 'almacen'>): ManejadorSoap {
  return async (s) => {
    const fila = await d.almacen.porUuid(s.parametros['uuid'] ?? '');
    return soap([
      campo('status', fila ? 'F' : ''),
      campo('xml', fila?.xml_timbrado ?? ''),
      campo('uuid', fila?.uuid ?? ''),
      campo('uuid_status', fila ? 'F' : ''),
      campo('next_attempt', ''),
      campo('attempts', fila ? '1' : '0'),
      campo('error', fila ? '' : 'UUID no encontrado'),
      campo('date', fila?.fecha_timbrado_local ?? ''),
    ]);
  };
}
