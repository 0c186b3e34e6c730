import { crearKnex, recrearBase } from '../../db/conexion';
import { migrar } from '../../db/migraciones';

/**
 * The repository tier needs a database and nothing else: no Temporal, no Chromium. A database of its own per run
 * (two runs on one machine must not drop each other's), migrated. No repository reads the SAT catalogs, so they
 * are not loaded. A missing MariaDB fails the run: these suites never skip.
 */
export default async function globalSetup() {
  const t0 = Date.now();
  const databaseUrl =
    process.env.TEST_DATABASE_URL ?? `mysql://root@127.0.0.1:3306/cfdi_repos_${process.pid}`;
  try {
    await recrearBase(databaseUrl);
  } catch (e) {
    throw new Error(
      `Infraestructura de pruebas incompleta: MariaDB no responde en ${new URL(databaseUrl).host} ` +
        `(${(e as Error).message}). Arránquela o indique otra con TEST_DATABASE_URL.`,
    );
  }
  const db = crearKnex(databaseUrl);
  try {
    await migrar(db);
  } finally {
    await db.destroy();
  }
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    // Only the database this setup named is dropped at the end: an explicit TEST_DATABASE_URL is kept.
    TEST_BASE_REPOSITORIOS: process.env.TEST_DATABASE_URL ? '' : databaseUrl,
  });
  process.stderr.write(`\nbase de repositorios lista en ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}
