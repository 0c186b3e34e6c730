import { cargarConfigSinSecretos } from '../../config/config';
import { crearKnex } from '../../db/conexion';
import { crearLogger } from '../../log/logger';
import { crearServidorPac } from './servidor';

const config = cargarConfigSinSecretos();
const logger = crearLogger('pac', config.logLevel);
const db = crearKnex(config.databaseUrl);
// PAC_SANDBOX_* settings are read by crearServidorPac itself (pac/sandbox/configuracion.ts).
const pac = crearServidorPac({ logger, db });
const servidor = pac.listen(config.pac.sandboxPort, config.api.host, () => {
  logger.info({ puerto: config.pac.sandboxPort }, 'PAC sandbox escuchando');
});
const detener = () =>
  servidor.close(() => {
    void db.destroy().finally(() => process.exit(0));
  });
process.once('SIGINT', detener);
process.once('SIGTERM', detener);
