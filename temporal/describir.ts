import type { WorkflowExecutionDescription } from '@temporalio/client';

type Marca = { seconds?: { toString(): string } | number | null; nanos?: number | null } | null | undefined;

const fecha = (m: Marca) =>
  m?.seconds == null
    ? null
    : new Date(Number(m.seconds.toString()) * 1000 + (m.nanos ?? 0) / 1e6).toISOString();

/**
 * A workflow as ops read it: status, search attributes decoded (the CLI prints them as protobuf) and each
 * pending activity with its attempt, last failure and next retry.
 */
export async function describirFlujo(d: WorkflowExecutionDescription) {
  return {
    workflowId: d.workflowId,
    runId: d.runId,
    tipo: d.type,
    estado: d.status.name,
    resumen: (await d.staticSummary()) ?? null,
    inicio: d.startTime.toISOString(),
    cierre: d.closeTime?.toISOString() ?? null,
    eventos: d.historyLength,
    atributos: Object.fromEntries(
      d.typedSearchAttributes
        .getAll()
        .filter((p) => !['BuildIds', 'TemporalChangeVersion'].includes(p.key.name))
        .map((p) => [p.key.name, p.value]),
    ),
    pendientes: (d.raw.pendingActivities ?? []).map((p) => ({
      actividad: p.activityType?.name ?? null,
      intento: p.attempt ?? null,
      ultima_falla: p.lastFailure
        ? { tipo: p.lastFailure.applicationFailureInfo?.type ?? null, mensaje: p.lastFailure.message ?? null }
        : null,
      ultimo_intento: fecha(p.lastStartedTime),
      siguiente_intento: fecha(p.nextAttemptScheduleTime),
    })),
  };
}
