import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';
import type { Timbrador } from '../servicios/facturas';
import { esperarTimbrado, type timbrarFacturaV3 } from '../workflows/timbrado';
import { abandonarTimbrado, reintentarAhora } from '../workflows/pasos';
import { temporalNoDisponible } from './historias';
import { pedirPdf } from './pdf';
import { idPago, inicioPago } from './registrador-pagos';
import { ATRIBUTOS, atributosFactura } from '../workflows/atributos';
import { esperarPago } from '../workflows/pago';
import { iniciarOUnirse, type InicioProceso } from './espera';

export const idTimbrado = (facturaId: string) => `timbrado:${facturaId}`;

/** How long an abandon may wait on Temporal to learn which run it is stopping. */
const ESPERA_DESCRIBIR_MS = 5000;

/** The stamping workflow of an invoice, as the API and the start reconciler both start it. */
export function inicioTimbrado(
  taskQueue: string,
  a: Pick<Alcance, 'cuentaId' | 'modo' | 'origen'>,
  factura: { id: string; organizacionId: string },
): InicioProceso<typeof timbrarFacturaV3> {
  return {
    tipo: 'timbrarFacturaV3',
    workflowId: idTimbrado(factura.id),
    taskQueue,
    entrada: { facturaId: factura.id, cuentaId: a.cuentaId, modo: a.modo, origen: a.origen },
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
  /**
   * A payment whose workflow is gone with its CFDI still pending (the start reconciler restarts only payments
   * still `registrando`): a new run, whose ledger step finds the payment registered, with the paid invoices
   * its last run carried.
   */
  async function reanudarPago(a: Alcance, pagoId: string, organizacionId: string) {
    const anterior = await d.cliente.workflow
      .getHandle(idPago(pagoId))
      .describe()
      .catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      });
    const facturas = anterior?.typedSearchAttributes.get(ATRIBUTOS.FacturasPagadas) ?? [];
    await iniciarOUnirse(d.cliente, {
      ...inicioPago(d.taskQueue, a, { id: pagoId, organizacionId, facturas }),
      espera: esperarPago,
      esperaMs: d.esperaMs,
    });
  }

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
      let cerrado = false;
      try {
        await d.cliente.workflow.getHandle(id).executeUpdate(reintentarAhora);
      } catch (err) {
        // Closed (an operator terminated it) or never started: started again below, on the current type; the
        // new run finds the sealed XML and asks the PAC for its stamp before sending it.
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        cerrado = true;
      }
      if (!factura.pagoId) await this.timbrar(a, factura);
      else if (cerrado) await reanudarPago(a, factura.pagoId, factura.organizacionId);
    },
    async abandonar(a, factura) {
      const h = d.cliente.workflow.getHandle(idTimbrado(factura.id));
      const actual = await d.cliente
        .withDeadline(Date.now() + ESPERA_DESCRIBIR_MS, () => h.describe())
        .catch((err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return undefined;
          throw temporalNoDisponible();
        });
      // Only timbrarFacturaV3 knows the abandon; an older type's run still retrying must end first.
      if (actual?.status.name === 'RUNNING' && actual.type !== 'timbrarFacturaV3') {
        throw new ErrorNegocio(
          'conflicto',
          'timbrado_no_abandonable',
          `El timbrado de la factura ${factura.id} corre en una versión anterior del workflow (${actual.type}), que no sabe abandonarse: termínelo en Temporal (Terminate) y pida el abandono otra vez.`,
          'id',
        );
      }
      const solicitud = { origen: a.origen };
      const inicio = inicioTimbrado(d.taskQueue, a, factura);
      // Running: the update stops it. Gone (terminated): a run that only records the abandon.
      await iniciarOUnirse(d.cliente, {
        ...inicio,
        entrada: { ...inicio.entrada, abandono: solicitud },
        espera: abandonarTimbrado,
        argumentos: [solicitud],
        esperaMs: d.esperaMs,
      });
    },
    async pedirPdf(a, facturaId) {
      await pedirPdf({ cliente: d.cliente, taskQueue: d.taskQueue, esperaMs: d.pdfEsperaMs }, a, facturaId);
    },
  };
}
