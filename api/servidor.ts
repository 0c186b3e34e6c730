import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { CatalogosEnMemoria } from '../db/catalogos/memoria';
import type { Logger } from '../log/logger';
import { ApiError } from './errores';
import { abrirSolicitud, type MedidorSolicitudes } from './middleware/contexto';
import { crearRutaCatalogos, esRutaCatalogos } from './rutas/catalogos';

// What Node itself would answer (431, 408, else 400), in the API's envelope.
const RECHAZOS_DEL_PARSER: Record<string, [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'Request Header Fields Too Large',
    'encabezados_demasiado_grandes',
    'Los encabezados de la solicitud son demasiado grandes.',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    'Request Timeout',
    'solicitud_incompleta',
    'La solicitud no llegó completa a tiempo.',
  ],
};
const RECHAZO_POR_DEFECTO: [number, string, string, string] = [
  400,
  'Bad Request',
  'solicitud_malformada',
  'La solicitud HTTP está mal formada: codifique la URL (por ejemplo, q=facturaci%C3%B3n) y los encabezados.',
];

/**
 * The API's HTTP server: public catalog reads go straight to their handler (Express alone costs several
 * times the cached answer there), everything else goes through the Express app and its validation.
 */
export function crearServidor(d: {
  app: RequestListener;
  catalogos: CatalogosEnMemoria;
  logger: Logger;
  /** The app's own metrics (DepsApi.metricas): catalog reads count with the rest. */
  metricas: MedidorSolicitudes;
}): Server {
  const catalogos = crearRutaCatalogos(d.catalogos);
  const servidor = createServer((req, res) => {
    if (esRutaCatalogos(req)) catalogos(req, res, abrirSolicitud(d.logger, req, res, d.metricas).log);
    else void d.app(req, res);
  });
  // A request Node's parser refuses (raw UTF-8 in the URL, oversized headers…) never reaches the app:
  // answer it in the API's envelope instead of Node's bare "400 Bad Request".
  servidor.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, texto, codigo, mensaje] = RECHAZOS_DEL_PARSER[err.code ?? ''] ?? RECHAZO_POR_DEFECTO;
    const cuerpo = JSON.stringify(new ApiError('solicitud_invalida', codigo, mensaje));
    socket.end(
      `HTTP/1.1 ${status} ${texto}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(cuerpo)}\r\nConnection: close\r\n\r\n${cuerpo}`,
    );
  });
  return servidor;
}
