import { X509Certificate } from 'node:crypto';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { generarCsd } from '../support/certificados';
import { enviarWebhook, type EnvioWebhook } from '../../webhooks/enviar';
import { encabezadosFirma, verificarFirmaConTiempo, verificarFirmaCuerpo } from '../../webhooks/firma';
import type { Resolver } from '../../webhooks/red';

const CUERPO = Buffer.from(
  JSON.stringify({ id: 'evt_01', tipo: 'factura.timbrada', datos: { total: '116.00' } }),
);

interface Recibida {
  metodo: string;
  url: string;
  encabezados: IncomingHttpHeaders;
  cuerpo: Buffer;
}

type Manejador = (req: IncomingMessage, res: ServerResponse, cuerpo: Buffer) => void;

const cierres: (() => Promise<void>)[] = [];
const relojes: NodeJS.Timeout[] = [];

afterEach(async () => {
  for (const r of relojes.splice(0)) clearTimeout(r);
  await Promise.all(cierres.splice(0).map((c) => c()));
});

async function escuchar(s: net.Server): Promise<number> {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
}

/** A receiver on 127.0.0.1 that records what arrives, then lets `manejar` answer. */
async function receptor(manejar: Manejador = (_q, res) => res.end('recibido')) {
  const recibidas: Recibida[] = [];
  let conexiones = 0;
  const s = http.createServer((req, res) => {
    const trozos: Buffer[] = [];
    req.on('data', (t: Buffer) => trozos.push(t));
    req.on('end', () => {
      const cuerpo = Buffer.concat(trozos);
      recibidas.push({ metodo: req.method ?? '', url: req.url ?? '', encabezados: req.headers, cuerpo });
      manejar(req, res, cuerpo);
    });
  });
  s.on('connection', () => conexiones++);
  const puerto = await escuchar(s);
  cierres.push(async () => {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  });
  return {
    puerto,
    url: `http://127.0.0.1:${puerto}`,
    recibidas,
    conexiones: () => conexiones,
  };
}

/** A TCP server that accepts and never says anything. */
async function mudo() {
  const sockets: net.Socket[] = [];
  const s = net.createServer((c) => sockets.push(c));
  const puerto = await escuchar(s);
  cierres.push(async () => {
    for (const c of sockets) c.destroy();
    await new Promise((r) => s.close(r));
  });
  return { puerto, aceptadas: () => sockets.length };
}

const envio = (url: string, extra: Partial<EnvioWebhook> = {}): EnvioWebhook => ({
  url,
  cuerpo: CUERPO,
  encabezados: {},
  modo: 'test',
  localesEnTest: true,
  ...extra,
});

const esperar = (ms: number) =>
  new Promise<void>((r) => {
    relojes.push(setTimeout(r, ms));
  });

