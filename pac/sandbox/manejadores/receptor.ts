import type { Logger } from '../../../log/logger';
import { comoCancelable, type AlmacenTimbres } from '../almacen';
import { responderSolicitud, type Reloj } from '../reglas-cancelacion';
import { estadoAlDia } from './estado';

export interface DepsReceptor {
  almacen: AlmacenTimbres;
  reloj: () => Reloj;
  logger: Logger;
}

export type RespuestaReceptor = 'aceptar' | 'rechazar';

/** An HTTP answer of the test controls: status and JSON body. */
export interface RespuestaControl {
  estado: number;
  cuerpo: Record<string, unknown>;
}

/**
 * The receiver's answer to a pending cancellation (the Buzón Tributario of the real SAT), driven by
 * POST /sandbox/cancelaciones/{uuid}/aceptar|rechazar. 404 for an unknown UUID, 409 with nothing pending.
 */
export function crearRespuestaReceptor(d: DepsReceptor) {
  return async (uuidPedido: string, respuesta: RespuestaReceptor): Promise<RespuestaControl> => {
    const uuid = uuidPedido.toUpperCase();
    const fila = await d.almacen.porUuid(uuid);
    if (!fila) return { estado: 404, cuerpo: { error: `no hay un CFDI timbrado con UUID ${uuid}` } };
    const actual = await estadoAlDia(d.almacen, fila, d.reloj());
    const nuevo = responderSolicitud({ ...comoCancelable(fila), ...actual }, d.reloj(), respuesta);
    const escrito = nuevo !== null && (await d.almacen.cambiarEstado(uuid, actual, nuevo));
    if (!nuevo || !escrito) {
      return {
        estado: 409,
        cuerpo: {
          error: 'el CFDI no tiene una solicitud de cancelación en proceso',
          uuid,
          estado: actual.estado,
          estatus_cancelacion: actual.estatusCancelacion,
        },
      };
    }
    d.logger.info(
      { uuid, respuesta, estatus: nuevo.estatusCancelacion },
      'PAC sandbox: respuesta del receptor',
    );
    return {
      estado: 200,
      cuerpo: { uuid, estado: nuevo.estado, estatus_cancelacion: nuevo.estatusCancelacion },
    };
  };
}
