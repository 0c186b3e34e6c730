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
  // A receipt's key is its buyer's credential on the self-invoicing portal.
  'clave',
  '*.clave',
  '*.*.clave',
];

/** Properties of a database error that carry the statement or its values (knex, mysql2). */
const CLAVES_SQL = new Set(['sql', 'bindings', 'parameters']);
// MySQL quotes the offending value in some messages: "Duplicate entry 'x' for key…", "Incorrect … value: 'x'".
const VALOR_CITADO = /(Duplicate entry |value: )'(?:[^'\\]|\\.)*'/g;

/**
 * The statements an error chain carries: mysql2's `sql` (values inlined) and knex's prefix of `message`
 * ("<statement with values> - <server message>"), which also reaches `stack` and the causes' messages.
 */
function sentencias(err: unknown, vistos = new Set<unknown>()): string[] {
  if (!err || typeof err !== 'object' || ArrayBuffer.isView(err) || vistos.has(err)) return [];
  vistos.add(err);
  const e = err as Record<string, unknown>;
  const propias: string[] = [];
  if (typeof e.sql === 'string' && e.sql) propias.push(e.sql);
  if (typeof e.message === 'string' && typeof e.sqlMessage === 'string') {
    const cola = ` - ${e.sqlMessage}`;
    if (e.message.endsWith(cola) && e.message.length > cola.length)
      propias.push(e.message.slice(0, -cola.length));
  }
  const anidadas = Object.values(e)
    .concat(e.cause ?? [])
    .flatMap((v) => sentencias(v, vistos));
  return [...propias, ...anidadas];
}

function limpiar(valor: unknown, quitar: string[], vistos: WeakSet<object>): unknown {
  if (typeof valor === 'string') {
    let s = valor;
    for (const q of quitar) s = s.split(`${q} - `).join('').split(q).join('[SQL omitido]');
    return s.replace(VALOR_CITADO, "$1'[REDACTADO]'");
  }
  if (!valor || typeof valor !== 'object' || ArrayBuffer.isView(valor) || vistos.has(valor)) return valor;
  vistos.add(valor);
  if (Array.isArray(valor)) return valor.map((v) => limpiar(v, quitar, vistos));
  return Object.fromEntries(
    Object.entries(valor)
      .filter(([k]) => !CLAVES_SQL.has(k))
      .map(([k, v]) => [k, limpiar(v, quitar, vistos)]),
  );
}

/**
 * pino's error serializer without SQL: a failed query would otherwise log the whole row (an invoice's
 * document) through knex's message, the stack and mysql2's `sql`. The code, errno, sqlState and the
 * server's text stay.
 */
export function serializarError(err: unknown): unknown {
  const quitar = [...new Set(sentencias(err))].sort((a, b) => b.length - a.length);
  return limpiar(pino.stdSerializers.err(err as Error), quitar, new WeakSet());
}

export function crearLogger(proceso: string, nivel: string, destino?: pino.DestinationStream): Logger {
  return pino(
    {
      level: nivel,
      base: { proceso },
      messageKey: 'mensaje',
      timestamp: pino.stdTimeFunctions.isoTime,
      // The Temporal SDK logs its failures under `error`: without this they print as `{}`.
      serializers: { err: serializarError, error: serializarError },
      redact: { paths: RUTAS_REDACTADAS, censor: '[REDACTADO]' },
      formatters: { level: (label) => ({ nivel: label }) },
    },
    destino,
  );
}
