import { esId } from '../../../db/ids';
import type { Request } from 'express';
import type { Esquema } from '../../../contrato';
import { diaDeConsulta } from '../../../servicios/fechas';
import { ErrorNegocio } from '../../../dominio/errores';
import { LIMITE_POR_DEFECTO } from '../../paginacion';
import { html, type Html } from '../html';

type Factura = Esquema<'Factura'>;

/** Fixed notices after an action, by code: the address bar never brings text onto a page. */
export const AVISOS: Record<string, string> = {
  contrasena: 'Su contraseña quedó guardada.',
  reintento: 'Se pidió intentarlo ahora: la operación sigue en segundo plano.',
  abandono: 'El timbrado se abandonó: quedó fallido (la factura sigue en borrador), con su evento.',
  cancelacion: 'Se pidió reintentar la cancelación ahora.',
  entrega: 'Se pidió reintentar la entrega ahora (la misma entrega, sin duplicarla).',
  reenvio: 'Se pidió reenviar el evento.',
};

/** A query parameter as text: absent or repeated (a list) is '', so no page ever sees a non-string. */
export function parametro(req: Request, nombre: string): string {
  const v = req.query[nombre];
  return typeof v === 'string' ? v : '';
}

/** A date parameter (`YYYY-MM-DD`, a real day) or undefined when absent: the API's rule and its 400 `fecha_invalida`. */
export function fechaParametro(req: Request, nombre: string): string | undefined {
  const v = parametro(req, nombre);
  return v ? diaDeConsulta(v, v, nombre) : undefined;
}

export const avisoDe = (req: Request) => AVISOS[parametro(req, 'aviso')];

/** A page's cursor: the last id of the previous page, of the list's own kind only. */
export function paginaDe(req: Request, prefijos: readonly string[]) {
  const despues = parametro(req, 'despues') || undefined;
  if (despues !== undefined && !esId(despues, prefijos))
    throw new ErrorNegocio(
      'solicitud_invalida',
      'parametro_invalido',
      'La página pedida no es válida.',
      'despues',
    );
  return { limite: LIMITE_POR_DEFECTO, despuesDe: despues };
}

/** An id in a console address, checked before it reaches a service (a clear 404 page for anything else). */
export function idDe(req: Request, prefijo: string, codigo: string, recurso: string): string {
  const id = String(req.params.id ?? '');
  if (!esId(id, [prefijo]))
    throw new ErrorNegocio('no_encontrado', codigo, `${recurso} ${id.slice(0, 40)} no existe.`, 'id');
  return id;
}

export const serieFolio = (f: Pick<Factura, 'serie' | 'folio'>) =>
  [f.serie, f.folio].filter(Boolean).join('-') || '—';

/** An invoice's state as a person reads it, with its color class. */
export function estadoFactura(f: Pick<Factura, 'estado' | 'timbrado' | 'cancelacion'>): Html {
  const [texto, clase] =
    f.estado === 'cancelada'
      ? ['Cancelada', 'neutra']
      : f.cancelacion && ['solicitada', 'en_proceso'].includes(f.cancelacion.estado)
        ? ['Cancelación en curso', 'espera']
        : f.estado === 'timbrada'
          ? ['Timbrada', 'ok']
          : f.timbrado.estado === 'pendiente'
            ? ['Timbrando', 'espera']
            : f.timbrado.estado === 'fallido'
              ? ['Timbrado fallido', 'error']
              : ['Borrador', 'neutra'];
  return html`<span class="etiqueta ${clase}">${texto}</span>`;
}
