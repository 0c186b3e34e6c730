import { Context } from '@temporalio/activity';
import { esUsuario } from '../dominio/usuario';
import { sellarComprobante } from '../cfdi/comprobante/sellar';
import { fechaCfdi } from '../cfdi/fecha';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import { validarComprobante } from '../cfdi/validacion';
import type { RepositorioCertificados } from '../db/repositorios/certificados';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { FilaFactura, RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioRecibos } from '../db/repositorios/recibos';
import type { RepositorioFacturasGlobales } from '../db/repositorios/facturas-globales';
import type { RepositorioPagos } from '../db/repositorios/pagos';
import type { Transacciones } from '../db/transacciones';
import { alcanceSistema, type Alcance, type Modo, type Origen } from '../dominio/alcance';
import { RegistroDuplicado } from '../dominio/errores';
import type { ErrorTimbrado } from '../dominio/factura';
import type { PuertoPac, ResultadoTimbrado, TimbreObtenido } from '../pac/puerto';
import { mensajeCertificadoVencido } from '../presentacion/certificado';
import { dtoFactura } from '../presentacion/factura';
import type { Boveda } from '../seguridad/boveda';
import { comprobanteSinSello } from './comprobante';
import { crearAbridorCsd } from './csd';
import { pasoDefinitivo, registroInexistente } from './definitivo';
import type { MetricasActividades } from './metricas';
import type { ColaPdf } from './pdf';

/** Who asked, in the error's words: a console user (`usr_…`), an API key, or an operator outside the API. */
const quienPidio = (o: { llaveId: string } | undefined) =>
  !o ? 'un operador' : esUsuario(o.llaveId) ? `la persona ${o.llaveId} (consola)` : `la llave ${o.llaveId}`;

/** What the workflow passes around: ids only, never XML, PDFs or secrets. */
export interface EntradaTimbrado {
  facturaId: string;
  cuentaId: string;
  modo: Modo;
  /** The request that started the operation (ids only), named by the events the worker writes for it. */
  origen?: Origen;
  /** The stamping workflow renders the PDF itself (timbrarFacturaV3): the step that stores the stamp hands nothing over. */
  pdfEnElFlujo?: boolean;
}

/** Who asked to abandon a stamping, and for which request: the actor of its `factura.timbrado_fallido`. */
export interface SolicitudAbandono {
  origen?: Origen;
}

/**
 * A step's outcome. `referencias` are what ops search a workflow by (RFCs, serie-folio, UUID once stamped):
 * the workflow copies them to its `Referencias` search attribute.
 */
export type Paso =
  | { estado: 'listo' | 'timbrada'; referencias?: string[] }
  | { estado: 'rechazado'; error: ErrorTimbrado; referencias?: string[] };

/** The RFCs, serie-folio and UUID of an invoice, as ops know it (no amounts, names or addresses). */
export function referenciasDe(f: FilaFactura): string[] {
  const e = f.documento.entrada;
  const serieFolio = [e.serie, e.folio].filter(Boolean).join('-');
  const todas = [e.emisor.rfc, f.documento.cliente.rfc, serieFolio, f.uuid ?? ''];
  return [...new Set(todas.filter((r) => r !== ''))];
}

/** The part of the PAC port stamping needs. */
export type PacTimbrado = Pick<PuertoPac, 'timbrar' | 'consultarTimbre'>;

export interface DepsTimbrado {
  facturas: RepositorioFacturas;
  pagos: Pick<RepositorioPagos, 'revertir'>;
  recibos: Pick<RepositorioRecibos, 'devolverPorRechazo' | 'liberarDeGlobal'>;
  facturasGlobales: Pick<RepositorioFacturasGlobales, 'obtener'>;
  eventos: RepositorioEventos;
  certificados: RepositorioCertificados;
  transacciones: Transacciones;
  boveda: Boveda;
  catalogos: ConsultaCatalogos;
  /** Test mode stamps with the sandbox PAC, live mode with the real one. */
  pacPara(modo: Modo): PacTimbrado;
  /** Where a stamped CFDI's PDF goes: its own workflow, so the stamping ends without waiting for Chromium. */
  colaPdf: ColaPdf;
  metricas: MetricasActividades;
  ahora?: () => Date;
}

