import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type CalendarSpec,
  type Client,
} from '@temporalio/client';
import { zonaIana } from '../cfdi/fecha';
import type { ProgramacionGlobalPendiente } from '../db/repositorios/organizaciones';
import type { Periodicidad } from '../dominio/factura-global';
import type { ProgramadorGlobal } from '../servicios/organizaciones';
import { ATRIBUTOS } from '../workflows/atributos';
import type { facturaGlobalProgramada } from '../workflows/globales';
import type { NombreFlujo } from './espera';

/** `temporal schedule describe --schedule-id cfdi-factura-global-org_…` */
export const idProgramacionGlobal = (organizacionId: string, prefijo = 'cfdi') =>
  `${prefijo}-factura-global-${organizacionId}`;

// A quarter past midnight: the period closed at midnight, and the SAT allows 24 hours after it.
const A_LAS = { hour: 0, minute: 15 };

/**
 * When each period closes, in the organization's local time. Weeks are cut at the month's end (a global names
 * one month), so a weekly one also runs on the 1st; the fortnights close on the 16th and the 1st.
 */
export function calendariosGlobal(p: Periodicidad): CalendarSpec[] {
  switch (p) {
    case '01':
      return [A_LAS];
    case '02':
      return [
        { ...A_LAS, dayOfWeek: 'MONDAY' },
        { ...A_LAS, dayOfMonth: 1 },
      ];
    case '03':
      return [{ ...A_LAS, dayOfMonth: [1, 16] }];
    case '04':
      return [{ ...A_LAS, dayOfMonth: 1 }];
    case '05':
      return [
        { ...A_LAS, dayOfMonth: 1, month: ['JANUARY', 'MARCH', 'MAY', 'JULY', 'SEPTEMBER', 'NOVEMBER'] },
      ];
  }
}

/**
 * An organization's global-invoice Temporal Schedule, brought to its setting: created or updated while it is on,
 * deleted when off. Ops see it in the Temporal UI's Schedules, with the workflows it started.
 */
export function crearProgramadorGlobal(d: {
  cliente: Client;
  taskQueue: string;
  /** c_CodigoPostal's zone of a postal code, in the catalog's words. */
  husoDe(codigoPostal: string): string;
  prefijo?: string;
}): ProgramadorGlobal {
  return {
    async sincronizar(o: ProgramacionGlobalPendiente): Promise<void> {
      const scheduleId = idProgramacionGlobal(o.id, d.prefijo);
      const handle = d.cliente.schedule.getHandle(scheduleId);
      if (!o.automatica) {
        await handle.delete().catch((e: unknown) => {
          if (!(e instanceof ScheduleNotFoundError)) throw e;
        });
        return;
      }
      const tipo: NombreFlujo<typeof facturaGlobalProgramada> = 'facturaGlobalProgramada';
      const definicion = {
        spec: {
          calendars: calendariosGlobal(o.periodicidad as Periodicidad),
          timezone: zonaIana(d.husoDe(o.codigo_postal)),
        },
        action: {
          type: 'startWorkflow' as const,
          workflowType: tipo,
          workflowId: scheduleId,
          taskQueue: d.taskQueue,
          args: [{ cuentaId: o.cuenta_id, modo: o.modo, organizacionId: o.id }],
          typedSearchAttributes: [
            { key: ATRIBUTOS.CuentaId, value: o.cuenta_id },
            { key: ATRIBUTOS.Modo, value: o.modo },
            { key: ATRIBUTOS.OrganizacionId, value: o.id },
          ],
        },
        // A run missed while the service was down is made up within the SAT's 24 hours.
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '20 hours' as const },
      };
      try {
        await d.cliente.schedule.create({
          scheduleId,
          ...definicion,
          memo: { descripcion: `Factura global de ${o.id} al cerrar cada periodo (${o.periodicidad}).` },
        });
      } catch (e) {
        if (!(e instanceof ScheduleAlreadyRunning)) throw e;
        await handle.update((previa) => ({
          ...previa,
          spec: definicion.spec,
          action: definicion.action,
          policies: { ...previa.policies, ...definicion.policies },
        }));
      }
    },
  };
}