describe('enviarWebhook: a delivered request', () => {
  it('POSTs the body with its headers and answers ok for a 2xx', async () => {
    const r0 = await receptor((_q, res) => {
      res.statusCode = 202;
      res.end('{"recibido":true}');
    });
    const r = await enviarWebhook(
      envio(`${r0.url}/hooks/cfdi?cuenta=7`, {
        encabezados: { 'X-Facturacion-Evento': 'evt_01', 'content-type': 'text/plain', 'User-Agent': 'otro' },
      }),
    );
    expect(r).toEqual({
      ok: true,
      status: 202,
      error: null,
      respuesta: '{"recibido":true}',
      latenciaMs: expect.any(Number),
    });
    expect(r.latenciaMs).toBeGreaterThanOrEqual(0);
    expect(r.latenciaMs).toBeLessThan(5000);
    expect(r0.recibidas).toHaveLength(1);
    const [q] = r0.recibidas as [Recibida];
    expect(q.metodo).toBe('POST');
    expect(q.url).toBe('/hooks/cfdi?cuenta=7');
    expect(q.encabezados['content-type']).toBe('application/json');
    expect(q.encabezados['user-agent']).toBe('cfdi-api-webhooks/1');
    expect(q.encabezados['x-facturacion-evento']).toBe('evt_01');
    expect(q.encabezados['content-length']).toBe(String(CUERPO.length));
    expect(q.cuerpo.equals(CUERPO)).toBe(true);
  });

  it('connects to the address that was checked, keeping the name in Host (no second resolution)', async () => {
    const r0 = await receptor();
    const pedidos: string[] = [];
    const resolver: Resolver = async (host) => {
      pedidos.push(host);
      return ['127.0.0.1'];
    };
    // receptor.prueba does not exist in the DNS: reaching the server proves the pinned lookup was used.
    const r = await enviarWebhook(envio(`http://receptor.prueba:${r0.puerto}/h`, { resolver }));
    expect(r.ok).toBe(true);
    expect(pedidos).toEqual(['receptor.prueba']);
    expect(r0.recibidas[0]?.encabezados.host).toBe(`receptor.prueba:${r0.puerto}`);
  });

  it('reuses the connection for consecutive deliveries to one receiver', async () => {
    const r0 = await receptor();
    for (let i = 0; i < 3; i++) expect((await enviarWebhook(envio(`${r0.url}/h`))).ok).toBe(true);
    expect(r0.recibidas).toHaveLength(3);
    expect(r0.conexiones()).toBe(1);
  });

  it('retries once on a fresh connection when a pooled one was closed by the receiver', async () => {
    // Connection 1 answers one request and resets on the next; connection 2 answers normally.
    const peticiones: number[] = [];
    const sockets: net.Socket[] = [];
    const s = net.createServer((c) => {
      sockets.push(c);
      const numero = peticiones.length + 1;
      let vistas = 0;
      peticiones.push(0);
      c.on('error', () => undefined);
      c.on('data', (d: Buffer) => {
        if (!d.includes('POST ')) return;
        vistas += 1;
        peticiones[numero - 1] = vistas;
        if (numero === 1 && vistas === 2) c.resetAndDestroy();
        else c.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      });
    });
    const puerto = await escuchar(s);
    cierres.push(async () => {
      for (const c of sockets) c.destroy();
      await new Promise((r) => s.close(r));
    });
    const url = `http://127.0.0.1:${puerto}/h`;
    expect(await enviarWebhook(envio(url))).toMatchObject({ ok: true, respuesta: 'ok' });
    expect(await enviarWebhook(envio(url))).toMatchObject({ ok: true, status: 200, respuesta: 'ok' });
    expect(peticiones).toEqual([2, 1]);
  });

  it('the receiver verifies both signature headers over the raw body it got', async () => {
    const secretos = ['whsec_actual-de-prueba', 'whsec_anterior-de-prueba'];
    const t = Math.floor(Date.now() / 1000);
    const verificaciones: boolean[] = [];
    const r0 = await receptor((req, res, cuerpo) => {
      const h = (n: string) => String(req.headers[n] ?? '');
      const ahora = Math.floor(Date.now() / 1000);
      verificaciones.push(
        verificarFirmaCuerpo(cuerpo, h('x-facturacion-firma'), secretos[0]!),
        verificarFirmaCuerpo(cuerpo, h('x-facturacion-firma-anterior'), secretos[1]!),
        verificarFirmaConTiempo(cuerpo, h('x-facturacion-firma-tiempo'), secretos[0]!, ahora),
        verificarFirmaConTiempo(cuerpo, h('x-facturacion-firma-tiempo'), secretos[1]!, ahora),
        verificarFirmaCuerpo(cuerpo, h('x-facturacion-firma'), 'whsec_ajeno'),
      );
      res.statusCode = verificaciones.slice(0, 4).every(Boolean) ? 204 : 401;
      res.end();
    });
    const r = await enviarWebhook(
      envio(`${r0.url}/h`, { encabezados: encabezadosFirma(CUERPO, secretos, t) }),
    );
    expect(verificaciones).toEqual([true, true, true, true, false]);
    expect(r).toMatchObject({ ok: true, status: 204, respuesta: '' });
    expect(r0.recibidas[0]?.encabezados['x-facturacion-firma-tiempo']).toMatch(
      new RegExp(`^t=${t},v1=[0-9a-f]{64},v1=[0-9a-f]{64}$`),
    );
  });
});

