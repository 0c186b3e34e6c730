import { clave } from './claves';
import type { Esquema } from '../contrato';
import type { FilaEntrega } from '../db/repositorios/entregas';
import type { FilaWebhook } from '../db/repositorios/webhooks';
import { iso, isoONulo } from './fechas';

/** A webhook as every answer shows it: never a secret (creation and rotation add theirs once). */
export function dtoWebhook(f: FilaWebhook, ahora = new Date()): Esquema<'Webhook'> {
  const solape =
    f.secreto_anterior_hasta && f.secreto_anterior_hasta > ahora ? f.secreto_anterior_hasta : null;
  return {
    id: f.id,
    objeto: 'webhook' as const,
    modo: f.modo,
    url: f.url,
    eventos_suscritos: f.eventos_suscritos.map((t) => clave('TipoEvento', t)),
    activo: f.activo,
    secreto_anterior_vence_en: isoONulo(solape),
    creado_en: iso(f.creado_en),
    actualizado_en: iso(f.actualizado_en),
  };
}

export function dtoEntrega(f: FilaEntrega): Esquema<'Entrega'> {
  return {
    id: f.id,
    objeto: 'entrega' as const,
    modo: f.modo,
    evento: f.evento_id,
    tipo_evento: clave('TipoEvento', f.tipo_evento),
    webhook: f.webhook_id,
    origen: f.numero === 0 ? ('evento' as const) : ('reenvio' as const),
    estado: f.estado,
    intentos: f.intentos.map((i) => ({
      numero: i.numero,
      iniciado_en: iso(i.iniciado_en),
      status_http: i.status_http,
      latencia_ms: i.latencia_ms,
      error: i.error,
      respuesta: i.respuesta,
    })),
    proximo_intento_en: isoONulo(f.proximo_intento_en),
    creado_en: iso(f.creado_en),
    actualizado_en: iso(f.actualizado_en),
  };
}

export type Webhook = ReturnType<typeof dtoWebhook>;
export type Entrega = ReturnType<typeof dtoEntrega>;
