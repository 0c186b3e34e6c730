import { randomUUID } from 'node:crypto';
import type { RepositorioFacturas } from '../../../db/repositorios/facturas';
import type { Transacciones } from '../../../db/transacciones';
import type { Alcance, Modo } from '../../../dominio/alcance';
import { ErrorNegocio } from '../../../dominio/errores';
import type { ErrorTimbrado } from '../../../dominio/factura';
import type { Cancelador, Timbrador } from '../../../servicios/facturas';
import { crearGuion } from './guion';

/*
 * The Timbrador and Cancelador ports without Temporal: each call is recorded, and the workflow's outcome
 * within the bounded wait is simulated by writing it through the invoice repository.
 */

interface Llamada {
  alcance: Alcance;
  factura: { id: string; organizacionId: string; pagoId?: string };
}

interface Puertos {
  facturas: RepositorioFacturas;
  transacciones: Transacciones;
}

/** `pendiente`: the workflow goes on after the wait, nothing written yet. */
export type DesenlaceTimbrado = 'timbrada' | 'pendiente' | { rechazo: ErrorTimbrado };

export function crearTimbradorEnMemoria(p: Puertos, o: { sinPacEn?: Modo[] } = {}) {
  const llamadas: Llamada[] = [];
  const desenlaces = crearGuion<DesenlaceTimbrado>(() => 'timbrada');
  const reintentos: Llamada[] = [];
  const abandonos: Llamada[] = [];
  const desenlacesAbandono = crearGuion<'fallido' | 'timbrada' | 'pendiente'>(() => 'fallido');
  const pdfsPedidos: { alcance: Alcance; facturaId: string }[] = [];
  // `true`: the render outlasts the API's wait (the PDF queue is stopped), nothing is stored.
  const pdf = { tarda: false };
  /** What the stamping ends with this time: written as the workflow would, or nothing yet. */
  const aplicar = async (alcance: Llamada['alcance'], factura: Llamada['factura']) => {
    const d = desenlaces.siguiente();
    if (d === 'pendiente') return;
    await p.transacciones.ejecutar((tx) =>
      d === 'timbrada'
        ? p.facturas.guardarTimbre(tx, alcance, factura.id, {
            uuid: randomUUID(),
            xml: '<cfdi:Comprobante/>',
            fechaTimbrado: '2025-06-01T06:00:05',
            noCertificadoSat: '30001000000500003456',
          })
        : p.facturas.guardarRechazo(tx, alcance, factura.id, d.rechazo),
    );
  };
  const timbrador: Timbrador = {
    exigirDisponible(a) {
      if (o.sinPacEn?.includes(a.modo))
        throw new ErrorNegocio('servicio_no_disponible', 'pac_no_disponible', `Sin PAC en modo ${a.modo}.`);
    },
    async timbrar(alcance, factura) {
      llamadas.push({ alcance, factura });
      await aplicar(alcance, factura);
    },
    async reintentar(alcance, factura) {
      reintentos.push({ alcance, factura });
      await aplicar(alcance, factura);
    },
    // The abandon's outcome, as the workflow's activity records it: `fallido` unless scripted otherwise.
    async abandonar(alcance, factura) {
      abandonos.push({ alcance, factura });
      const d = desenlacesAbandono.siguiente();
      if (d === 'pendiente') return;
      await p.transacciones.ejecutar((tx) =>
        d === 'timbrada'
          ? p.facturas.guardarTimbre(tx, alcance, factura.id, {
              uuid: randomUUID(),
              xml: '<cfdi:Comprobante/>',
              fechaTimbrado: '2025-06-01T06:00:05',
              noCertificadoSat: '30001000000500003456',
            })
          : p.facturas.guardarRechazo(tx, alcance, factura.id, {
              codigo: 'timbrado_abandonado',
              mensaje: 'El timbrado se abandonó.',
              paso: 'pac',
            }),
      );
    },
    // The rendering workflow's outcome: a PDF stored for the invoice, as the PDF worker would.
    async pedirPdf(alcance, facturaId) {
      pdfsPedidos.push({ alcance, facturaId });
      if (!pdf.tarda) await p.facturas.guardarPdf(alcance, facturaId, Buffer.from(`%PDF-1.7 ${facturaId}`));
    },
  };
  return {
    ...timbrador,
    llamadas,
    reintentos,
    abandonos,
    pdfsPedidos,
    pdf,
    desenlace: desenlaces.poner,
    desenlaceAbandono: desenlacesAbandono.poner,
  };
}

/** `sin_respuesta`: the PAC has not answered within the wait; the cancellation stays `solicitada`. */
export type DesenlaceCancelacion = 'aceptada' | 'en_proceso' | 'sin_respuesta' | { rechazo: ErrorTimbrado };

export function crearCanceladorEnMemoria(p: Puertos) {
  const llamadas: Llamada[] = [];
  const reintentos: Llamada[] = [];
  const desenlaces = crearGuion<DesenlaceCancelacion>(() => 'aceptada');
  const cancelador: Cancelador = {
    // The workflow's retry-now, then its answer as `cancelar` would give it.
    async reintentar(alcance, factura) {
      reintentos.push({ alcance, factura });
      await cancelador.cancelar(alcance, factura);
    },
    async cancelar(alcance, factura) {
      llamadas.push({ alcance, factura });
      const d = desenlaces.siguiente();
      const c = (await p.facturas.obtener(alcance, factura.id))?.cancelacion;
      if (d === 'sin_respuesta' || !c) return;
      const actualizada_en = new Date().toISOString();
      if (typeof d === 'object') {
        await p.facturas.guardarCancelacion(alcance, factura.id, {
          ...c,
          estado: 'rechazada',
          error: d.rechazo,
          actualizada_en,
        });
      } else {
        await p.facturas.guardarCancelacion(
          alcance,
          factura.id,
          { ...c, estado: d, actualizada_en },
          { cancelada: d === 'aceptada' },
        );
      }
    },
  };
  return { ...cancelador, llamadas, reintentos, desenlace: desenlaces.poner };
}
