import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths whose values never reach a log line: credentials, keys and every kind of secret. */
export const RUTAS_REDACTADAS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.authorization',
  '*.contrasena',
  '*.llave',
  '*.secreto',
  '*.secreto_firma',
  '*.password',
  '*.claveMaestra',
  '*.*.contrasena',
  '*.*.llave',
  '*.*.secreto',
  '*.*.secreto_firma',
  'contrasena',
  'llave',
  'secreto',
  'secreto_firma',
];

export function crearLogger(proceso: string, nivel: string, destino?: pino.DestinationStream): Logger {
  return pino(
    {
      level: nivel,
      base: { proceso },
      messageKey: 'mensaje',
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: RUTAS_REDACTADAS, censor: '[REDACTADO]' },
      formatters: { level: (label) => ({ nivel: label }) },
    },
    destino,
  );
}
