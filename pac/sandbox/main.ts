import { cargarConfigSinSecretos } from '../../config/config';
import { crearKnex } from '../../db/conexion';
import { crearLogger } from '../../log/logger';
import { leerConfigSandbox } from './configuracion';
import { crearSandboxPac } from './servidor';

// The process owns what the sandbox uses: it reads the settings and opens and closes the database.
const config = cargarConfigSinSecretos();
const logger = crearLogger('pac', config.logLevel);
const db = crearKnex(config.databaseUrl);
const pac = crearSandboxPac({ config: leerConfigSandbox(), db, logger });
const servidor = pac.listen(config.pac.sandboxPort, config.api.host, () => {
  logger.info({ puerto: config.pac.sandboxPort }, 'PAC sandbox escuchando');
});
const detener = () =>
  servidor.close(() => {
    void db.destroy().finally(() => process.exit(0));
  });
process.once('SIGINT', detener);
process.once('SIGTERM', detener);
