import { heartbeat, sleep } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { RepositorioFacturas } from '../db/repositorios/facturas';
import { alcanceSistema, type Alcance, type Modo } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';

/** A claim's workflow carries ids only: the receipt, its buyer's invoice, the account and mode. */
export interface EntradaReexpedicion {
  reciboId: string;
  facturaId: string;
  cuentaId: string;
  modo: Modo;
}

/** What a replacement did (servicios/facturas-globales): the global left, and its reissue if any. */
export interface Reexpedicion {
  anterior: string;
  nueva: string | null;
}

/**
 * The global-invoice rules the activities run, implemented by the service (the worker's composition passes it):
 * activities hold no business rule of their own, only the order and the waiting.
 */
export interface PuertoGlobales {
  emitirProgramada(a: Alcance, organizacionId: string): Promise<string[]>;
  excluirReclamo(a: Alcance, reciboId: string): Promise<Reexpedicion | undefined>;
  deshacerReexpedicion(a: Alcance, x: Reexpedicion): Promise<void>;
  cancelarReemplazada(a: Alcance, globalId: string): Promise<unknown>;
}

export interface DepsGlobales {
  globales: PuertoGlobales;
  facturas: Pick<RepositorioFacturas, 'obtener'>;
  /** Between two looks at an invoice still on its way (tests shorten it). */
  esperaEstadoMs?: number;
}

/** Looks inside one attempt before Temporal's retry (with its backoff) takes over: under a minute of waiting. */
const VUELTAS = 40;

export function crearActividadesGlobales(d: DepsGlobales) {
  const espera = d.esperaEstadoMs ?? 1000;

  /** Polls the invoice until `final` says it is done; an attempt that runs out is retried by Temporal. */
  async function esperarFactura<T>(
    a: Alcance,
    facturaId: string,
    final: (f: NonNullable<Awaited<ReturnType<RepositorioFacturas['obtener']>>>) => T | undefined,
    que: string,
  ): Promise<T> {
    for (let i = 0; i < VUELTAS; i++) {
      const f = await d.facturas.obtener(a, facturaId);
      if (!f)
        throw ApplicationFailure.nonRetryable(`La factura ${facturaId} no existe.`, 'registro_inexistente');
      const r = final(f);
      if (r !== undefined) return r;
      heartbeat();
      await sleep(espera);
    }
    throw ApplicationFailure.retryable(`${que} de ${facturaId} sigue en curso.`, 'en_curso');
  }

  return {
    /** The schedule's run: the global invoices of the organization's period that closed last. */
    async emitirGlobalProgramada(e: {
      cuentaId: string;
      modo: Modo;
      organizacionId: string;
    }): Promise<string[]> {
      try {
        return await d.globales.emitirProgramada(alcanceSistema(e), e.organizacionId);
      } catch (err) {
        // A rule the request breaks (no certificate, a period refused) will not change by retrying this run;
        // the next period's run tries again.
        if (err instanceof ErrorNegocio && err.tipo !== 'servicio_no_disponible') {
          throw ApplicationFailure.nonRetryable(err.message, err.codigo);
        }
        throw err;
      }
    },

    /** `timbrada` or `fallido`, once the invoice's stamping workflow has decided. */
    esperarTimbradoFinal: (e: { cuentaId: string; modo: Modo; facturaId: string }) =>
      esperarFactura(
        alcanceSistema(e),
        e.facturaId,
        (f) =>
          f.timbrado_estado === 'timbrada' || f.timbrado_estado === 'fallido' ? f.timbrado_estado : undefined,
        'El timbrado',
      ),

    excluirDeGlobal: (e: EntradaReexpedicion) => d.globales.excluirReclamo(alcanceSistema(e), e.reciboId),

    deshacerReexpedicion: (e: EntradaReexpedicion, x: Reexpedicion) =>
      d.globales.deshacerReexpedicion(alcanceSistema(e), x),

    async cancelarGlobalReemplazada(e: EntradaReexpedicion, globalId: string): Promise<void> {
      await d.globales.cancelarReemplazada(alcanceSistema(e), globalId);
    },

    /** `cancelada`, or how the cancellation ended without cancelling (rechazada, vencida). */
    esperarCancelacionFinal: (e: { cuentaId: string; modo: Modo; facturaId: string }) =>
      esperarFactura(
        alcanceSistema(e),
        e.facturaId,
        (f) => {
          if (f.estado === 'cancelada') return 'cancelada';
          const c = f.cancelacion?.estado;
          return c === 'rechazada' || c === 'vencida' ? c : undefined;
        },
        'La cancelación',
      ),
  };
}