export function crearActividadesTimbrado(d: DepsTimbrado) {
  const ahora = d.ahora ?? (() => new Date());
  const abrirCsd = crearAbridorCsd(d.boveda);

  async function cargar(e: EntradaTimbrado) {
    const f = await d.facturas.obtenerConSellado(alcanceSistema(e), e.facturaId);
    if (!f) throw registroInexistente(`factura ${e.facturaId} inexistente`);
    return f;
  }

  /**
   * Writes the stamp and its event in one transaction; a second call for the same invoice changes nothing.
   * A UUID that already belongs to another invoice means the PAC saw a duplicate document (same content
   * and second): a definitive answer, reported as a rejection instead of failing forever.
   */
  async function registrarTimbre(e: EntradaTimbrado, fila: FilaFactura, t: TimbreObtenido): Promise<Paso> {
    const a = alcanceSistema(e);
    try {
      const guardado = await d.transacciones.ejecutar(async (tx) => {
        const f = await d.facturas.bloquear(tx, a, e.facturaId);
        if (!f || f.estado !== 'borrador' || f.timbrado_estado === 'timbrada') return false;
        await d.facturas.guardarTimbre(tx, a, e.facturaId, t);
        const timbrada = dtoFactura((await d.facturas.obtener(a, e.facturaId, tx))!);
        await d.eventos.registrar(tx, a, 'factura.timbrada', timbrada);
        return true;
      });
      // Counted after the commit, and only by the call that wrote it: a retry or replay counts nothing.
      if (guardado) d.metricas.timbrado('timbrada');
      return await timbrada(e, referenciasDe({ ...fila, uuid: t.uuid.toUpperCase() }));
    } catch (err) {
      if (!(err instanceof RegistroDuplicado)) throw err;
      return {
        estado: 'rechazado',
        error: {
          paso: 'pac',
          codigo: 'cfdi_duplicado',
          mensaje: `El PAC reconoció este CFDI como el ya timbrado con UUID ${t.uuid} (mismo contenido y fecha): use un folio distinto.`,
        },
      };
    }
  }

  /**
   * Every step that reports a CFDI stamped (just now, or found so by a retry or a new run) has handed its PDF to
   * the PDF workflow first, unless its own workflow renders it (timbrarFacturaV3): idempotent, one workflow per
   * invoice. A failed hand-over fails the step, which is retried and finds the stamp.
   */
  async function timbrada(e: EntradaTimbrado, referencias: string[]): Promise<Paso> {
    if (!e.pdfEnElFlujo)
      await d.colaPdf.encolar({ facturaId: e.facturaId, cuentaId: e.cuentaId, modo: e.modo });
    return { estado: 'timbrada', referencias };
  }

  /** Best effort: the database may be what failed, and the error must reach Temporal either way. */
  async function anotarTransitorio(e: EntradaTimbrado, err: unknown): Promise<void> {
    const causa = err instanceof Error ? err.message : String(err);
    await d.facturas
      .anotarErrorTransitorio(alcanceSistema(e), e.facturaId, {
        codigo: 'pac_no_disponible',
        mensaje: `El PAC no respondió (${causa.slice(0, 300)}); el timbrado se reintenta con espera creciente.`,
        paso: 'pac',
      })
      .catch(() => undefined);
  }

  /** The invoice as the steps read it; `contado`: its PAC attempt is already counted by this activity. */
  type Cargada = NonNullable<Awaited<ReturnType<typeof cargar>>> & { contado?: boolean };

  /**
   * Seals the loaded invoice unless it already is sealed or stamped. `contar`: the seal's write also counts the
   * PAC attempt that follows in the same activity (one write instead of two). Answers `listo` with the sealed
   * invoice as this call wrote it, or without it when a concurrent call sealed first (read it again).
   */
  async function preparar(e: EntradaTimbrado, f: Cargada, contar: boolean): Promise<Paso & { f?: Cargada }> {
    const a = alcanceSistema(e);
    const referencias = referenciasDe(f);
    if (f.estado !== 'borrador' || f.timbrado_estado === 'timbrada') return timbrada(e, referencias);
    if (f.xmlSellado) return { estado: 'listo', referencias, f };

    const cert = await d.certificados.activoConSecretos(a, f.organizacion_id);
    if (!cert) {
      return {
        estado: 'rechazado',
        referencias,
        error: {
          codigo: 'sin_certificado_activo',
          mensaje: 'La organización no tiene un certificado (CSD) activo: súbalo con POST /v1/certificados.',
          paso: 'certificado',
        },
      };
    }
    if (new Date(cert.valido_hasta).getTime() <= ahora().getTime()) {
      return {
        estado: 'rechazado',
        referencias,
        error: {
          codigo: 'certificado_vencido',
          mensaje: mensajeCertificadoVencido(cert),
          paso: 'certificado',
        },
      };
    }
    const doc = f.documento;
    const fecha = fechaCfdi(ahora(), doc.huso_horario);
    const paso = pasoDefinitivo('comprobante_invalido', 'No se pudo construir o sellar el CFDI', () => {
      const { llave, certificado } = abrirCsd(e, cert);
      const nodo = comprobanteSinSello(doc, fecha, certificado);
      const [violacion] = validarComprobante(nodo, d.catalogos, { ahora: ahora() });
      if (violacion) return { violacion };
      return { xml: sellarComprobante(nodo, llave).xml, noCertificado: certificado.noCertificado };
    });
    if (!paso.ok) return { estado: 'rechazado', referencias, error: { ...paso.error, paso: 'sellado' } };
    const r = paso.valor;
    if ('violacion' in r) {
      const v = r.violacion!;
      return {
        estado: 'rechazado',
        referencias,
        error: { codigo: v.sat ?? v.codigo, mensaje: v.mensaje, paso: 'validacion' },
      };
    }
    const sello = {
      xml: r.xml,
      noCertificado: r.noCertificado,
      documento: { ...doc, entrada: { ...doc.entrada, fecha } },
    };
    const escrito = await d.facturas.guardarSello(a, e.facturaId, sello, { contarIntento: contar });
    // Sealed by a concurrent attempt first: its XML is the one to send (and this attempt is not counted yet).
    if (!escrito) return { estado: 'listo', referencias };
    return {
      estado: 'listo',
      referencias,
      f: {
        ...f,
        xmlSellado: r.xml,
        documento: sello.documento,
        contado: contar,
      },
    };
  }

  /**
   * Sends the sealed XML of the loaded invoice to the PAC. Exactly once: when an earlier attempt was counted,
   * this one first asks the PAC whether that exact XML was already stamped (a lost answer), and the PAC itself
   * answers a repeated stamp with the original one.
   */
  async function enviar(e: EntradaTimbrado, f: Cargada): Promise<Paso> {
    const a = alcanceSistema(e);
    if (f.estado !== 'borrador' || f.timbrado_estado === 'timbrada') return timbrada(e, referenciasDe(f));
    const xml = f.xmlSellado;
    if (!xml) throw new Error(`factura ${e.facturaId} sin XML sellado`);
    if (!f.contado) await d.facturas.contarIntento(a, e.facturaId);
    const pac = d.pacPara(e.modo);
    const ctx = Context.current();
    // Heartbeats while the PAC works: a worker that dies mid-call is noticed in seconds, not at the timeout.
    // (A local activity has none: its workflow task's timeout covers it.)
    const latido = ctx.info.isLocal ? undefined : setInterval(() => ctx.heartbeat(), 1000);
    let r: ResultadoTimbrado;
    try {
      // Any earlier attempt (local or not, in this worker or a dead one) may have reached the PAC.
      const previo = f.timbrado_intentos > 0 ? await pac.consultarTimbre(xml) : undefined;
      r = previo?.tipo === 'timbrado' ? previo : await pac.timbrar(xml);
    } catch (err) {
      // Transient (Temporal retries it): the invoice shows why it is still pending.
      await anotarTransitorio(e, err);
      throw err;
    } finally {
      if (latido) clearInterval(latido);
    }
    if (r.tipo === 'rechazado')
      return {
        estado: 'rechazado',
        referencias: referenciasDe(f),
        error: { codigo: r.codigo, mensaje: r.mensaje, paso: 'pac' },
      };
    return registrarTimbre(e, f, r);
  }

  const sinFila = ({ f: _f, ...p }: Paso & { f?: Cargada }): Paso => p;

  return {
    /**
     * Builds and seals the CFDI once (the sealed XML is kept, so every retry sends the same bytes) and runs
     * every locally checkable SAT rule: an invoice the PAC would reject never reaches it.
     */
    async prepararTimbrado(e: EntradaTimbrado): Promise<Paso> {
      return sinFila(await preparar(e, await cargar(e), false));
    },

    /**
     * Sends the sealed XML to the PAC (exactly once, see `enviar`). Transport failures throw, so Temporal
     * retries with backoff; a rejection is an answer, not a failure.
     */
    async enviarAlPac(e: EntradaTimbrado): Promise<Paso> {
      return enviar(e, await cargar(e));
    },

    /**
     * prepararTimbrado and enviarAlPac in one step, as timbrarFacturaV3's first (local) attempt runs them: one
     * read of the invoice, and the seal written together with the count of the PAC attempt.
     */
    async timbrarDeUnaVez(e: EntradaTimbrado): Promise<Paso> {
      const p = await preparar(e, await cargar(e), true);
      if (p.estado !== 'listo') return sinFila(p);
      // Without the row: another attempt's seal won, so its XML is read and sent.
      return enviar(e, p.f ?? (await cargar(e)));
    },

    /**
     * A definitive rejection: the invoice stays a draft with the error, and the sealed XML is dropped. A payment
     * CFDI the PAC refused never became a document: its payment gives the balances back and ends `rechazado`.
     */
    registrarRechazo: (e: EntradaTimbrado, error: ErrorTimbrado) => rechazar(e, error, alcanceSistema(e)),

    /**
     * An operator abandons a pending stamping (its workflow stopped trying first). Exactly once still: if an
     * attempt was ever sent, the PAC is asked for the stamp of that sealed XML, as every retry does, and a stamp
     * it has is recorded instead (the invoice ends stamped, with its event). Otherwise the invoice ends `fallido`
     * with `timbrado_abandonado` and its `factura.timbrado_fallido`, whose actor is the one who abandoned it.
     * `quietudMs`: an earlier run's attempt may still be in flight; until the invoice has been quiet that long,
     * the activity fails and Temporal retries it.
     */
    async registrarAbandono(e: EntradaTimbrado, s: SolicitudAbandono, quietudMs: number): Promise<Paso> {
      const f = await cargar(e);
      const referencias = referenciasDe(f);
      if (f.estado !== 'borrador' || f.timbrado_estado === 'timbrada') return timbrada(e, referencias);
      if (f.timbrado_estado !== 'pendiente') {
        const previo = f.timbrado_error ?? { codigo: 'timbrado_fallido', mensaje: 'Timbrado fallido.' };
        return { estado: 'rechazado', referencias, error: previo };
      }
      const quieta = ahora().getTime() - new Date(f.actualizado_en).getTime();
      if (quietudMs > 0 && quieta < quietudMs) {
        throw new Error(
          `la factura ${e.facturaId} tuvo actividad hace ${Math.round(quieta / 1000)} s: el abandono espera a que termine un intento que pudo quedar en curso`,
        );
      }
      if (f.xmlSellado && f.timbrado_intentos > 0) {
        const previo = await d.pacPara(e.modo).consultarTimbre(f.xmlSellado);
        if (previo.tipo === 'timbrado') return registrarTimbre(e, f, previo);
      }
      const error: ErrorTimbrado = {
        codigo: 'timbrado_abandonado',
        mensaje: `El timbrado se abandonó a petición de ${quienPidio(s.origen)} sin que el PAC lo timbrara (${f.timbrado_intentos} intentos): la factura queda en borrador y puede timbrarse de nuevo con POST /v1/facturas/${e.facturaId}/timbrar.`,
        paso: 'pac',
      };
      await rechazar(e, error, alcanceSistema({ ...e, origen: s.origen }));
      return { estado: 'rechazado', referencias, error };
    },
  };

  /** Records a stamping that ended without a stamp, with its event written by `a` (its actor and request). */
  async function rechazar(e: EntradaTimbrado, error: ErrorTimbrado, a: Alcance): Promise<void> {
    const guardado = await d.transacciones.ejecutar(async (tx) => {
      const f = await d.facturas.bloquear(tx, a, e.facturaId);
      if (!f || f.timbrado_estado !== 'pendiente') return false;
      await d.facturas.guardarRechazo(tx, a, e.facturaId, error);
      if (f.tipo === 'pago') {
        await d.pagos.revertir(tx, a, e.facturaId, {
          tipo: 'regla_de_negocio',
          codigo: 'timbrado_rechazado',
          mensaje: `El PAC rechazó el CFDI de pago ${e.facturaId}: ${error.codigo} ${error.mensaje} El pago no quedó registrado y los saldos no cambiaron: corrija la causa y registre el pago de nuevo.`,
        });
      }
      // A receipt's sale is never left on a failed CFDI: the buyer's receipt as before the request, and the
      // receipts of a global (not of a reissue: its workflow gives them back to the global it was to replace).
      await d.recibos.devolverPorRechazo(tx, a, e.facturaId, ahora());
      const global = await d.facturasGlobales.obtener(a, e.facturaId, tx);
      if (global && !global.reemplaza) await d.recibos.liberarDeGlobal(tx, a, e.facturaId, ahora());
      const factura = dtoFactura((await d.facturas.obtener(a, e.facturaId, tx))!);
      await d.eventos.registrar(tx, a, 'factura.timbrado_fallido', factura);
      return true;
    });
    if (guardado) d.metricas.timbrado('rechazada');
  }
}
