import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { Alcance } from '../api/alcance';
import { construirComprobante } from '../cfdi/comprobante/construir';
import { sellarComprobante } from '../cfdi/comprobante/sellar';
import { fechaCfdi } from '../cfdi/fecha';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import { validarComprobante } from '../cfdi/validacion';
import type { RepositorioCertificados } from '../db/repositorios/certificados';
import { esDuplicado } from '../db/repositorios/con-alcance';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import { json, type RepositorioFacturas } from '../db/repositorios/facturas';
import type { PuertoPac, TimbreObtenido } from '../pac/puerto';
import type { Boveda } from '../seguridad/boveda';
import type { DocumentoFactura } from '../servicios/facturas/documento';
import { dtoFactura } from '../servicios/facturas/dto';
import { crearAbridorCsd } from './csd';

/** What the workflow passes around: ids only, never XML, PDFs or secrets. */
export interface EntradaTimbrado {
  facturaId: string;
  cuentaId: string;
  modo: 'test' | 'live';
}

export interface ErrorTimbrado {
  codigo: string;
  mensaje: string;
}

export type Paso = { estado: 'listo' | 'timbrada' } | { estado: 'rechazado'; error: ErrorTimbrado };

/** The part of the PAC port stamping needs. */
export type PacTimbrado = Pick<PuertoPac, 'timbrar' | 'consultarTimbre'>;

export interface DepsTimbrado {
  db: Knex;
  facturas: RepositorioFacturas;
  eventos: RepositorioEventos;
  certificados: RepositorioCertificados;
  boveda: Boveda;
  catalogos: ConsultaCatalogos;
  /** Test mode stamps with the sandbox PAC, live mode with the real one. */
  pacPara(modo: 'test' | 'live'): PacTimbrado;
  ahora?: () => Date;
}

const alcanceDe = (e: EntradaTimbrado): Alcance => ({
  cuentaId: e.cuentaId,
  modo: e.modo,
  llaveId: 'worker',
});

