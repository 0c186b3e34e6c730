import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';

type Historia = temporal.api.history.v1.IHistory;
const { EventType } = temporal.api.enums.v1;

/**
 * Where the histories recorded by released versions of the workflows are kept. Each is a run of the released
 * workflow code exported as Temporal exports it (`historyToJSON(await handle.fetchHistory())`), recorded before
 * the code changed; a test that runs the current code records its history with GRABAR_HISTORIAS=1.
 */
export const rutaHistoria = (archivo: string) => join(__dirname, '..', 'fixtures', 'historias', archivo);

/** With GRABAR_HISTORIAS=1, keeps `historia` as the fixture `archivo`: run before the code changes. */
export function grabarSiSePide(historia: Historia, archivo: string): void {
  if (process.env.GRABAR_HISTORIAS === '1') writeFileSync(rutaHistoria(archivo), historyToJSON(historia));
}

/** The activities scheduled on the server, in order. */
export const programadas = (h: Historia) =>
  (h.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
    .filter((n): n is string => typeof n === 'string');

/** How many events of a type the run wrote. */
export const contar = (h: Historia, tipo: temporal.api.enums.v1.EventType) =>
  (h.events ?? []).filter((e) => e.eventType === tipo).length;

/** The patch markers (`patched()`/`deprecatePatch()`), in order: each costs a TemporalChangeVersion upsert too. */
export function parches(h: Historia): { id: string; deprecated: boolean }[] {
  return (h.events ?? [])
    .map((e) => e.markerRecordedEventAttributes)
    .filter((m) => m?.markerName === 'core_patch')
    .map((m) => {
      const datos = m!.details?.['patch-data']?.payloads?.[0]?.data;
      return JSON.parse(Buffer.from(datos!).toString('utf8')) as { id: string; deprecated: boolean };
    });
}

/** A recorded history, with what the tests assert about its shape. */
export function leerHistoria(archivo: string) {
  const historia = historyFromJSON(JSON.parse(readFileSync(rutaHistoria(archivo), 'utf8')));
  return {
    historia,
    /** The activities scheduled on the server, in order. */
    programadas: programadas(historia),
    conMarcadores: contar(historia, EventType.EVENT_TYPE_MARKER_RECORDED) > 0,
    parches: parches(historia),
    /** The workflow type that wrote it. */
    tipo: historia.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name,
  };
}

/** Replays a history with the current workflow bundle: resolves, or rejects with the determinism error. */
export const repetirHistoria = (historia: Historia, workflowId: string) =>
  Worker.runReplayHistory(
    { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } },
    historia,
    workflowId,
  );
