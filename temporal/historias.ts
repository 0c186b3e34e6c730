import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';
import type { EjecucionFlujo, LectorHistorias } from '../servicios/auditoria';
import type { LectorPasosFlujo, ResumenFlujo, SerieIntentos } from '../servicios/historia';
import { ATRIBUTOS } from '../workflows/atributos';

// Ids go inside a visibility query between double quotes: only the shapes the service makes are accepted.
const ID_SEGURO = /^[a-z]+_[0-9a-z]+$/;

/**
 * The visibility query of every workflow that touched an invoice: its own (`FacturaId`), the payments that paid
 * it (`FacturasPagadas`), and those of its payments' CFDIs (their `FacturaId`), webhook deliveries included
 * (they carry the same attributes), within the account and mode.
 */
export function consultaDeFactura(
  a: Pick<Alcance, 'cuentaId' | 'modo'>,
  factura: string,
  cfdisDePago: string[],
) {
  for (const id of [factura, ...cfdisDePago, a.cuentaId])
    if (!ID_SEGURO.test(id)) throw new Error(`id inesperado en una consulta de visibilidad: ${id}`);
  const { FacturaId, FacturasPagadas, CuentaId, Modo } = ATRIBUTOS;
  const condiciones = [
    `${FacturaId.name}="${factura}"`,
    `${FacturasPagadas.name}="${factura}"`,
    ...cfdisDePago.map((c) => `${FacturaId.name}="${c}"`),
  ];
  return `(${condiciones.join(' OR ')}) AND ${CuentaId.name}="${a.cuentaId}" AND ${Modo.name}="${a.modo}"`;
}

const base64 = (v: unknown) => (typeof v === 'string' ? Buffer.from(v, 'base64') : undefined);

/** A payload as protojson writes it: `metadata` (base64 values, `encoding` among them) and base64 `data`. */
const esPayload = (o: Record<string, unknown>): boolean =>
  typeof o.metadata === 'object' &&
  o.metadata !== null &&
  typeof (o.metadata as Record<string, unknown>).encoding === 'string' &&
  Object.keys(o).every((k) => k === 'metadata' || k === 'data' || k === 'externalPayloads');

function decodificarPayload(o: Record<string, unknown>) {
  const metadata = Object.fromEntries(
    Object.entries(o.metadata as Record<string, unknown>).map(([k, v]) => [
      k,
      base64(v)?.toString('utf8') ?? v,
    ]),
  );
  const bytes = base64(o.data);
  if (!bytes) return { metadata, data: null };
  // Our payloads are json/plain; anything else stays as it was (base64), never guessed at.
  if (metadata.encoding === 'json/plain' || metadata.encoding === 'json/protobuf') {
    try {
      return { metadata, data: JSON.parse(bytes.toString('utf8')) as unknown };
    } catch {
      // not JSON after all: left encoded below
    }
  }
  return { metadata, data: o.data };
}

/**
 * A history for people: the same document as Temporal's export, with every payload's metadata and `data`
 * decoded from base64 (the `data` of json/plain payloads as the JSON value it holds). Not replayable.
 */
export function historiaLegible(historia: unknown): unknown {
  if (Array.isArray(historia)) return historia.map(historiaLegible);
  if (historia === null || typeof historia !== 'object') return historia;
  const o = historia as Record<string, unknown>;
  if (esPayload(o)) return decodificarPayload(o);
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, historiaLegible(v)]));
}

// A package without its histories would be incomplete evidence: the request fails instead (a 503 to retry).
export const temporalNoDisponible = () =>
  new ErrorNegocio(
    'servicio_no_disponible',
    'temporal_no_disponible',
    'Temporal no respondió: intente de nuevo en unos segundos.',
    undefined,
    { reintentarEnSegundos: 5 },
  );

// Workflow ids made by the service: `timbrado:fac_…`, `cancelacion:fac_…`, `pago:pago_…`.
const ID_FLUJO = /^[a-z]+:[a-z]+_[0-9a-z-]+$/;

/** How long an invoice's history may wait on Temporal (its runs, each one's history). */
const ESPERA_RESUMENES_MS = 5000;