describe('enviarWebhook: refused destinations', () => {
  it('refuses a private address in live mode before connecting', async () => {
    const r0 = await receptor();
    const r = await enviarWebhook(envio(`${r0.url}/h`, { modo: 'live' }));
    expect(r).toMatchObject({ ok: false, status: null, respuesta: '' });
    expect(r.error?.codigo).toBe('url_no_segura');
    expect(r.error?.mensaje).toBe('En modo live la URL del webhook debe usar https.');
    const s = await enviarWebhook(envio(`https://127.0.0.1:${r0.puerto}/h`, { modo: 'live' }));
    expect(s.error).toEqual({
      codigo: 'url_no_segura',
      mensaje:
        'La URL apunta a 127.0.0.1, una dirección de loopback: en modo live solo se admiten direcciones públicas.',
    });
    expect(r0.recibidas).toHaveLength(0);
  });

  it('refuses loopback in test mode when local addresses are not allowed', async () => {
    const r0 = await receptor();
    const r = await enviarWebhook(envio(`${r0.url}/h`, { localesEnTest: false }));
    expect(r.error?.codigo).toBe('url_no_segura');
    expect(r0.conexiones()).toBe(0);
  });

  it('checks the name again at every attempt (DNS rebinding to the metadata service)', async () => {
    const r0 = await receptor();
    const respuestas = [['127.0.0.1'], ['169.254.169.254']];
    const resolver: Resolver = async () => respuestas.shift() ?? [];
    const url = `http://receptor.prueba:${r0.puerto}/h`;
    expect((await enviarWebhook(envio(url, { resolver }))).ok).toBe(true);
    const r = await enviarWebhook(envio(url, { resolver }));
    expect(r.ok).toBe(false);
    expect(r.error?.codigo).toBe('url_no_segura');
    expect(r.error?.mensaje).toContain(
      'receptor.prueba resuelve a 169.254.169.254, el servicio de metadatos',
    );
    expect(r0.recibidas).toHaveLength(1);
  });

  it('refuses a name with an allowed and a refused address, sending nothing', async () => {
    const r0 = await receptor();
    const resolver: Resolver = async () => ['127.0.0.1', '169.254.169.254'];
    const r = await enviarWebhook(envio(`http://receptor.prueba:${r0.puerto}/h`, { resolver }));
    expect(r.error?.codigo).toBe('url_no_segura');
    expect(r0.conexiones()).toBe(0);
  });

  it('a name that does not resolve is a dns error', async () => {
    const resolver: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const r = await enviarWebhook(envio('http://receptor.prueba/h', { resolver }));
    expect(r).toMatchObject({ ok: false, status: null });
    expect(r.error).toEqual({ codigo: 'dns', mensaje: 'No se pudo resolver receptor.prueba (ENOTFOUND).' });
    const vacio = await enviarWebhook(envio('http://receptor.prueba/h', { resolver: async () => [] }));
    expect(vacio.error?.codigo).toBe('dns');
  });

  it('a resolver that never answers is bounded by the deadline', async () => {
    const resolver: Resolver = () => new Promise<string[]>(() => undefined);
    const inicio = performance.now();
    const r = await enviarWebhook(envio('http://receptor.prueba/h', { resolver, plazoMs: 200 }));
    expect(r.error?.codigo).toBe('tiempo_agotado');
    expect(performance.now() - inicio).toBeLessThan(1000);
  });
});

describe('enviarWebhook: failed answers', () => {
  it('a 500 is status_http, with the start of the body', async () => {
    const r0 = await receptor((_q, res) => {
      res.statusCode = 500;
      res.end('falla interna');
    });
    const r = await enviarWebhook(envio(`${r0.url}/h`));
    expect(r).toMatchObject({
      ok: false,
      status: 500,
      respuesta: 'falla interna',
      error: { codigo: 'status_http', mensaje: 'El receptor respondió con HTTP 500.' },
    });
  });

  it('a 302 is redireccion and is not followed', async () => {
    const destino = await receptor();
    const r0 = await receptor((_q, res) => {
      res.writeHead(302, { Location: `${destino.url}/otro` });
      res.end();
    });
    const r = await enviarWebhook(envio(`${r0.url}/h`));
    expect(r).toMatchObject({ ok: false, status: 302, error: { codigo: 'redireccion' } });
    expect(r.error?.mensaje).toBe(
      `El receptor respondió con una redirección HTTP 302 a ${destino.url}/otro; las redirecciones no se siguen.`,
    );
    expect(r0.recibidas).toHaveLength(1);
    expect(destino.conexiones()).toBe(0);
  });

  it('connection refused (a closed port) is conexion_rechazada', async () => {
    const s = net.createServer();
    const puerto = await escuchar(s);
    await new Promise((r) => s.close(r));
    const r = await enviarWebhook(envio(`http://127.0.0.1:${puerto}/h`));
    expect(r).toMatchObject({ ok: false, status: null, respuesta: '' });
    expect(r.error).toEqual({
      codigo: 'conexion_rechazada',
      mensaje: 'El receptor rechazó la conexión (ECONNREFUSED).',
    });
  });

  it('https to a server that does not speak TLS is a tls error', async () => {
    const r0 = await receptor();
    const r = await enviarWebhook(envio(`https://127.0.0.1:${r0.puerto}/h`));
    expect(r.ok).toBe(false);
    expect(r.error?.codigo).toBe('tls');
    expect(r.error?.mensaje).toMatch(/^Falló la conexión TLS con el receptor: /);
  });

  it('https verifies the certificate against the name, sent as SNI, while connecting to the pinned address', async () => {
    const csd = generarCsd();
    const credenciales = {
      key: csd.llavePrivada.export({ type: 'pkcs8', format: 'pem' }),
      cert: new X509Certificate(csd.cer).toString(),
    };
    // The SNI arrives in the ClientHello, before verification fails on the client.
    const sni: string[] = [];
    const s = tls.createServer({
      ...credenciales,
      SNICallback: (nombre, responder) => {
        sni.push(nombre);
        responder(null, tls.createSecureContext(credenciales));
      },
    });
    s.on('tlsClientError', () => undefined);
    const puerto = await escuchar(s);
    cierres.push(() => new Promise((r) => s.close(() => r())));
    const r = await enviarWebhook(
      envio(`https://receptor.prueba:${puerto}/h`, { resolver: async () => ['127.0.0.1'] }),
    );
    expect(r.ok).toBe(false);
    expect(r.error?.codigo).toBe('tls');
    expect(r.error?.mensaje).toMatch(/certificate|certificado/i);
    expect(sni).toEqual(['receptor.prueba']);
  });
});

