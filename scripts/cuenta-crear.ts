import { parseArgs } from 'node:util';
import { cargarConfigSinSecretos } from '../config/config';
import { crearKnex } from '../db/conexion';
import { crearCuentaConLlave } from '../db/repositorios/cuentas';

/** Bootstrap: creates an account and prints it with its first test key (the only time the secret is shown). */
async function main() {
  const { values } = parseArgs({ options: { nombre: { type: 'string' } } });
  const nombre = values.nombre?.trim();
  if (!nombre) {
    console.error('uso: npm run -s cuenta:crear -- --nombre "Mi empresa"');
    process.exit(2);
  }
  const db = crearKnex(cargarConfigSinSecretos().databaseUrl);
  try {
    console.log(JSON.stringify(await crearCuentaConLlave(db, nombre), null, 2));
  } finally {
    await db.destroy();
  }
}

main().catch((e) => {
  console.error(`cuenta:crear: ${(e as Error).message}`);
  process.exit(1);
});
