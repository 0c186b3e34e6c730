import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recibida {
  /** The raw bytes, as signed. */
  cuerpo: Buffer;
  encabezados: IncomingHttpHeaders;
  /** Epoch ms of arrival. */
  en: number;
}

/**
 * A real webhook receiver on loopback keeping each request's raw bytes and headers; `responder` picks the status
 * of the n-th request (1-based).
 */
export async function receptorWebhooks(responder: (n: number) => number | Promise<number> = () => 200) {
  const recibidas: Recibida[] = [];
  const servidor: Server = createServer((req, res) => {
    const partes: Buffer[] = [];
    req.on('data', (p: Buffer) => partes.push(p));
    req.on('end', () => {
      recibidas.push({ cuerpo: Buffer.concat(partes), encabezados: req.headers, en: Date.now() });
      void Promise.resolve(responder(recibidas.length)).then((status) => {
        if (!res.destroyed)
          res.writeHead(status, { 'content-type': 'text/plain' }).end(`respuesta ${status}`);
      });
    });
  });
  await new Promise<void>((r) => servidor.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(servidor.address() as AddressInfo).port}/hook`,
    recibidas,
    cerrar: () => new Promise<void>((r) => servidor.close(() => r())),
  };
}
