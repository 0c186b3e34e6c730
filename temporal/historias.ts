import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';
import type { EjecucionFlujo, LectorHistorias } from '../servicios/auditoria';
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

/** The audit package's port over Temporal: visibility to find the runs, the history of each. */
export function crearLectorHistoriasTemporal(cliente: Client): LectorHistorias {
  return {
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
