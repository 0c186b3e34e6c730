import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptions,
} from '@temporalio/client';
import type { NombreFlujo } from './espera';

type NombreProgramacion = 'reconciliar' | 'reanudar' | 'certificados';

export interface OpcionesProgramaciones {
  taskQueue: string;
  /** Prefix of the schedule ids (tests use their own); `cfdi` by default. */
  prefijo?: string;
  /** Only these schedules (tests); all of them by default. */
  solo?: NombreProgramacion[];
}

/** The schedule ids, so ops can find them: `temporal schedule describe --schedule-id cfdi-reconciliar-eventos`. */
export const idsProgramaciones = (prefijo = 'cfdi') => ({
  reconciliar: `${prefijo}-reconciliar-eventos`,
  reanudar: `${prefijo}-reanudar-procesos`,
  certificados: `${prefijo}-vencimiento-certificados`,
});

/**
 * Creates the project's Temporal Schedules, or brings an existing one to this definition (a deployment may
 * change the task queue): the event reconciler and the start reconciler every minute, and the certificate expiry check daily at 13:00
 * UTC (07:00 in central Mexico), also run once at creation.
 */
export async function asegurarProgramaciones(cliente: Client, o: OpcionesProgramaciones): Promise<void> {
  const ids = idsProgramaciones(o.prefijo);
  // Each schedule starts one workflow without input; its runs take the schedule's id plus a timestamp.
  const iniciar = (workflowType: NombreFlujo<() => Promise<number>>, workflowId: string) => ({
    type: 'startWorkflow' as const,
    workflowType,
    workflowId,
    taskQueue: o.taskQueue,
    args: [],
  });
  const definiciones: (ScheduleOptions & { alCrear?: boolean; nombre: NombreProgramacion })[] = [
    {
      nombre: 'reconciliar',
      scheduleId: ids.reconciliar,
      spec: { intervals: [{ every: '1 minute' }] },
      action: iniciar('reconciliarEventos', ids.reconciliar),
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      memo: { descripcion: 'Despacha a webhooks los eventos que el camino inmediato no despachó.' },
    },
    {
      nombre: 'reanudar',
      scheduleId: ids.reanudar,
      spec: { intervals: [{ every: '1 minute' }] },
      action: iniciar('reanudarProcesos', ids.reanudar),
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      memo: {
        descripcion:
          'Inicia el workflow de cada timbrado, cancelación o pago pendiente en MySQL cuyo inicio no llegó a Temporal.',
      },
    },
    {
      nombre: 'certificados',
      scheduleId: ids.certificados,
      spec: { calendars: [{ hour: 13, minute: 0 }] },
      action: iniciar('revisarCertificados', ids.certificados),
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
      memo: { descripcion: 'Escribe certificado.por_vencer y certificado.vencido una vez por certificado.' },
      alCrear: true,
    },
  ];
  for (const { alCrear, nombre, ...d } of definiciones) {
    if (o.solo && !o.solo.includes(nombre)) continue;
    try {
      await cliente.schedule.create(alCrear ? { ...d, state: { triggerImmediately: true } } : d);
    } catch (e) {
      if (!(e instanceof ScheduleAlreadyRunning)) throw e;
      await cliente.schedule.getHandle(d.scheduleId).update((previa) => ({
        ...previa,
        spec: d.spec,
        action: d.action,
        policies: { ...previa.policies, ...d.policies },
      }));
    }
  }
}
