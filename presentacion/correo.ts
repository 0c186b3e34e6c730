import type { Esquema } from '../contrato';
import type { FilaCorreo } from '../db/repositorios/correos';
import { iso } from './fechas';

/** An email as the API, its events and the audit package show it. */
export function dtoCorreo(f: FilaCorreo): Esquema<'Correo'> {
  return {
    id: f.id,
    objeto: 'correo',
    modo: f.modo,
    factura: f.factura_id,
    motivo: f.motivo,
    destinatarios: f.destinatarios,
    estado: f.estado,
    intentos: f.intentos,
    respuesta_smtp: f.respuesta_smtp,
    error: f.error,
    evento: f.evento_id,
    ultimo_intento_en: f.ultimo_intento_en && iso(f.ultimo_intento_en),
    enviado_en: f.enviado_en && iso(f.enviado_en),
    creado_en: iso(f.creado_en),
  };
}
