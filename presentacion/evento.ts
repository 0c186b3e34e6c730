import type { Esquema } from '../contrato';
import type { FilaEvento } from '../db/repositorios/eventos';
import { LLAVE_SISTEMA } from '../dominio/alcance';
import { esUsuario } from '../dominio/usuario';
import { iso } from './fechas';

/**
 * Who acted: the API key (or console user) whose request caused the event, written by that request or by the operation it started
 * (the key that cancelled is the actor of `factura.cancelada`); `sistema` when no request is behind it; null in
 * events written before it was recorded.
 */
function actor(f: FilaEvento) {
  if (f.actor === null) return null;
  const id = f.solicitud_llave_id ?? (f.actor === LLAVE_SISTEMA ? null : f.actor);
  if (!id) return { tipo: 'sistema' as const, id: null };
  return { tipo: esUsuario(id) ? ('usuario' as const) : ('llave' as const), id };
}

/** The request behind the event; a console user's has no key (the actor names the person). */
const solicitud = (f: FilaEvento) =>
  f.solicitud_id === null
    ? null
    : { id: f.solicitud_id, llave: esUsuario(f.solicitud_llave_id) ? null : f.solicitud_llave_id };

export function dtoEvento(f: FilaEvento): Esquema<'Evento'> {
  // In the documented order: a webhook's body is this object's JSON, byte for byte what gets signed.
  const evento = {
    id: f.id,
    objeto: 'evento',
    modo: f.modo,
    tipo: f.tipo,
    creado_en: iso(f.creado_en),
    actor: actor(f),
    solicitud: solicitud(f),
    datos: f.datos,
  } satisfies Esquema<'EventoBase'> & { tipo: Esquema<'TipoEvento'>; datos: unknown };
  // `datos` is the snapshot dtoFactura, dtoPago or dtoCertificado made when the event was written, per `tipo`.
  return evento as Esquema<'Evento'>;
}

export type Evento = ReturnType<typeof dtoEvento>;
