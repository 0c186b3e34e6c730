import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { hostSinAdornos, resolverSeguro, validarUrlWebhook, type ModoRed, type Resolver } from './red';

/**
 * One HTTP attempt of a webhook delivery. Every outcome of the network or the receiver is a result, never an
 * exception: the caller records it and the delivery schedule decides whether to try again.
 *
 * The URL is validated and its name resolved at every attempt, and the socket connects only to the addresses
 * that passed (a pinned `lookup`), so the name cannot point elsewhere between the check and the connection.
 */

export interface EnvioWebhook {
  url: string;
  cuerpo: Buffer;
  encabezados: Record<string, string>;
  modo: ModoRed;
  localesEnTest: boolean;
  /** Deadline of the whole exchange: DNS, connection, TLS, request, headers and body. */
  plazoMs?: number;
  /** Bytes of the response read at most; then the socket is destroyed. */
  maxRespuesta?: number;
  resolver?: Resolver;
}

export type CodigoErrorEnvio =
  | 'tiempo_agotado'
  | 'conexion_rechazada'
  | 'dns'
  | 'url_no_segura'
  | 'redireccion'
  | 'status_http'
  | 'tls'
  | 'red';

export interface ResultadoEnvio {
  /** A 2xx within the deadline. */
  ok: boolean;
  status: number | null;
  latenciaMs: number;
  error: { codigo: CodigoErrorEnvio; mensaje: string } | null;
  /** The first KiB of the response body as UTF-8 (lossy), '' if none. */
  respuesta: string;
}

const PLAZO_MS = 10_000;
const MAX_RESPUESTA = 65_536;
const MAX_FRAGMENTO = 1024;
const AGENTE_USUARIO = 'cfdi-api-webhooks/1';

// Headers the sender owns; a caller's copy (any case) is dropped.
const PROPIOS = new Set([
  'content-type',
  'user-agent',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
]);

/**
 * Keep-alive pools so a burst of deliveries to one receiver reuses connections; every new socket still goes
 * through the pinned lookup. One pool per mode and policy: a socket opened under test mode's allowances must
 * never carry a live delivery. The idle timeout stays below common server keep-alive timeouts (Node's is 5 s),
 * so a pooled socket is rarely one the server is closing.
 */
const agentes = new Map<string, http.Agent>();

function agente(seguro: boolean, modo: ModoRed, localesEnTest: boolean): http.Agent {
  const clave = `${seguro ? 'https' : 'http'}|${modo}|${localesEnTest}`;
  let a = agentes.get(clave);
  if (!a) {
    const opciones = { keepAlive: true, maxSockets: 64, timeout: 4_000 };
    a = seguro ? new https.Agent(opciones) : new http.Agent(opciones);
    agentes.set(clave, a);
  }
  return a;
}

/** A `lookup` that answers only the checked addresses (and never asks the DNS again). */
function lookupFijo(direcciones: string[]): LookupFunction {
  const todas = direcciones.map((address) => ({ address, family: isIP(address) }));
  return (_host, opciones, responder) => {
    const familia = opciones.family === 'IPv4' ? 4 : opciones.family === 'IPv6' ? 6 : opciones.family;
    const aptas = familia === 4 || familia === 6 ? todas.filter((d) => d.family === familia) : todas;
    const primera = aptas[0];
    if (!primera) {
      const e: NodeJS.ErrnoException = new Error('Sin direcciones de la familia pedida.');
      e.code = 'ENOTFOUND';
      responder(e, '');
    } else if (opciones.all) responder(null, aptas);
    else responder(null, primera.address, primera.family);
  };
}

const segundos = (ms: number) => `${ms / 1000} s`;

/** Cut at a character boundary, and keep the decoded text within the byte limit. */
function fragmentoUtf8(bytes: Buffer): string {
  let fin = Math.min(bytes.length, MAX_FRAGMENTO);
  while (fin > 0 && fin < bytes.length && (bytes[fin]! & 0xc0) === 0x80) fin--;
  let texto = bytes.subarray(0, fin).toString('utf8');
  // Invalid bytes become U+FFFD (3 bytes each), which may lengthen the text.
  while (Buffer.byteLength(texto, 'utf8') > MAX_FRAGMENTO) texto = texto.slice(0, -1);
  return texto;
}

function esErrorTls(e: NodeJS.ErrnoException): boolean {
  const codigo = e.code ?? '';
  return (
    /^ERR_(TLS|SSL)_/.test(codigo) ||
    codigo === 'EPROTO' ||
    /CERT|SIGNATURE|ISSUER/.test(codigo) ||
    'library' in e
  );
}

type Parcial = Omit<ResultadoEnvio, 'latenciaMs'>;

const fallo = (
  codigo: CodigoErrorEnvio,
  mensaje: string,
  status: number | null = null,
  respuesta = '',
): Parcial => ({
  ok: false,
  status,
  error: { codigo, mensaje },
  respuesta,
});

function porError(e: NodeJS.ErrnoException, seguro: boolean): Parcial {
  const codigo = e.code ?? '';
  if (codigo === 'ECONNREFUSED')
    return fallo('conexion_rechazada', 'El receptor rechazó la conexión (ECONNREFUSED).');
  if (seguro && esErrorTls(e)) {
    return fallo(
      'tls',
      `Falló la conexión TLS con el receptor: ${e.message}${codigo ? ` (${codigo})` : ''}.`,
    );
  }
  if (codigo === 'ENOTFOUND' || codigo.startsWith('EAI_')) {
    return fallo('dns', `No se pudo resolver el receptor (${codigo}).`);
  }
  if (codigo === 'ECONNRESET')
    return fallo('red', 'El receptor cerró la conexión sin responder (ECONNRESET).');
  return fallo('red', `Error de red al contactar al receptor: ${e.message}${codigo ? ` (${codigo})` : ''}.`);
}

