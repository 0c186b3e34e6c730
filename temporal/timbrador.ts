import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';
import type { Timbrador } from '../servicios/facturas';
import type { EntradaTimbrado } from '../activities/timbrado';
import { esperarTimbrado } from '../workflows/timbrado';
import { reintentarAhora } from '../workflows/pasos';
import { pedirPdf } from './pdf';
import { idPago } from './registrador-pagos';
import { atributosFactura } from '../workflows/atributos';
import { iniciarOUnirse, type InicioProceso } from './espera';

export const idTimbrado = (facturaId: string) => `timbrado:${facturaId}`;

/** The stamping workflow of an invoice, as the API and the start reconciler both start it. */
export function inicioTimbrado(
  taskQueue: string,
  a: Pick<Alcance, 'cuentaId' | 'modo' | 'origen'>,
  factura: { id: string; organizacionId: string },
): InicioProceso {
  const entrada: EntradaTimbrado = {
    facturaId: factura.id,
    cuentaId: a.cuentaId,
    modo: a.modo,
    origen: a.origen,
  };
  return {
    tipo: 'timbrarFacturaV2',
    workflowId: idTimbrado(factura.id),
    taskQueue,
    entrada,
    resumen: `Timbrado de la factura ${factura.id}`,
    atributos: atributosFactura(a, factura, 'timbrando'),
  };
}

/**
 * Stamping through Temporal: Update-With-Start on the invoice's own workflow id, so concurrent or repeated
 * requests join the one execution instead of starting another; the caller waits at most `esperaMs`.
 */
export function crearTimbradorTemporal(d: {
  cliente: Client;
  taskQueue: string;
  esperaMs: number;
  /** How long a read of a PDF not stored yet waits for its render (`PDF_ESPERA_MS`). */
  pdfEsperaMs: number;
  pacLiveConfigurado: boolean;
}): Timbrador {
  return {
    exigirDisponible(a: Alcance) {
      if (a.modo === 'live' && !d.pacLiveConfigurado) {
        throw new ErrorNegocio(
          'servicio_no_disponible',
          'pac_no_disponible',
          'El timbrado en modo live no está disponible: el servicio no tiene configurado un PAC real.',
        );
      }
    },
    async timbrar(a, factura) {
      await iniciarOUnirse(d.cliente, {
        ...inicioTimbrado(d.taskQueue, a, factura),
        espera: esperarTimbrado,
        esperaMs: d.esperaMs,
      });
    },
    async reintentar(a, factura) {
      const id = factura.pagoId ? idPago(factura.pagoId) : idTimbrado(factura.id);
      try {
        await d.cliente.workflow.getHandle(id).executeUpdate(reintentarAhora);
      } catch (err) {
        // Closed or never started: the start below (or the payment's start reconciler) runs it again.
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
      if (!factura.pagoId) await this.timbrar(a, factura);
    },
    async pedirPdf(a, facturaId) {
      await pedirPdf({ cliente: d.cliente, taskQueue: d.taskQueue, esperaMs: d.pdfEsperaMs }, a, facturaId);
    },
  };
}
