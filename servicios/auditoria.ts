import { createHash } from 'node:crypto';
import { zipSync, type Zippable } from 'fflate';
import type { Alcance } from '../dominio/alcance';
import { noEncontrado } from '../dominio/errores';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioPagos } from '../db/repositorios/pagos';
import { dtoEvento, type Evento } from '../presentacion/evento';
import { dtoFactura } from '../presentacion/factura';
import { dtoPago } from '../presentacion/pago';

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
  facturas: Pick<RepositorioFacturas, 'obtener' | 'xml' | 'pdf'>;
  pagos: Pick<RepositorioPagos, 'deFactura'>;
  eventos: Pick<RepositorioEventos, 'listar'>;
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
  /** Files the package would hold but cannot yet (not stamped, PDF still rendering), and why. */
  omitidos: { ruta: string; motivo: string }[];
  flujos: (EjecucionFlujo & { historia: string; legible: string })[];
}

const PAGINA_EVENTOS = 100;

/** `timbrado:fac_…` → `timbrado-fac_…`: a colon is not allowed in file names on every system. */
export const carpetaFlujo = (workflowId: string) =>
  `historias/${workflowId.replace(/[^A-Za-z0-9_.-]/g, '-')}`;

const json = (v: unknown) => Buffer.from(`${JSON.stringify(v, null, 2)}\n`, 'utf8');
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * The audit package of an invoice (`GET /v1/facturas/{id}/auditoria`): the invoice, its stamped XML and PDF,
 * every event about it, its payments' CFDIs, and the Temporal history of every workflow that touched it, with a
 * manifest of SHA-256 digests. Scoped like every read: another account's or mode's invoice does not exist.
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

  return {
    async paquete(a: Alcance, id: string): Promise<{ zip: Buffer; manifiesto: Manifiesto }> {
      const f = await deps.facturas.obtener(a, id);
      if (!f) throw noEncontrado('factura_no_encontrada', `La factura ${id} no existe.`);
      const generado = ahora();
      const archivos = new Map<string, Uint8Array>();
      const omitidos: Manifiesto['omitidos'] = [];

      archivos.set('factura.json', json(dtoFactura(f)));
      const xml = await deps.facturas.xml(a, id);
      if (xml?.timbrado) archivos.set('cfdi.xml', Buffer.from(xml.timbrado, 'utf8'));
      else omitidos.push({ ruta: 'cfdi.xml', motivo: `La factura no está timbrada (estado ${f.estado}).` });
      const pdf = await deps.facturas.pdf(a, id);
      if (pdf?.pdf) archivos.set('factura.pdf', pdf.pdf);
      else {
        omitidos.push({
          ruta: 'factura.pdf',
          motivo:
            f.estado === 'borrador'
              ? 'La factura no está timbrada: el PDF se genera al timbrarla.'
              : 'El PDF aún se está generando: descargue el paquete de nuevo en unos segundos.',
        });
      }
      archivos.set('eventos.json', json(await eventosDe(a, id)));

      const pagos = await deps.pagos.deFactura(a, id);
      const cfdisDePago: string[] = [];
      for (const p of pagos) {
        archivos.set(`pagos/${p.id}/pago.json`, json(dtoPago(p)));
        if (!p.factura_pago_id) continue;
        cfdisDePago.push(p.factura_pago_id);
        const x = await deps.facturas.xml(a, p.factura_pago_id);
        if (x?.timbrado) archivos.set(`pagos/${p.id}/cfdi.xml`, Buffer.from(x.timbrado, 'utf8'));
        else omitidos.push({ ruta: `pagos/${p.id}/cfdi.xml`, motivo: 'El CFDI de pago no está timbrado.' });
      }

      const ejecuciones = await deps.historias.ejecucionesDeFactura(a, id, cfdisDePago);
      // Stable order: by workflow id, then by start (a workflow id can have several runs).
      ejecuciones.sort((x, y) =>
        x.workflowId === y.workflowId
          ? x.inicio.localeCompare(y.inicio)
          : x.workflowId.localeCompare(y.workflowId),
      );
      const flujos: Manifiesto['flujos'] = [];
      for (const e of ejecuciones) {
        const { cruda, legible } = await deps.historias.historia(e.workflowId, e.runId);
        const carpeta = carpetaFlujo(e.workflowId);
        const rutas = {
          historia: `${carpeta}/${e.runId}.json`,
          legible: `${carpeta}/${e.runId}.legible.json`,
        };
        archivos.set(rutas.historia, Buffer.from(cruda, 'utf8'));
        archivos.set(rutas.legible, Buffer.from(legible, 'utf8'));
        flujos.push({ ...e, ...rutas });
      }

      const manifiesto: Manifiesto = {
        objeto: 'auditoria',
        factura: id,
        modo: a.modo,
        generado_en: generado.toISOString(),
        archivos: [...archivos].map(([ruta, b]) => ({ ruta, sha256: sha256(b), bytes: b.byteLength })),
        omitidos,
        flujos,
      };
      const entradas: Zippable = { 'manifiesto.json': json(manifiesto) };
      for (const [ruta, b] of archivos) entradas[ruta] = b;
      const zip = zipSync(entradas, { level: 6, mtime: generado });
      return { zip: Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength), manifiesto };
    },
  };
}

export type ServicioAuditoria = ReturnType<typeof crearServicioAuditoria>;
