/** What became of one delivery of an event to a webhook. */
export type EstadoEntrega = 'pendiente' | 'entregada' | 'fallida' | 'cancelada';

/** One HTTP attempt of a delivery, as the log shows it. */
export interface IntentoEntrega {
  numero: number;
  iniciado_en: Date;
  status_http: number | null;
  latencia_ms: number;
  error: { codigo: string; mensaje: string } | null;
  /** The first KiB of what the receiver answered. */
  respuesta: string;
}

/**
 * When each attempt starts, in seconds after the first: 0, 5 minutes, 30 minutes, 2 hours and 24 hours. After
 * the last one fails the delivery is `fallida`.
 */
export const PROGRAMA_ENTREGA_S = [0, 300, 1800, 7200, 86_400] as const;

/** Webhooks per account and mode. */
export const MAXIMO_WEBHOOKS = 20;

/** How long the previous secret keeps signing after a rotation. */
export const SOLAPE_ROTACION_MS = 24 * 3600 * 1000;