describe('enviarWebhook: deadline and response size', () => {
  it('a receiver answering after the deadline is tiempo_agotado, within about the deadline', async () => {
    const r0 = await receptor((_q, res) => {
      relojes.push(setTimeout(() => res.end('tarde'), 1000));
    });
    const r = await enviarWebhook(envio(`${r0.url}/h`, { plazoMs: 300 }));
    expect(r).toMatchObject({
      ok: false,
      status: null,
      error: { codigo: 'tiempo_agotado', mensaje: 'El receptor no respondió en 0.3 s.' },
    });
    expect(r.latenciaMs).toBeGreaterThanOrEqual(290);
    expect(r.latenciaMs).toBeLessThan(800);
  });

  it('a server that accepts and never answers is tiempo_agotado', async () => {
    const m = await mudo();
    const r = await enviarWebhook(envio(`http://127.0.0.1:${m.puerto}/h`, { plazoMs: 300 }));
    expect(r.error?.codigo).toBe('tiempo_agotado');
    expect(r.latenciaMs).toBeLessThan(800);
    expect(m.aceptadas()).toBe(1);
  });

  it('a body still trickling at the deadline is tiempo_agotado, keeping the status', async () => {
    const r0 = await receptor((_q, res) => {
      res.writeHead(200);
      res.write('empieza');
      relojes.push(setTimeout(() => res.end('termina'), 1000));
    });
    const r = await enviarWebhook(envio(`${r0.url}/h`, { plazoMs: 300 }));
    expect(r).toMatchObject({ ok: false, status: 200, error: { codigo: 'tiempo_agotado' } });
  });

  it('reads a 10 MB answer only up to the cap, keeping 1 KiB of it', async () => {
    const grande = Buffer.alloc(10 * 1024 * 1024, 'a');
    let completa: boolean | null = null;
    const r0 = await receptor((_q, res) => {
      res.on('close', () => (completa = res.writableFinished));
      res.writeHead(200, { 'Content-Length': grande.length });
      (async () => {
        for (let i = 0; i < grande.length && !res.destroyed; i += 64 * 1024) {
          if (!res.write(grande.subarray(i, i + 64 * 1024))) {
            await new Promise<void>((r) => {
              const seguir = () => {
                res.off('drain', seguir).off('close', seguir);
                r();
              };
              res.on('drain', seguir).on('close', seguir);
            });
          }
        }
        if (!res.destroyed) res.end();
      })();
    });
    const r = await enviarWebhook(envio(`${r0.url}/h`));
    expect(r).toMatchObject({ ok: true, status: 200, error: null, respuesta: 'a'.repeat(1024) });
    // The receiver sees its connection closed once the sender stops reading; on a loaded machine that takes a while.
    for (let ms = 0; completa === null && ms < 5000; ms += 50) await esperar(50);
    expect(completa).toBe(false);

    const chico = await enviarWebhook(envio(`${r0.url}/h`, { maxRespuesta: 100 }));
    expect(chico.respuesta).toBe('a'.repeat(100));
  });

  it('cuts the 1 KiB snippet at a character boundary', async () => {
    const texto = `a${'ñ'.repeat(1000)}`;
    const r0 = await receptor((_q, res) => {
      res.statusCode = 400;
      res.end(texto);
    });
    const r = await enviarWebhook(envio(`${r0.url}/h`));
    expect(r.status).toBe(400);
    expect(r.respuesta).toBe(`a${'ñ'.repeat(511)}`);
    expect(Buffer.byteLength(r.respuesta)).toBe(1023);
  });
});
