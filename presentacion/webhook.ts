import { clave } from './claves';
import type { Esquema } from '../contrato';
import { d, fijo } from '../cfdi/decimal';
import type { FilaEntrega, SaludWebhook } from '../db/repositorios/entregas';
import type { FilaWebhook } from '../db/repositorios/webhooks';
import { iso, isoONulo } from './fechas';

const SIN_INTENTOS: SaludWebhook = {
  intentos24h: 0,
  exitosos24h: 0,
  ultimoExito: null,
  fallandoDesde: null,
  ultimoFallo: null,
};

/** The endpoint's health in the contract's words: a rate with 4 decimals, the failure's reason in a sentence. */
export function dtoSalud(s: SaludWebhook = SIN_INTENTOS): Esquema<'SaludWebhook'> {
  const f = s.ultimoFallo;
  return {
    intentos_24h: s.intentos24h,
    exitosos_24h: s.exitosos24h,
    tasa_exito: s.intentos24h ? fijo(d(s.exitosos24h).div(s.intentos24h), 4) : null,
    ultimo_exito_en: isoONulo(s.ultimoExito),
    fallando_desde: isoONulo(s.fallandoDesde),
    ultimo_error: f && {
      en: iso(f.en),
      status_http: f.status_http,
      codigo: f.error?.codigo ?? 'status_http',
      mensaje:
        f.error?.mensaje ??
        (f.status_http === null ? 'El webhook no respondió' : `El webhook respondió HTTP ${f.status_http}`),
    },
  };
}

/** A webhook as every answer shows it: never a secret (creation and rotation add theirs once). */
export function dtoWebhook(f: FilaWebhook, ahora = new Date(), salud?: SaludWebhook): Esquema<'Webhook'> {
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
    salud: dtoSalud(salud),
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