function porStatus(status: number, ubicacion: string | undefined, respuesta: string): Parcial {
  if (status >= 200 && status < 300) return { ok: true, status, error: null, respuesta };
  if (status >= 300 && status < 400) {
    const destino = ubicacion ? ` a ${ubicacion.slice(0, 200)}` : '';
    return fallo(
      'redireccion',
      `El receptor respondió con una redirección HTTP ${status}${destino}; las redirecciones no se siguen.`,
      status,
      respuesta,
    );
  }
  return fallo('status_http', `El receptor respondió con HTTP ${status}.`, status, respuesta);
}

interface Contexto {
  url: URL;
  host: string;
  direcciones: string[];
  envio: EnvioWebhook;
  limite: number;
  plazoMs: number;
}

/** One request; 'reintentar' when a pooled socket turned out closed before anything was answered. */
function solicitar(c: Contexto): Promise<Parcial | 'reintentar'> {
  const { url, host, envio } = c;
  const seguro = url.protocol === 'https:';
  const maxRespuesta = envio.maxRespuesta ?? MAX_RESPUESTA;
  const encabezados: Record<string, string> = {};
  for (const [k, v] of Object.entries(envio.encabezados))
    if (!PROPIOS.has(k.toLowerCase())) encabezados[k] = v;
  Object.assign(encabezados, {
    'Content-Type': 'application/json',
    'User-Agent': AGENTE_USUARIO,
    'Content-Length': String(envio.cuerpo.length),
  });

  return new Promise((resolver) => {
    let terminado = false;
    let concluirRespuesta: (() => void) | null = null;
    let status: number | null = null;

    const req = (seguro ? https : http).request({
      method: 'POST',
      host,
      port: url.port ? Number(url.port) : undefined,
      path: `${url.pathname}${url.search}`,
      headers: encabezados,
      agent: agente(seguro, envio.modo, envio.localesEnTest),
      lookup: lookupFijo(c.direcciones),
      // Certificate and SNI stay on the name, whatever address it was pinned to.
      ...(seguro && !isIP(host) ? { servername: host } : {}),
    });

    const terminar = (r: Parcial | 'reintentar') => {
      if (terminado) return;
      terminado = true;
      clearTimeout(reloj);
      resolver(r);
    };

    const reloj = setTimeout(
      () => {
        terminar(fallo('tiempo_agotado', `El receptor no respondió en ${segundos(c.plazoMs)}.`, status));
        req.destroy();
      },
      Math.max(0, c.limite - performance.now()),
    );

    req.on('error', (e: NodeJS.ErrnoException) => {
      if (concluirRespuesta) return concluirRespuesta();
      const restante = c.limite - performance.now();
      if (req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE') && restante > 0) {
        return terminar('reintentar');
      }
      terminar(porError(e, seguro));
    });

    req.on('response', (res) => {
      status = res.statusCode ?? null;
      const trozos: Buffer[] = [];
      let enFragmento = 0;
      let leidos = 0;
      const concluir = () => {
        terminar(porStatus(res.statusCode ?? 0, res.headers.location, fragmentoUtf8(Buffer.concat(trozos))));
      };
      concluirRespuesta = concluir;
      res.on('data', (trozo: Buffer) => {
        const parte = trozo.subarray(0, Math.max(0, maxRespuesta - leidos));
        leidos += parte.length;
        // One byte past the KiB lets the cut see whether a character continues.
        if (enFragmento <= MAX_FRAGMENTO) {
          const util = parte.subarray(0, MAX_FRAGMENTO + 1 - enFragmento);
          trozos.push(util);
          enFragmento += util.length;
        }
        if (leidos >= maxRespuesta) {
          concluir();
          res.destroy();
        }
      });
      // A body cut short by the receiver still leaves its status as the answer.
      res.on('end', concluir);
      res.on('close', concluir);
      res.on('error', concluir);
    });

    req.end(envio.cuerpo);
  });
}

/** POSTs the body once. Throws only on programming errors (e.g. an invalid header value). */
export async function enviarWebhook(e: EnvioWebhook): Promise<ResultadoEnvio> {
  const inicio = performance.now();
  const plazoMs = e.plazoMs ?? PLAZO_MS;
  const limite = inicio + plazoMs;
  const con = (p: Parcial): ResultadoEnvio => ({ ...p, latenciaMs: Math.round(performance.now() - inicio) });

  const v = validarUrlWebhook(e.url, e.modo, e.localesEnTest);
  if (!v.ok) return con(fallo('url_no_segura', v.mensaje));
  const host = hostSinAdornos(v.url.hostname);

  const restante = limite - performance.now();
  const d = await resolverSeguro(host, e.modo, e.localesEnTest, e.resolver, restante);
  if (!d.ok && d.agotado) {
    return con(fallo('tiempo_agotado', `No se resolvió ${host} en ${segundos(plazoMs)}.`));
  }
  if (!d.ok) return con(fallo(d.codigo === 'url_no_resuelve' ? 'dns' : 'url_no_segura', d.mensaje));

  const contexto: Contexto = { url: v.url, host, direcciones: d.direcciones, envio: e, limite, plazoMs };
  let r = await solicitar(contexto);
  // A pooled socket the receiver had just closed: once more on a fresh one, still within the deadline.
  if (r === 'reintentar') r = await solicitar(contexto);
  if (r === 'reintentar') r = fallo('red', 'El receptor cerró la conexión sin responder (ECONNRESET).');
  return con(r);
}
