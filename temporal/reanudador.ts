import type { Client } from '@temporalio/client';
import type { ProcesoPendiente, RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioPagos } from '../db/repositorios/pagos';
import type { Logger } from '../log/logger';
import { inicioCancelacion, type SondeoCancelacion } from './cancelador';
import { asegurarIniciado, type InicioProceso } from './espera';
import { inicioPago } from './registrador-pagos';
import { inicioTimbrado } from './timbrador';

export interface OpcionesReanudador {
  cliente: Client;
  taskQueue: string;
  facturas: Pick<RepositorioFacturas, 'procesosPendientes'>;
  pagos: Pick<RepositorioPagos, 'registrosPendientes'>;
  cancelacion: SondeoCancelacion;
  logger: Logger;
  /** An operation untouched for less than this is left to the request that started it (default 1 minute). */
  graciaMs?: number;
  /** At most this many of each kind per run (default 200): the next run takes the rest. */
  lote?: number;
  ahora?: () => Date;
}

/**
 * The start reconciler. The API commits an operation (stamping, cancellation, payment) and then starts its
 * workflow; if Temporal was unreachable for longer than the client's retries, the commit stands and no workflow
 * exists. Run by a schedule every minute, this starts the workflow of every operation MySQL says is still
 * waiting, or joins the one already running (ids are business keys), so nothing accepted is left behind.
 */
export function crearReanudador(o: OpcionesReanudador) {
  return {
    async reanudarPendientes(): Promise<number> {
      const antesDe = new Date((o.ahora?.() ?? new Date()).getTime() - (o.graciaMs ?? 60_000));
      const lote = o.lote ?? 200;
      const [{ timbrados, cancelaciones }, pagos] = await Promise.all([
        o.facturas.procesosPendientes(antesDe, lote),
        o.pagos.registrosPendientes(antesDe, lote),
      ]);
      const alcance = (p: ProcesoPendiente) => ({
        cuentaId: p.cuenta_id,
        modo: p.modo,
      });
      // Each typed by its own starter; together, starts by name.
      const inicios: InicioProceso[] = [
        ...timbrados.map((f) =>
          inicioTimbrado(o.taskQueue, alcance(f), { id: f.id, organizacionId: f.organizacion_id }),
        ),
        ...cancelaciones.map((f) =>
          inicioCancelacion(
            o.taskQueue,
            alcance(f),
            { id: f.id, organizacionId: f.organizacion_id },
            o.cancelacion,
          ),
        ),
        ...pagos.map((p) =>
          inicioPago(o.taskQueue, alcance(p), {
            id: p.id,
            organizacionId: p.organizacion_id,
            facturas: p.facturas,
          }),
        ),
      ];
      // One at a time: after an outage this runs beside the recovering traffic, not ahead of it.
      for (const inicio of inicios) await asegurarIniciado(o.cliente, inicio);
      if (inicios.length) {
        o.logger.info(
          { timbrados: timbrados.length, cancelaciones: cancelaciones.length, pagos: pagos.length },
          'operaciones pendientes con su workflow asegurado',
        );
      }
      return inicios.length;
    },
  };
}

export type Reanudador = ReturnType<typeof crearReanudador>;