/** The audit package's port over Temporal: visibility to find the runs, the history of each. */
export function crearLectorHistoriasTemporal(cliente: Client): LectorHistorias & LectorPasosFlujo {
  return {
    async resumenes(a, workflowIds) {
      for (const id of [...workflowIds, a.cuentaId])
        if (!ID_FLUJO.test(id) && !ID_SEGURO.test(id)) throw new Error(`id inesperado: ${id}`);
      if (!workflowIds.length) return [];
      const { CuentaId, Modo } = ATRIBUTOS;
      const query = `(${workflowIds.map((w) => `WorkflowId="${w}"`).join(' OR ')}) AND ${CuentaId.name}="${a.cuentaId}" AND ${Modo.name}="${a.modo}"`;
      try {
        return await cliente.withDeadline(Date.now() + ESPERA_RESUMENES_MS, async () => {
          const resumenes: ResumenFlujo[] = [];
          for await (const w of cliente.workflow.list({ query })) {
            const h = cliente.workflow.getHandle(w.workflowId, w.runId);
            const e = { workflowId: w.workflowId, runId: w.runId, tipo: w.type, estado: w.status.name };
            const r = resumirHistoria(await h.fetchHistory(), e);
            // A retrying activity of a running run is in no event yet: its attempt and last failure are.
            if (w.status.name === 'RUNNING') {
              const pendiente = (await h.describe()).raw.pendingActivities?.[0];
              const serie = r.series.find((x) => !x.local && x.resultado === 'en_curso');
              if (pendiente && serie) {
                serie.intentos = pendiente.attempt ?? 1;
                serie.fallidos = (pendiente.attempt ?? 1) - 1;
                serie.ultimaFalla = pendiente.lastFailure ? mensaje(pendiente.lastFailure) : null;
                if (pendiente.lastStartedTime) serie.hasta = instante(pendiente.lastStartedTime as Marca);
              }
            }
            resumenes.push(r);
          }
          return resumenes.sort((x, y) => x.inicio.getTime() - y.inicio.getTime());
        });
      } catch {
        throw temporalNoDisponible();
      }
    },
    async ejecucionesDeFactura(a, factura, cfdisDePago) {
      const query = consultaDeFactura(a, factura, cfdisDePago);
      const ejecuciones: EjecucionFlujo[] = [];
      try {
        for await (const w of cliente.workflow.list({ query })) {
          ejecuciones.push({
            workflowId: w.workflowId,
            runId: w.runId,
            tipo: w.type,
            estado: w.status.name,
            inicio: w.startTime.toISOString(),
            fin: w.closeTime?.toISOString() ?? null,
          });
        }
      } catch {
        throw temporalNoDisponible();
      }
      return ejecuciones;
    },
    async historia(workflowId, runId) {
      try {
        const cruda = historyToJSON(await cliente.workflow.getHandle(workflowId, runId).fetchHistory());
        return { cruda, legible: `${JSON.stringify(historiaLegible(JSON.parse(cruda)), null, 2)}\n` };
      } catch {
        throw temporalNoDisponible();
      }
    },
  };
}

type Historia = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;
type Marca = { seconds?: { toString(): string } | number | null; nanos?: number | null } | null | undefined;

const instante = (m: Marca): Date =>
  new Date(Number(m?.seconds?.toString() ?? 0) * 1000 + Math.floor((m?.nanos ?? 0) / 1e6));

