import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashLlave } from '../seguridad/llaves-api';
import { cargarConfigSinSecretos } from '../config/config';
import { rutaDatos } from '../config/rutas';
import { cargarCatalogos } from './catalogos/cargar';
import { asegurarBase, crearKnex, type Knex } from './conexion';
import { migrar } from './migraciones';
import { crearCuentaConLlave } from './repositorios/cuentas';
import { crearRepositorioUsuarios } from './repositorios/usuarios';
import { contrasenaTemporal, hashContrasena } from '../seguridad/contrasenas';
import { nuevoId } from './ids';

/**
 * Provisioning of the application database, idempotent: creates the database, runs the migrations,
 * loads the SAT catalogs and (with --demo, never in production) ensures a demo account with a test key.
 */
async function main() {
  const config = cargarConfigSinSecretos();
  const demo = process.argv.includes('--demo');
  const t0 = Date.now();
  await asegurarBase(config.databaseUrl);
  const db = crearKnex(config.databaseUrl);
  try {
    const aplicadas = await migrar(db);
    console.log(aplicadas.length ? `migraciones aplicadas: ${aplicadas.join(', ')}` : 'migraciones al día');
    await cargarCatalogos(db, (linea) => console.log(`catálogos: ${linea}`));
    if (demo) {
      if (config.entorno === 'production') throw new Error('--demo no está permitido en production');
      await asegurarDemo(db);
    }
  } finally {
    await db.destroy();
  }
  console.log(`base de datos lista en ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

interface Demo {
  cuenta: { id: string };
  llave: { secreto: string };
  /** The console's demo admin and its one-time password (good until its first sign-in). */
  consola?: { correo: string; contrasena_temporal: string };
}

const CORREO_DEMO = 'admin@demo.local';

/** The demo key's secret is kept in git-ignored .data/demo.json (0600), only so `make up` can print it. */
async function asegurarDemo(db: Knex) {
  const archivo = join(rutaDatos(), 'demo.json');
  let demo: Demo | undefined;
  try {
    const previo = JSON.parse(readFileSync(archivo, 'utf8')) as Demo;
    const vigente = await db('llaves_api')
      .where({ hash: hashLlave(previo.llave.secreto), cuenta_id: previo.cuenta.id })
      .whereNull('revocada_en')
      .first();
    if (vigente) demo = previo;
  } catch {
    // missing or stale: create a new one
  }
  if (!demo) {
    demo = await crearCuentaConLlave(db, 'Cuenta de demostración');
    console.log(`cuenta de demostración creada: ${demo.cuenta.id}`);
  }
  // The console's admin of the demo account, created once (a database kept from before the console gets one too).
  const usuarios = crearRepositorioUsuarios(db);
  if (!demo.consola && !(await usuarios.porCorreo(CORREO_DEMO))) {
    const contrasena = contrasenaTemporal();
    await usuarios.insertar({
      id: nuevoId('usr'),
      cuenta_id: demo.cuenta.id,
      correo: CORREO_DEMO,
      rol: 'admin',
      debe_cambiar_contrasena: true,
      creado_en: new Date(),
      contrasena_hash: await hashContrasena(contrasena),
    });
    demo.consola = { correo: CORREO_DEMO, contrasena_temporal: contrasena };
  }
  mkdirSync(rutaDatos(), { recursive: true });
  writeFileSync(archivo, JSON.stringify(demo, null, 2), { mode: 0o600 });
}

main().catch((e) => {
  console.error(`db: ${(e as Error).message}`);
  process.exit(1);
});
