import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClienteCfdi, type OpcionesCliente } from '../../sdk/src';

/** One request as the fake API received it. */
export interface Recibida {
  metodo: string;
  ruta: string;
  consulta: URLSearchParams;
  encabezados: IncomingHttpHeaders;
  cuerpo: Buffer;
}

/** What the fake answers; `cortar` drops the connection without an answer (a network error for the client). */
export interface Respuesta {
  estado?: number;
  json?: unknown;
  cuerpo?: Buffer | string;
  encabezados?: Record<string, string | undefined>;
  cortar?: boolean;
}

export type Manejador = (r: Recibida, n: number) => Respuesta | Promise<Respuesta>;

/** A real HTTP server on an ephemeral loopback port answering with `manejar` (n is 1-based). */
export async function servidorFalso(manejar: Manejador) {
  const recibidas: Recibida[] = [];
  const servidor = createServer((req, res) => {
    const partes: Buffer[] = [];
    req.on('data', (p: Buffer) => partes.push(p));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const r: Recibida = {
        metodo: req.method ?? '',
        ruta: url.pathname,
        consulta: url.searchParams,
        encabezados: req.headers,
        cuerpo: Buffer.concat(partes),
      };
      recibidas.push(r);
      void Promise.resolve(manejar(r, recibidas.length)).then((a) => {
        if (a.cortar) return void req.socket.destroy();
        const cuerpo = a.json !== undefined ? JSON.stringify(a.json) : (a.cuerpo ?? '');
        res.writeHead(a.estado ?? 200, {
          'content-type': a.json !== undefined ? 'application/json' : 'application/octet-stream',
          'x-request-id': `req_${recibidas.length}`,
          ...Object.fromEntries(Object.entries(a.encabezados ?? {}).filter(([, v]) => v !== undefined)),
        });
        res.end(cuerpo);
      });
    });
  });
  await new Promise<void>((r) => servidor.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(servidor.address() as AddressInfo).port}`;
  return {
    url,
    recibidas,
    cerrar: () =>
      new Promise<void>((r) => {
        servidor.closeAllConnections();
        servidor.close(() => r());
      }),
  };
}

export const errorApi = (
  estado: number,
  tipo: string,
  codigo: string,
  extra: Record<string, unknown> = {},
) => ({
  estado,
  json: { error: { tipo, codigo, mensaje: `mensaje de ${codigo}`, ...extra } },
});

/**
 * A client for the fake with a tiny backoff and a recording `dormir` that does not really wait: the waits the SDK
 * asked for are in `esperas`.
 */
export function sdkDePrueba(url: string, extra: Partial<OpcionesCliente> = {}) {
  const esperas: number[] = [];
  const sdk = new ClienteCfdi({
    llave: 'sk_test_abc123',
    urlBase: url,
    reintentos: { maximo: 3, esperaBaseMs: 10, esperaMaximaMs: 5000 },
    dormir: async (ms) => {
      esperas.push(ms);
    },
    ...extra,
  });
  return { sdk, esperas };
}
