import { fechaCfdi, fechaEnZona } from '../cfdi/fecha';
import { esFechaValida } from '../dominio/cobranza';
import { ErrorNegocio } from '../dominio/errores';

export const SOLO_FECHA = /^\d{4}-\d{2}-\d{2}$/;
const CON_ZONA = /(Z|[+-]\d{2}:\d{2})$/;

const fechaInvalida = (fecha: string, parametro: string) =>
  new ErrorNegocio(
    'solicitud_invalida',
    'fecha_invalida',
    `${parametro} ${fecha} no es una fecha válida.`,
    parametro,
  );

/**
 * A date of the request as CFDIs write dates: the local time of the place of issue. A bare date is noon; a
 * local time without zone is taken as is; an instant with zone is converted.
 */
export function fechaLocal(fecha: string, husoHorario: string, parametro: string): string {
  if (SOLO_FECHA.test(fecha)) return valida(`${fecha}T12:00:00`, fecha, parametro);
  if (CON_ZONA.test(fecha)) {
    const instante = new Date(fecha);
    if (Number.isNaN(instante.getTime())) throw fechaInvalida(fecha, parametro);
    return fechaCfdi(instante, husoHorario);
  }
  const [dia, hora = ''] = fecha.split('T');
  const [hh, mm, ss = '00'] = hora.split('.')[0]!.split(':');
  return valida(`${dia}T${hh}:${mm}:${ss}`, fecha, parametro);
}

/** The calendar must have the day and the clock the time (2026-02-30 and 25:00 are refused). */
function valida(local: string, original: string, parametro: string): string {
  const t = new Date(`${local}Z`);
  if (Number.isNaN(t.getTime()) || t.toISOString().slice(0, 19) !== local)
    throw fechaInvalida(original, parametro);
  return local;
}

/** Today in central Mexico's time: the default day of the console's reads (a statement's cut-off, a summary's end). */
export const hoyEnMexico = (ahora: Date) => fechaEnZona(ahora, 'America/Mexico_City').slice(0, 10);

/** A query's calendar day (`YYYY-MM-DD`), or its default; an impossible day (2026-02-30) is 400 `fecha_invalida`. */
export function diaDeConsulta(fecha: string | undefined, porOmision: string, parametro: string): string {
  if (fecha === undefined) return porOmision;
  if (!esFechaValida(fecha)) throw fechaInvalida(fecha, parametro);
  return fecha;
}
