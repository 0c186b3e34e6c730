import type { RepositorioCertificados } from '../db/repositorios/certificados';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { AcuseCancelacion, RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioRecibos } from '../db/repositorios/recibos';
import type { RepositorioFacturasGlobales } from '../db/repositorios/facturas-globales';
import type { RepositorioPagos } from '../db/repositorios/pagos';
import type { Transacciones } from '../db/transacciones';
import { alcanceSistema, type Modo } from '../dominio/alcance';
import type { Cancelacion, ErrorTimbrado } from '../dominio/factura';
import type { PuertoPac } from '../pac/puerto';
import { dtoFactura } from '../presentacion/factura';
import type { Boveda } from '../seguridad/boveda';
import { crearAbridorCsd } from './csd';
import { pasoDefinitivo, registroInexistente } from './definitivo';
import type { EntradaTimbrado } from './timbrado';

export type EstadoCancelacion = 'cancelada' | 'en_proceso' | 'rechazada' | 'vencida';

export interface DepsCancelacion {
  facturas: RepositorioFacturas;
  pagos: RepositorioPagos;
  recibos: Pick<RepositorioRecibos, 'liberarDeGlobal'>;
  facturasGlobales: Pick<RepositorioFacturasGlobales, 'obtener'>;
  eventos: RepositorioEventos;
  certificados: RepositorioCertificados;
  transacciones: Transacciones;
  boveda: Boveda;
  pacPara(modo: Modo): Pick<PuertoPac, 'cancelar' | 'estatusSat'>;
}

const CANCELADO = new Set(['Cancelado sin aceptación', 'Cancelado con aceptación', 'Plazo vencido']);