/** A json/plain payload's value (our workflows' inputs and local activity markers); undefined otherwise. */
function valor(p: { data?: Uint8Array | null } | null | undefined): unknown {
  if (!p?.data) return undefined;
  try {
    return JSON.parse(Buffer.from(p.data).toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * A failure's message: the activity's own error (`stamp: HTTP 500, …`), which says what was being done; its
 * causes' when it has none.
 */
function mensaje(f: { message?: string | null; cause?: unknown } | null | undefined): string | null {
  for (let c = f; c; c = c.cause as typeof f) if (c.message) return c.message;
  return null;
}

/**
 * A run's history as steps a person can follow (servicios/historia.ts words them): who started it (its input's
 * request), each activity as a series of tries (local ones from their markers, regular ones from their scheduled,
 * started and closing events: the started event of a retried activity carries its attempt and the last failure,
 * so N tries read as one series), and the updates it accepted. Pure: no I/O, for the audit package and the API.
 */
export function resumirHistoria(
  historia: Historia,
  ejecucion: Pick<EjecucionFlujo, 'workflowId' | 'runId' | 'tipo' | 'estado'>,
): ResumenFlujo {
  const eventos = historia.events ?? [];
  const inicio = eventos[0];
  const entrada = valor(inicio?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]) as
    | { origen?: { solicitudId?: string; llaveId?: string }; abandono?: unknown }
    | undefined;
  const series: SerieIntentos[] = [];
  const actualizaciones: { nombre: string; en: Date }[] = [];
  const programadas = new Map<string, { serie: SerieIntentos }>();
  const de = (id: unknown) => programadas.get(String(id));
  for (const e of eventos) {
    const en = instante(e.eventTime as Marca);
    const m = e.markerRecordedEventAttributes;
    if (m?.markerName === 'core_local_activity') {
      const datos = valor(m.details?.data?.payloads?.[0]) as
        | { activity_type?: string; attempt?: number; original_schedule_time?: Marca; complete_time?: Marca }
        | undefined;
      const falla = m.failure ? mensaje(m.failure) : null;
      series.push({
        actividad: datos?.activity_type ?? '',
        local: true,
        desde: datos?.original_schedule_time ? instante(datos.original_schedule_time) : en,
        hasta: datos?.complete_time ? instante(datos.complete_time) : en,
        intentos: datos?.attempt ?? 1,
        fallidos: falla ? (datos?.attempt ?? 1) : (datos?.attempt ?? 1) - 1,
        ultimaFalla: falla,
        resultado: falla ? 'fallida' : 'completada',
      });
      continue;
    }
    const p = e.activityTaskScheduledEventAttributes;
    if (p) {
      const serie: SerieIntentos = {
        actividad: p.activityType?.name ?? '',
        local: false,
        desde: en,
        hasta: en,
        intentos: null,
        fallidos: null,
        ultimaFalla: null,
        resultado: 'en_curso',
      };
      series.push(serie);
      programadas.set(String(e.eventId), { serie });
      continue;
    }
    const iniciada = e.activityTaskStartedEventAttributes;
    if (iniciada) {
      const s = de(iniciada.scheduledEventId)?.serie;
      if (s) {
        s.intentos = iniciada.attempt ?? 1;
        s.fallidos = s.intentos - 1;
        s.hasta = en;
        s.ultimaFalla = iniciada.lastFailure ? mensaje(iniciada.lastFailure) : null;
      }
      continue;
    }
    const cierre =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    if (cierre) {
      const s = de(cierre.scheduledEventId)?.serie;
      if (!s) continue;
      if (e.activityTaskCompletedEventAttributes) s.resultado = 'completada';
      else if (e.activityTaskCanceledEventAttributes) s.resultado = 'cancelada';
      else {
        s.resultado = e.activityTaskFailedEventAttributes ? 'fallida' : 'agotada';
        s.fallidos = s.intentos ?? null;
        const f =
          e.activityTaskFailedEventAttributes?.failure ?? e.activityTaskTimedOutEventAttributes?.failure;
        s.ultimaFalla = mensaje(f) ?? s.ultimaFalla;
      }
      s.fin = en;
      continue;
    }
    const aceptada = e.workflowExecutionUpdateAcceptedEventAttributes;
    if (aceptada?.acceptedRequest?.input?.name) {
      actualizaciones.push({ nombre: aceptada.acceptedRequest.input.name, en });
    }
  }
  const origen = entrada?.origen;
  return {
    ...ejecucion,
    inicio: inicio ? instante(inicio.eventTime as Marca) : new Date(0),
    origen: origen?.llaveId ? { solicitudId: origen.solicitudId ?? '', llaveId: origen.llaveId } : null,
    soloAbandono: entrada?.abandono !== undefined,
    series,
    actualizaciones,
  };
}
