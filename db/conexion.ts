import knex, { type Knex } from 'knex';

export type { Knex };

/** Splits a DATABASE_URL into the server part and the database name. */
export function partesUrl(databaseUrl: string): { servidor: string; base: string } {
  const url = new URL(databaseUrl);
  const base = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(base)) {
    throw new Error(`DATABASE_URL debe nombrar una base de datos [A-Za-z0-9_]: "${base}"`);
  }
  url.pathname = '/';
  return { servidor: url.toString(), base };
}

/**
 * Every connection starts READ COMMITTED (why: db/transacciones.ts). Set once per connection instead of a
 * `SET TRANSACTION` round trip before every transaction.
 */
const sesionLeidaConfirmada = (
  conexion: { query(sql: string, cb: (err: Error | null) => void): void },
  listo: (err: Error | null, conexion: unknown) => void,
) => conexion.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED', (err) => listo(err, conexion));

export function crearKnex(databaseUrl: string, pool = { min: 0, max: 10 }): Knex {
  const url = new URL(databaseUrl);
  return knex({
    client: 'mysql2',
    connection: {
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.replace(/^\//, '')) || undefined,
      charset: 'utf8mb4',
      timezone: 'Z',
      dateStrings: false,
      supportBigNumbers: true,
      bigNumberStrings: true,
    },
    pool: { ...pool, afterCreate: sesionLeidaConfirmada },
  });
}

// The driver's and the pool's ways of saying the server is unreachable or went away mid-query.
const CODIGOS_CONEXION = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
]);

/**
 * True when a query failed because the database could not be reached (down, restarting, connection lost, pool
 * exhausted): a transient outage the API answers with 503, not a bug.
 */
export function esFallaDeConexion(err: unknown): boolean {
  const e = err as { code?: unknown; fatal?: unknown; name?: unknown } | undefined;
  if (!e || typeof e !== 'object') return false;
  if (e.name === 'KnexTimeoutError') return true;
  return (typeof e.code === 'string' && CODIGOS_CONEXION.has(e.code)) || e.fatal === true;
}

/** Creates the database named in the URL when it does not exist yet. */
export async function asegurarBase(databaseUrl: string): Promise<void> {
  const { servidor, base } = partesUrl(databaseUrl);
  const raiz = crearKnex(servidor, { min: 0, max: 1 });
  try {
    await raiz.raw(
      `CREATE DATABASE IF NOT EXISTS \`${base}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await raiz.destroy();
  }
}

/** Drops the database: only for the test suite's own databases. */
export async function borrarBase(databaseUrl: string): Promise<void> {
  const { servidor, base } = partesUrl(databaseUrl);
  const raiz = crearKnex(servidor, { min: 0, max: 1 });
  try {
    await raiz.raw(`DROP DATABASE IF EXISTS \`${base}\``);
  } finally {
    await raiz.destroy();
  }
}

/** Drops and recreates the database: only for the test suite's own database. */
export async function recrearBase(databaseUrl: string): Promise<void> {
  await borrarBase(databaseUrl);
  await asegurarBase(databaseUrl);
}