export function crearActividadesCancelacion(d: DepsCancelacion) {
  const abrirCsd = crearAbridorCsd(d.boveda);

  /**
   * Moves the cancellation state (and the invoice, when final) with its event and the PAC's acuse, in one
   * transaction.
   */
  async function registrar(
    e: EntradaTimbrado,
    estado: EstadoCancelacion,
    error?: ErrorTimbrado,
    acuse?: AcuseCancelacion & { reemplazar: boolean },
  ) {
    const a = alcanceSistema(e);
    await d.transacciones.ejecutar(async (tx) => {
      const f = await d.facturas.bloquear(tx, a, e.facturaId);
      const c = f?.cancelacion;
      if (!f || !c || f.estado === 'cancelada' || c.estado === 'rechazada' || c.estado === 'vencida') return;
      const nueva: Cancelacion = {
        ...c,
        estado: estado === 'cancelada' ? 'aceptada' : estado,
        actualizada_en: new Date().toISOString(),
        ...(error ? { error } : {}),
      };
      if (estado === 'en_proceso' && c.estado === 'en_proceso') return;
      await d.facturas.guardarCancelacion(a, e.facturaId, nueva, {
        cancelada: estado === 'cancelada',
        tx,
        acuse,
      });
      // A cancelled payment CFDI gives back what it paid, in the same transaction as the cancellation.
      if (estado === 'cancelada' && f.tipo === 'pago') await d.pagos.revertir(tx, a, e.facturaId);
      // A global invoice cancelled by its issuer (not replaced by the motivo-04 procedure) lets its receipts go
      // back to open, so the next global takes them: no sale is left without a CFDI.
      if (estado === 'cancelada' && f.documento.global) {
        const g = await d.facturasGlobales.obtener(a, e.facturaId, tx);
        if (g && !g.reemplazada_en) await d.recibos.liberarDeGlobal(tx, a, e.facturaId, new Date());
      }
      const factura = dtoFactura((await d.facturas.obtener(a, e.facturaId, tx))!);
      if (estado === 'cancelada') await d.eventos.registrar(tx, a, 'factura.cancelada', factura);
      if (estado === 'rechazada' || estado === 'vencida')
        await d.eventos.registrar(tx, a, 'factura.cancelacion_fallida', factura);
    });
  }

  async function datos(e: EntradaTimbrado) {
    const f = await d.facturas.obtener(alcanceSistema(e), e.facturaId);
    if (!f?.uuid || !f.cancelacion)
      throw registroInexistente(`factura ${e.facturaId} sin UUID o sin cancelación`);
    return { f, doc: f.documento, c: f.cancelacion };
  }

  return {
    /** Sends the cancellation signed with the organization's CSD (the PAC answers 202 to a repeat). */
    async solicitarCancelacion(e: EntradaTimbrado): Promise<EstadoCancelacion> {
      const { f, doc, c } = await datos(e);
      if (f.estado === 'cancelada') return 'cancelada';
      const cert = await d.certificados.activoConSecretos(alcanceSistema(e), f.organizacion_id);
      if (!cert) {
        const error = {
          codigo: 'sin_certificado_activo',
          mensaje: 'La organización no tiene un CSD activo para firmar la cancelación.',
        };
        await registrar(e, 'rechazada', error);
        return 'rechazada';
      }
      const csd = pasoDefinitivo('csd_no_abre', 'No se pudo abrir el CSD para firmar la cancelación', () =>
        abrirCsd(e, cert),
      );
      if (!csd.ok) {
        await registrar(e, 'rechazada', csd.error);
        return 'rechazada';
      }
      const { llave } = csd.valor;
      const r = await d.pacPara(e.modo).cancelar({
        rfcEmisor: doc.entrada.emisor.rfc,
        rfcReceptor: doc.entrada.receptor.rfc,
        uuid: f.uuid!,
        motivo: c.motivo,
        folioSustitucion: c.uuid_sustitucion ?? undefined,
        total: doc.importes.total,
        firma: { cer: cert.cer, llave },
      });
      if (r.tipo === 'rechazada') {
        await registrar(e, 'rechazada', { codigo: r.codigo, mensaje: r.mensaje });
        return 'rechazada';
      }
      const estado: EstadoCancelacion = CANCELADO.has(r.estatusCancelacion) ? 'cancelada' : 'en_proceso';
      // The first acuse is the evidence of when the request was made: a repeat (202, "requested before") never
      // replaces it. A 201 is a request the SAT took as new (the earlier one was rejected): its acuse does.
      const acuse = r.acuse.trim()
        ? { xml: r.acuse, fecha: r.fecha, reemplazar: r.estatusUuid === '201' }
        : undefined;
      await registrar(e, estado, undefined, acuse);
      return estado;
    },

    /** Asks the SAT (through the PAC) where a cancellation awaiting the receiver stands. */
    async consultarCancelacion(e: EntradaTimbrado): Promise<EstadoCancelacion> {
      const { f, doc } = await datos(e);
      const s = await d.pacPara(e.modo).estatusSat({
        rfcEmisor: doc.entrada.emisor.rfc,
        rfcReceptor: doc.entrada.receptor.rfc,
        total: doc.importes.total,
        uuid: f.uuid!,
      });
      if (s.estado === 'Cancelado' || CANCELADO.has(s.estatusCancelacion)) {
        await registrar(e, 'cancelada');
        return 'cancelada';
      }
      if (s.estatusCancelacion === 'Solicitud rechazada') {
        const error = { codigo: 'solicitud_rechazada', mensaje: 'El receptor rechazó la cancelación.' };
        await registrar(e, 'rechazada', error);
        return 'rechazada';
      }
      return 'en_proceso';
    },

    /** The tracking window ran out with the receiver still silent: the invoice stays stamped, as it is. */
    async vencerCancelacion(e: EntradaTimbrado): Promise<EstadoCancelacion> {
      await registrar(e, 'vencida', {
        codigo: 'cancelacion_vencida',
        mensaje:
          'No hubo respuesta final del SAT dentro del plazo de seguimiento: la factura sigue timbrada; puede solicitar la cancelación de nuevo.',
      });
      return 'vencida';
    },
  };
}
