import type { RepositorioCorreos } from '../db/repositorios/correos';
import { dtoCorreo } from '../presentacion/correo';
import { createHash } from 'node:crypto';
import { zipSync, type Zippable } from 'fflate';
import type { Alcance } from '../dominio/alcance';
import { noEncontrado } from '../dominio/errores';
import type { RepositorioEntregas } from '../db/repositorios/entregas';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { FilaFactura, RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioPagos } from '../db/repositorios/pagos';
import { dtoEvento, type Evento } from '../presentacion/evento';
import { dtoFactura } from '../presentacion/factura';
import { dtoPago } from '../presentacion/pago';
import { dtoEntrega } from '../presentacion/webhook';
import { fechaHora } from '../presentacion/textos';
import type { Historia } from './historia';

/** One run of a workflow, as Temporal's visibility lists it. */
export interface EjecucionFlujo {
  workflowId: string;
  runId: string;
  /** The workflow type (`timbrarFacturaV2`, `generarPdfFactura`, `cancelarFactura`, `registrarPagoV2`, `entregarEvento`). */
  tipo: string;
  /** Temporal's status name: RUNNING, COMPLETED, FAILED… */
  estado: string;
  inicio: string;
  fin: string | null;
}

/** The port to Temporal the package needs (temporal/historias.ts): find the runs, read each history. */
export interface LectorHistorias {
  /**
   * Every run (closed ones too) of the workflows that touched the invoice, in the scope: its own, those of the
   * payments that paid it, and those of its payments' CFDIs (`cfdisDePago`), webhook deliveries included.
   */
  ejecucionesDeFactura(a: Alcance, factura: string, cfdisDePago: string[]): Promise<EjecucionFlujo[]>;
  /** One run's history: `cruda` as Temporal exports it (JSON, replayable), `legible` with payloads decoded. */
  historia(workflowId: string, runId: string): Promise<{ cruda: string; legible: string }>;
}

export interface DepsAuditoria {
  /** The invoice's readable history (servicios/historia.ts): `historia.json` and `historia.txt`. */
  historia: (a: Alcance, id: string) => Promise<Historia>;
  facturas: Pick<RepositorioFacturas, 'obtener' | 'xml' | 'pdf' | 'acuseCancelacion'>;
  pagos: Pick<RepositorioPagos, 'deFactura'>;
  eventos: Pick<RepositorioEventos, 'listar'>;
  entregas: Pick<RepositorioEntregas, 'deEventos'>;
  correos: Pick<RepositorioCorreos, 'deFacturas'>;
  historias: LectorHistorias;
  ahora?: () => Date;
}

/** What the manifest says of each file: enough to prove none was changed after the package was made. */
export interface ArchivoManifiesto {
  ruta: string;
  sha256: string;
  bytes: number;
}

export interface Manifiesto {
  objeto: 'auditoria';
  factura: string;
  modo: Alcance['modo'];
  generado_en: string;
  archivos: ArchivoManifiesto[];
  /** Files the package would hold but cannot (not stamped, PDF still rendering, no acuse), and why. */
  omitidos: { ruta: string; motivo: string }[];
  flujos: (EjecucionFlujo & { historia: string; legible: string })[];
}

const PAGINA_EVENTOS = 100;

/** `timbrado:fac_…` → `timbrado-fac_…`: a colon is not allowed in file names on every system. */
export const carpetaFlujo = (workflowId: string) =>
  `historias/${workflowId.replace(/[^A-Za-z0-9_.-]/g, '-')}`;

const json = (v: unknown) => Buffer.from(`${JSON.stringify(v, null, 2)}\n`, 'utf8');
const utf8 = (texto: string) => Buffer.from(texto, 'utf8');
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The package while its parts fill it: the files in order, what is missing and why, what later parts need. */
interface Armado {
  a: Alcance;
  factura: FilaFactura;
  archivos: Map<string, Uint8Array>;
  omitidos: Manifiesto['omitidos'];
  /** `eventos.json`'s events: the delivery log is theirs. */
  eventos: Evento[];
  /** The payment CFDIs: their workflows' runs are listed too. */
  cfdisDePago: string[];
  flujos: Manifiesto['flujos'];
}

/** One kind of evidence: adds its files (or says why they are missing) to the package. */
type Parte = (p: Armado) => Promise<void>;