export function crearActividadesTimbrado(d: DepsTimbrado) {
  const ahora = d.ahora ?? (() => new Date());
  const abrirCsd = crearAbridorCsd(d.boveda);

  async function cargar(e: EntradaTimbrado) {
    const f = await d.facturas.obtener(alcanceDe(e), e.facturaId);
    // The workflow only exists for invoices the API created: a missing one is a bug, not a retryable state.
    if (!f) throw new Error(`factura ${e.facturaId} inexistente`);
    return f;
  }

  /**
   * Writes the stamp and its event in one transaction; a second call for the same invoice changes nothing.
   * A UUID that already belongs to another invoice means the PAC saw a duplicate document (same content
   * and second): a definitive answer, reported as a rejection instead of failing forever.
   */
  async function registrarTimbre(e: EntradaTimbrado, t: TimbreObtenido): Promise<Paso> {
    try {
      await guardarTimbre(e, t);
      return { estado: 'timbrada' };
    } catch (err) {
      if (!esDuplicado(err)) throw err;
      return {
        estado: 'rechazado',
        error: {
          codigo: 'cfdi_duplicado',
          mensaje: `El PAC reconoció este CFDI como el ya timbrado con UUID ${t.uuid} (mismo contenido y fecha): use un folio distinto.`,
        },
      };
    }
  }

  async function guardarTimbre(e: EntradaTimbrado, t: TimbreObtenido): Promise<void> {
    const a = alcanceDe(e);
    await d.db.transaction(async (trx) => {
      const f = await d.facturas.bloquear(trx, a, e.facturaId);
      if (!f || f.estado !== 'borrador' || f.timbrado_estado === 'timbrada') return;
      await d.facturas.actualizar(trx, a, e.facturaId, {
        estado: 'timbrada',
        uuid: t.uuid.toUpperCase(),
        xml_timbrado: t.xml,
        fecha_timbrado: t.fechaTimbrado,
        no_certificado_sat: t.noCertificadoSat,
        timbrado_estado: 'timbrada',
        timbrado_error: null,
      });
      const timbrada = dtoFactura((await d.facturas.obtener(a, e.facturaId, trx))!);
      await d.eventos.registrar(trx, a, 'factura.timbrada', timbrada);
    });
  }

  return {
    /**
     * Builds and seals the CFDI once (the sealed XML is kept, so every retry sends the same bytes) and runs
     * every locally checkable SAT rule: an invoice the PAC would reject never reaches it.
     */
    async prepararTimbrado(e: EntradaTimbrado): Promise<Paso> {
      const f = await cargar(e);
      if (f.estado !== 'borrador' || f.timbrado_estado === 'timbrada') return { estado: 'timbrada' };
      const sellado = await d.facturas.xml(alcanceDe(e), e.facturaId);
      if (sellado?.sellado) return { estado: 'listo' };

      const a = alcanceDe(e);
      const cert = await d.certificados.activoConSecretos(a, f.organizacion_id);
      if (!cert) {
        return {
          estado: 'rechazado',
          error: {
            codigo: 'sin_certificado_activo',
            mensaje:
              'La organización no tiene un certificado (CSD) activo: súbalo con POST /v1/certificados.',
          },
        };
      }
      const { llave, certificado } = abrirCsd(e, cert);

      const doc = json<DocumentoFactura>(f.documento)!;
      const entrada = {
        ...doc.entrada,
        fecha: fechaCfdi(ahora(), doc.huso_horario),
        no_certificado: certificado.noCertificado,
        certificado: certificado.certificadoBase64,
      };
      const { nodo } = construirComprobante(entrada);
      const [violacion] = validarComprobante(nodo, d.catalogos, { ahora: ahora() });
      if (violacion) {
        return {
          estado: 'rechazado',
          error: { codigo: violacion.sat ?? violacion.codigo, mensaje: violacion.mensaje },
        };
      }
      const { xml } = sellarComprobante(nodo, llave);
      // Only the first sealing wins: a concurrent retry reuses it instead of sealing another Fecha.
      await d
        .db('facturas')
        .where({ id: e.facturaId, cuenta_id: e.cuentaId, modo: e.modo })
        .whereNull('xml_sellado')
        .update({
          xml_sellado: xml,
          no_certificado: certificado.noCertificado,
          documento: JSON.stringify({ ...doc, entrada: { ...doc.entrada, fecha: entrada.fecha } }),
          actualizado_en: new Date(),
        });
      return { estado: 'listo' };
    },

    /**
     * Sends the sealed XML to the PAC. Exactly once: when an earlier attempt was counted, this one first asks
     * the PAC whether that exact XML was already stamped (a lost answer), and the PAC itself answers a
     * repeated stamp with the original one.
     * Transport failures throw, so Temporal retries with backoff; a rejection is an answer, not a failure.
     */
    async enviarAlPac(e: EntradaTimbrado): Promise<Paso> {
      const a = alcanceDe(e);
      const f = await cargar(e);
      if (f.estado !== 'borrador' || f.timbrado_estado === 'timbrada') return { estado: 'timbrada' };
      const xml = (await d.facturas.xml(a, e.facturaId))?.sellado;
      if (!xml) throw new Error(`factura ${e.facturaId} sin XML sellado`);
      await d.facturas.actualizar(d.db, a, e.facturaId, { timbrado_intentos: f.timbrado_intentos + 1 });
      const pac = d.pacPara(e.modo);
      const ctx = Context.current();
      // Heartbeats while the PAC works: a worker that dies mid-call is noticed in seconds, not at the timeout.
      // (A local activity has none: its workflow task's timeout covers it.)
      const latido = ctx.info.isLocal ? undefined : setInterval(() => ctx.heartbeat(), 1000);
      try {
        // Any earlier attempt (local or not, in this worker or a dead one) may have reached the PAC.
        if (f.timbrado_intentos > 0) {
          const previo = await pac.consultarTimbre(xml);
          if (previo.tipo === 'timbrado') return registrarTimbre(e, previo);
        }
        const r = await pac.timbrar(xml);
        if (r.tipo === 'rechazado') {
          return { estado: 'rechazado', error: { codigo: r.codigo, mensaje: r.mensaje } };
        }
        return registrarTimbre(e, r);
      } finally {
        if (latido) clearInterval(latido);
      }
    },

    /** A definitive rejection: the invoice stays a draft with the error, and the sealed XML is dropped. */
    async registrarRechazo(e: EntradaTimbrado, error: ErrorTimbrado): Promise<void> {
      const a = alcanceDe(e);
      await d.db.transaction(async (trx) => {
        const f = await d.facturas.bloquear(trx, a, e.facturaId);
        if (!f || f.timbrado_estado !== 'pendiente') return;
        // Never stamped, so safe to seal again (with a fresh Fecha) if the draft is stamped later.
        await d.facturas.actualizar(trx, a, e.facturaId, {
          timbrado_estado: 'fallido',
          timbrado_error: JSON.stringify(error),
          xml_sellado: null,
        });
        const factura = dtoFactura((await d.facturas.obtener(a, e.facturaId, trx))!);
        await d.eventos.registrar(trx, a, 'factura.timbrado_fallido', { ...error, factura });
      });
    },
  };
}
