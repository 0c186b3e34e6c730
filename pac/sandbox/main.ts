import { cargarConfigSinSecretos } from '../../config/config';
import { crearLogger } from '../../log/logger';
import { crearServidorPac } from './servidor';

const config = cargarConfigSinSecretos();
const logger = crearLogger('pac', config.logLevel);
const servidor = crearServidorPac({ logger }).listen(config.pac.sandboxPort, config.api.host, () => {
  logger.info({ puerto: config.pac.sandboxPort }, 'PAC sandbox escuchando');
});
const detener = () => servidor.close(() => process.exit(0));
process.once('SIGINT', detener);
process.once('SIGTERM', detener);