/**
 * The audit package of an invoice (`GET /v1/facturas/{id}/auditoria`): the invoice, its stamped XML, PDF and
 * cancellation acuse, every event about it and their webhook deliveries, its payments with their CFDIs, and the
 * Temporal history of every workflow that touched it, with a manifest of SHA-256 digests. Scoped like every
 * read: another account's or mode's invoice does not exist.
 */
export function crearServicioAuditoria(deps: DepsAuditoria) {
  const ahora = deps.ahora ?? (() => new Date());

  async function eventosDe(a: Alcance, facturaId: string): Promise<Evento[]> {
    const todos: Evento[] = [];
    let despuesDe: string | undefined;
    for (;;) {
      const t = await deps.eventos.listar(a, { facturaId }, { limite: PAGINA_EVENTOS, despuesDe });
      todos.push(...t.datos.map(dtoEvento));
      if (!t.hayMas || !t.datos.length) return todos;
      despuesDe = t.datos[t.datos.length - 1]!.id;
    }
  }

  /** The acuse of a cancellation, whenever the PAC gave one (a request not yet final is evidence too). */
  async function acuseDe(p: Armado, facturaId: string, ruta: string) {
    const r = await deps.facturas.acuseCancelacion(p.a, facturaId);
    if (r?.acuse) p.archivos.set(ruta, utf8(r.acuse.xml));
    else if (r?.estado === 'cancelada')
      p.omitidos.push({ ruta, motivo: 'La cancelación concluyó sin que el PAC entregara acuse.' });
  }

  /** `factura.json`, `cfdi.xml` and `factura.pdf`. */
  const factura: Parte = async (p) => {
    const { a, factura: f } = p;
    p.archivos.set('factura.json', json(dtoFactura(f)));
    const xml = await deps.facturas.xml(a, f.id);
    if (xml?.timbrado) p.archivos.set('cfdi.xml', utf8(xml.timbrado));
    else p.omitidos.push({ ruta: 'cfdi.xml', motivo: `La factura no está timbrada (estado ${f.estado}).` });
    const pdf = await deps.facturas.pdf(a, f.id);
    if (pdf?.pdf) p.archivos.set('factura.pdf', pdf.pdf);
    else {
      p.omitidos.push({
        ruta: 'factura.pdf',
        motivo:
          f.estado === 'borrador'
            ? 'La factura no está timbrada: el PDF se genera al timbrarla.'
            : 'El PDF aún se está generando: descargue el paquete de nuevo en unos segundos.',
      });
    }
  };

  /** `acuse_cancelacion.xml`: the SAT's acknowledgement of its cancellation. */
  const acuse: Parte = (p) => acuseDe(p, p.factura.id, 'acuse_cancelacion.xml');

  /** `eventos.json`: every event about the invoice, its payments and their CFDIs, newest first. */
  const eventos: Parte = async (p) => {
    p.eventos = await eventosDe(p.a, p.factura.id);
    p.archivos.set('eventos.json', json(p.eventos));
  };

  /** `entregas.json`: every webhook delivery of those events, with the address it went to. */
  const entregas: Parte = async (p) => {
    const filas = await deps.entregas.deEventos(
      p.a,
      p.eventos.map((e) => e.id),
    );
    p.archivos.set('entregas.json', json(filas.map((f) => ({ ...dtoEntrega(f), url: f.webhook_url }))));
  };

  /** `pagos/<pago>/…`: each payment with its ledger rows, and its CFDI's record, XML, PDF and acuse. */
  const pagos: Parte = async (p) => {
    const { a } = p;
    for (const pago of await deps.pagos.deFactura(a, p.factura.id)) {
      const carpeta = `pagos/${pago.id}`;
      p.archivos.set(`${carpeta}/pago.json`, json(dtoPago(pago)));
      if (!pago.factura_pago_id) continue;
      p.cfdisDePago.push(pago.factura_pago_id);
      const cfdi = await deps.facturas.obtener(a, pago.factura_pago_id);
      if (cfdi) p.archivos.set(`${carpeta}/cfdi.json`, json(dtoFactura(cfdi)));
      const x = await deps.facturas.xml(a, pago.factura_pago_id);
      if (!x?.timbrado) {
        for (const archivo of ['cfdi.xml', 'cfdi.pdf'])
          p.omitidos.push({ ruta: `${carpeta}/${archivo}`, motivo: 'El CFDI de pago no está timbrado.' });
        continue;
      }
      p.archivos.set(`${carpeta}/cfdi.xml`, utf8(x.timbrado));
      const pdf = await deps.facturas.pdf(a, pago.factura_pago_id);
      if (pdf?.pdf) p.archivos.set(`${carpeta}/cfdi.pdf`, pdf.pdf);
      else
        p.omitidos.push({
          ruta: `${carpeta}/cfdi.pdf`,
          motivo:
            'El PDF del CFDI de pago aún se está generando: descargue el paquete de nuevo en unos segundos.',
        });
      await acuseDe(p, pago.factura_pago_id, `${carpeta}/acuse_cancelacion.xml`);
    }
  };

  /** `correos.json`: every email of the invoice and of its payment CFDIs, with its recipients and the SMTP answer. */
  const correos: Parte = async (p) => {
    const filas = await deps.correos.deFacturas(p.a, [p.factura.id, ...p.cfdisDePago]);
    p.archivos.set('correos.json', json(filas.map(dtoCorreo)));
  };

  /** `historias/<workflow>/<run>(.legible).json`: every run of every workflow that touched the invoice. */
  const historias: Parte = async (p) => {
    const ejecuciones = await deps.historias.ejecucionesDeFactura(p.a, p.factura.id, p.cfdisDePago);
    // Stable order: by workflow id, then by start (a workflow id can have several runs).
    ejecuciones.sort((x, y) =>
      x.workflowId === y.workflowId
        ? x.inicio.localeCompare(y.inicio)
        : x.workflowId.localeCompare(y.workflowId),
    );
    for (const e of ejecuciones) {
      const { cruda, legible } = await deps.historias.historia(e.workflowId, e.runId);
      const carpeta = carpetaFlujo(e.workflowId);
      const rutas = {
        historia: `${carpeta}/${e.runId}.json`,
        legible: `${carpeta}/${e.runId}.legible.json`,
      };
      p.archivos.set(rutas.historia, utf8(cruda));
      p.archivos.set(rutas.legible, utf8(legible));
      p.flujos.push({ ...e, ...rutas });
    }
  };

  /**
   * `historia.json` and `historia.txt`: the same evidence as steps a person reads (who, when, what, why), as
   * `GET /v1/facturas/{id}/historia` answers it; the text one line per step, local time of the place of issue.
   */
  const historia: Parte = async (p) => {
    const h = await deps.historia(p.a, p.factura.id);
    p.archivos.set('historia.json', json(h));
    const huso = p.factura.documento.huso_horario;
    const lineas = h.pasos.map((x) => `${fechaHora(new Date(x.en), huso)}  ${x.texto}`);
    const encabezado = `Historia de la factura ${h.factura} (${h.modo}), hora local del lugar de expedición.`;
    const aviso = h.temporal.error ? [`Aviso: ${h.temporal.error}`] : [];
    p.archivos.set('historia.txt', utf8(`${[encabezado, ...aviso, '', ...lineas].join('\n')}\n`));
  };

  /**
   * The package's parts, in the order their files appear in it. Each later part may use what an earlier one
   * found (the events, the payment CFDIs). New evidence is one more part here.
   */
  const PARTES: Parte[] = [factura, acuse, eventos, entregas, pagos, correos, historias, historia];

  return {
    async paquete(a: Alcance, id: string): Promise<{ zip: Buffer; manifiesto: Manifiesto }> {
      const f = await deps.facturas.obtener(a, id);
      if (!f) throw noEncontrado('factura_no_encontrada', `La factura ${id} no existe.`);
      const generado = ahora();
      const p: Armado = {
        a,
        factura: f,
        archivos: new Map(),
        omitidos: [],
        eventos: [],
        cfdisDePago: [],
        flujos: [],
      };
      for (const parte of PARTES) await parte(p);

      const manifiesto: Manifiesto = {
        objeto: 'auditoria',
        factura: id,
        modo: a.modo,
        generado_en: generado.toISOString(),
        archivos: [...p.archivos].map(([ruta, b]) => ({ ruta, sha256: sha256(b), bytes: b.byteLength })),
        omitidos: p.omitidos,
        flujos: p.flujos,
      };
      const entradas: Zippable = { 'manifiesto.json': json(manifiesto) };
      for (const [ruta, b] of p.archivos) entradas[ruta] = b;
      const zip = zipSync(entradas, { level: 6, mtime: generado });
      return { zip: Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength), manifiesto };
    },
  };
}

export type ServicioAuditoria = ReturnType<typeof crearServicioAuditoria>;
