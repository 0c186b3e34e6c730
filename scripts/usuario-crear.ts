import { parseArgs } from 'node:util';
import { cargarConfigSinSecretos } from '../config/config';
import { crearKnex } from '../db/conexion';
import { crearRepositorioCuentas } from '../db/repositorios/cuentas';
import { crearRepositorioUsuarios } from '../db/repositorios/usuarios';
import { ErrorNegocio } from '../dominio/errores';
import { crearServicioUsuarios } from '../servicios/usuarios';

const USO =
  'uso: npm run -s usuario:crear -- --cuenta cta_… --correo persona@empresa.mx --rol admin|finanzas|operaciones';

/**
 * Operator command: creates a console user of an account and prints its one-time password (the only time it is
 * shown); the user chooses their own at the first sign-in.
 */
async function main() {
  const { values } = parseArgs({
    options: { cuenta: { type: 'string' }, correo: { type: 'string' }, rol: { type: 'string' } },
  });
  const cuentaId = values.cuenta?.trim();
  if (!cuentaId || !values.correo || !values.rol) {
    console.error(USO);
    process.exit(2);
  }
  const db = crearKnex(cargarConfigSinSecretos().databaseUrl);
  try {
    const cuentas = crearRepositorioCuentas(db);
    if (!(await cuentas.obtener(cuentaId))) {
      console.error(`usuario:crear: la cuenta ${cuentaId} no existe`);
      process.exitCode = 1;
      return;
    }
    const usuarios = crearServicioUsuarios({
      usuarios: crearRepositorioUsuarios(db),
      liveHabilitado: async () => false,
    });
    const { usuario, contrasena } = await usuarios.crear({
      cuentaId,
      correo: values.correo,
      rol: values.rol,
    });
    console.log(
      JSON.stringify(
        {
          id: usuario.id,
          cuenta: usuario.cuenta_id,
          correo: usuario.correo,
          rol: usuario.rol,
          contrasena_temporal: contrasena,
          entrar_en: '/consola/entrar',
        },
        null,
        2,
      ),
    );
  } catch (e) {
    if (!(e instanceof ErrorNegocio)) throw e;
    console.error(`usuario:crear: ${e.codigo}: ${e.message}`);
    process.exitCode = 1;
  } finally {
    await db.destroy();
  }
}

main().catch((e) => {
  console.error(`usuario:crear: ${(e as Error).message}`);
  process.exit(1);
});
