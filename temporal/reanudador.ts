import type { Client } from '@temporalio/client';
import type { ProcesoPendiente, RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioPagos } from '../db/repositorios/pagos';
import type { RepositorioOrganizaciones } from '../db/repositorios/organizaciones';
import type { RepositorioRecibos } from '../db/repositorios/recibos';
import type { ProgramadorGlobal } from '../servicios/organizaciones';
import { inicioReexpedicion } from './reexpedidor';
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
  recibos: Pick<RepositorioRecibos, 'reclamosPendientes'>;
  organizaciones: Pick<RepositorioOrganizaciones, 'programacionesPendientes' | 'marcarSincronizada'>;
  programador: ProgramadorGlobal;
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
      const [{ timbrados, cancelaciones }, pagos, reclamos, programaciones] = await Promise.all([
        o.facturas.procesosPendientes(antesDe, lote),
        o.pagos.registrosPendientes(antesDe, lote),
        o.recibos.reclamosPendientes(antesDe, lote),
        o.organizaciones.programacionesPendientes(antesDe, lote),
      ]);
      const alcance = (p: Pick<ProcesoPendiente, 'cuenta_id' | 'modo'>) => ({
        cuentaId: p.cuenta_id,
        modo: p.modo,
      });
      // Schedules whose setting changed while Temporal did not answer the API.
      for (const p of programaciones) {
        await o.programador.sincronizar(p);
        await o.organizaciones.marcarSincronizada(alcance(p), p.id, p.actualizado_en);
      }
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
        ...reclamos.map((r) =>
          inicioReexpedicion(o.taskQueue, alcance(r), {
            id: r.id,
            facturaId: r.factura_id,
            globalId: r.factura_global_id,
            organizacionId: r.organizacion_id,
          }),
        ),
      ];
      // One at a time: after an outage this runs beside the recovering traffic, not ahead of it.
      for (const inicio of inicios) await asegurarIniciado(o.cliente, inicio);
      if (inicios.length) {
        o.logger.info(
          {
            timbrados: timbrados.length,
            cancelaciones: cancelaciones.length,
            pagos: pagos.length,
            reclamos: reclamos.length,
          },
          'operaciones pendientes con su workflow asegurado',
        );
      }
      return inicios.length + programaciones.length;
    },
  };
}

export type Reanudador = ReturnType<typeof crearReanudador>;
