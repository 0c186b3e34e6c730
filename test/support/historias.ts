import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';

/** Where the histories recorded by released versions of the workflows are kept. */
export const rutaHistoria = (archivo: string) => join(__dirname, '..', 'fixtures', 'historias', archivo);

/** A recorded history as JSON, with what the tests assert about its shape. */
export function leerHistoria(archivo: string) {
  const json = JSON.parse(readFileSync(rutaHistoria(archivo), 'utf8')) as {
    events: {
      eventType: string;
      activityTaskScheduledEventAttributes?: { activityType: { name: string } };
    }[];
  };
  return {
    historia: historyFromJSON(json),
    /** The activities scheduled on the server, in order. */
    programadas: json.events
      .map((e) => e.activityTaskScheduledEventAttributes?.activityType.name)
      .filter(Boolean),
    conMarcadores: json.events.some((e) => e.eventType === 'EVENT_TYPE_MARKER_RECORDED'),
  };
}

/** Replays a history with the current workflow bundle: resolves, or rejects with the determinism error. */
export const repetirHistoria = (historia: temporal.api.history.v1.IHistory, workflowId: string) =>
  Worker.runReplayHistory(
    { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } },
    historia,
    workflowId,
  );
