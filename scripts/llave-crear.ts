import { parseArgs } from 'node:util';
import { cargarConfigSinSecretos } from '../config/config';
import { crearKnex } from '../db/conexion';
import { crearRepositorioCuentas } from '../db/repositorios/cuentas';
import { crearRepositorioLlaves } from '../db/repositorios/llaves';
import { ErrorNegocio } from '../dominio/errores';
import { crearServicioCuenta } from '../servicios/cuenta';
import { crearServicioLlaves } from '../servicios/llaves';

const USO =
  'uso: npm run -s llave:crear -- --cuenta cta_… --modo test|live --nombre "Servidor de facturación"';

/**
 * Operator command: issues a key of an account and prints it with its secret (the only time it is shown).
 * A test key cannot create live keys, so this is where an account's first live key comes from; the service
 * applies the same live lock as the API.
 */
async function main() {
  const { values } = parseArgs({
    options: { cuenta: { type: 'string' }, modo: { type: 'string' }, nombre: { type: 'string' } },
  });
  const cuentaId = values.cuenta?.trim();
  const nombre = values.nombre?.trim();
  const modo = values.modo;
  if (!cuentaId || !nombre || (modo !== 'test' && modo !== 'live')) {
    console.error(USO);
    process.exit(2);
  }
  const db = crearKnex(cargarConfigSinSecretos().databaseUrl);
  try {
    const cuentas = crearRepositorioCuentas(db);
    if (!(await cuentas.obtener(cuentaId))) {
      console.error(`llave:crear: la cuenta ${cuentaId} no existe`);
      process.exitCode = 1;
      return;
    }
    const llaves = crearServicioLlaves({
      llaves: crearRepositorioLlaves(db),
      cuenta: crearServicioCuenta({ cuentas }),
    });
    console.log(JSON.stringify(await llaves.crearPorOperador(cuentaId, { nombre, modo }), null, 2));
  } catch (e) {
    if (!(e instanceof ErrorNegocio)) throw e;
    console.error(`llave:crear: ${e.codigo}: ${e.message}`);
    process.exitCode = 1;
  } finally {
    await db.destroy();
  }
}

main().catch((e) => {
  console.error(`llave:crear: ${(e as Error).message}`);
  process.exit(1);
});
