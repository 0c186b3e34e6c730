import { ErrorApi, ErrorRed, errorDeRespuesta } from './errores';

export const VERSION = '0.1.0';

/** Retry policy: `maximo` retries after the first attempt, exponential backoff with jitter between them. */
export interface OpcionesReintentos {
  /** Retries after the first attempt (default 3; 0 disables them). */
  maximo?: number;
  /** Base of the exponential backoff (default 500 ms): retry n waits about base·2ⁿ⁻¹, with jitter. */
  esperaBaseMs?: number;
  /**
   * Longest wait between attempts (default 30 s). A `Retry-After` asking for more is not waited out: the error
   * is thrown at once, so a caller is never blocked for minutes without knowing.
   */
  esperaMaximaMs?: number;
}

export interface OpcionesCliente {
  /** The API key (`sk_test_…` or `sk_live_…`): HTTP Basic user, empty password. */
  llave: string;
  /** Default `http://localhost:3000`. Paths of the API (`/v1/…`) are appended to it. */
  urlBase?: string;
  /** A number is `maximo` (retries after the first attempt). */
  reintentos?: number | OpcionesReintentos;
  /** Deadline of each attempt (default 60 s); a timed out attempt is a network error. */
  tiempoEsperaMs?: number;
  /** Another fetch (a proxy agent, a test double). Default: the global fetch of Node ≥ 20. */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  encabezados?: Record<string, string>;
  /** How the SDK waits between attempts and polls; tests replace it to avoid real waits. */
  dormir?: (ms: number) => Promise<void>;
  /** Source of the backoff jitter, in [0, 1). */
  aleatorio?: () => number;
}

/** Per call: an idempotency key of the caller's, cancellation, extra headers. */
export interface OpcionesSolicitud {
  /** `Clave-Idempotencia` of a POST; by default a random UUID, reused by that call's retries. */
  claveIdempotencia?: string;
  signal?: AbortSignal;
  encabezados?: Record<string, string>;
}

/** What the SDK read from the answer that produced an object (see `respuestaDe`). */
export interface MetaRespuesta {
  /** HTTP status (202 for work still in progress). */
  estado: number;
  /** `X-Request-Id`. */
  idSolicitud: string | null;
  /** `Idempotencia-Repetida: true`: a replay of a previous answer with the same key. */
  idempotenciaRepetida: boolean;
  /** `Location`, resolved against the base URL. */
  ubicacion: string | null;
  /** `Retry-After` in milliseconds. */
  reintentarEnMs: number | null;
  encabezados: Headers;
}

const metas = new WeakMap<object, MetaRespuesta>();

/** The answer metadata of an object the SDK returned (status, `Location`, `Retry-After`, request id…). */
export function respuestaDe(objeto: object): MetaRespuesta | undefined {
  return metas.get(objeto);
}

type Metodo = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Solicitud {
  metodo: Metodo;
  /** Path under the base URL (`/v1/facturas`), or an absolute URL of the same origin (a `Location`). */
  ruta: string;
  consulta?: object;
  /** JSON body. */
  json?: unknown;
  /** Multipart body, built anew for each attempt. */
  formulario?: () => FormData;
  /** A body sent as it is (an image), with its media type. */
  crudo?: { tipo: string; datos: Uint8Array | ArrayBuffer | Blob };
  /** `Accept` of a download; its answer is returned as bytes. */
  binario?: string;
  opciones?: OpcionesSolicitud;
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds. */
export function leerRetryAfter(valor: string | null, ahora = Date.now()): number | null {
  if (valor === null || valor.trim() === '') return null;
  const s = valor.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const fecha = Date.parse(s);
  return Number.isNaN(fecha) ? null : Math.max(0, fecha - ahora);
}

/** Bytes as fetch takes them: a Node Buffer's view of its pool is copied out, never sent whole. */
const crudo = (d: Uint8Array | ArrayBuffer | Blob): Blob =>
  d instanceof Blob ? d : new Blob([d instanceof ArrayBuffer ? d : new Uint8Array(d)]);

const dormirReal = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Only these answers are worth repeating as they are; any other 4xx would fail the same way again. */
function reintentable(e: ErrorApi): boolean {
  return e.estado === 429 || e.estado === 503 || (e.estado === 409 && e.codigo === 'solicitud_en_curso');
}

/** Builds requests (auth, idempotency, query) and runs them with the retry policy. */
export class Transporte {
  readonly urlBase: URL;
  private readonly autorizacion: string;
  private readonly fetch: typeof fetch;
  private readonly maximo: number;
  private readonly esperaBaseMs: number;
  private readonly esperaMaximaMs: number;
  private readonly tiempoEsperaMs: number;
  private readonly encabezados: Record<string, string>;
  readonly dormir: (ms: number) => Promise<void>;
  private readonly aleatorio: () => number;

  constructor(o: OpcionesCliente) {
    if (!o.llave) throw new TypeError('Falta la llave API.');
    const base = o.urlBase ?? 'http://localhost:3000';
    this.urlBase = new URL(base.endsWith('/') ? base : `${base}/`);
    // The key is ASCII (sk_…): btoa works and keeps the SDK off Buffer.
    this.autorizacion = `Basic ${btoa(`${o.llave}:`)}`;
    this.fetch = o.fetch ?? globalThis.fetch.bind(globalThis);
    const r = typeof o.reintentos === 'number' ? { maximo: o.reintentos } : (o.reintentos ?? {});
    this.maximo = Math.max(0, Math.floor(r.maximo ?? 3));
    this.esperaBaseMs = r.esperaBaseMs ?? 500;
    this.esperaMaximaMs = r.esperaMaximaMs ?? 30_000;
    this.tiempoEsperaMs = o.tiempoEsperaMs ?? 60_000;
    this.encabezados = o.encabezados ?? {};
    this.dormir = o.dormir ?? dormirReal;
    this.aleatorio = o.aleatorio ?? Math.random;
  }

  /** A path or a `Location` as an absolute URL; `null` for another origin (credentials never leave it). */
  resolver(ruta: string): URL | null {
    const url = new URL(ruta.startsWith('/') ? `.${ruta}` : ruta, this.urlBase);
    return url.origin === this.urlBase.origin ? url : null;
  }

  private url(s: Solicitud): URL {
    const url = this.resolver(s.ruta);
    if (!url) throw new TypeError(`URL fuera de ${this.urlBase.origin}: ${s.ruta}`);
    for (const [k, v] of Object.entries(s.consulta ?? {})) {
      if (v === undefined || v === null) continue;
      url.searchParams.set(k, v instanceof Date ? v.toISOString() : String(v));
    }
    return url;
  }

  /** Equal jitter: half the exponential step fixed, half random, so retries of many clients spread out. */
  private espera(reintento: number): number {
    const paso = Math.min(this.esperaMaximaMs, this.esperaBaseMs * 2 ** (reintento - 1));
    return Math.round(paso / 2 + this.aleatorio() * (paso / 2));
  }

  async json<T>(s: Solicitud): Promise<T> {
    const { respuesta, meta } = await this.ejecutar(s);
    const texto = await respuesta.text();
    const datos = (texto ? JSON.parse(texto) : {}) as T;
    if (typeof datos === 'object' && datos !== null) metas.set(datos, meta);
    return datos;
  }

  async bytes(s: Solicitud): Promise<Uint8Array> {
    const { respuesta, meta } = await this.ejecutar(s);
    const bytes = new Uint8Array(await respuesta.arrayBuffer());
    metas.set(bytes, meta);
    return bytes;
  }

  private async ejecutar(s: Solicitud): Promise<{ respuesta: Response; meta: MetaRespuesta }> {
    const url = this.url(s);
    const op = s.opciones ?? {};
    const encabezados: Record<string, string> = {
      ...this.encabezados,
      ...op.encabezados,
      Authorization: this.autorizacion,
      Accept: s.binario ?? 'application/json',
      'User-Agent': `cfdi-api-sdk/${VERSION}`,
    };
    // One key per call, not per attempt: a retry of a request that did run is then answered, not run again.
    const clave = s.metodo === 'POST' ? (op.claveIdempotencia ?? globalThis.crypto.randomUUID()) : undefined;
    if (clave !== undefined) encabezados['Clave-Idempotencia'] = clave;
    if (s.json !== undefined) encabezados['Content-Type'] = 'application/json';
    if (s.crudo) encabezados['Content-Type'] = s.crudo.tipo;
    const cuerpoJson = s.json === undefined ? undefined : JSON.stringify(s.json);
    // A network failure may hide a request that ran: repeat it only when repeating cannot do it twice (a PUT
    // replaces, so twice is once).
    const repetibleTrasRed = s.metodo === 'GET' || s.metodo === 'PUT' || clave !== undefined;

    for (let intento = 1; ; intento++) {
      const quedan = intento <= this.maximo;
      const senales = [AbortSignal.timeout(this.tiempoEsperaMs), ...(op.signal ? [op.signal] : [])];
      let respuesta: Response;
      try {
        respuesta = await this.fetch(url, {
          method: s.metodo,
          headers: encabezados,
          body: s.formulario ? s.formulario() : s.crudo ? crudo(s.crudo.datos) : cuerpoJson,
          signal: senales.length > 1 ? AbortSignal.any(senales) : senales[0],
          redirect: 'manual',
        });
      } catch (e) {
        if (op.signal?.aborted) throw op.signal.reason;
        const error = new ErrorRed(`${s.metodo} ${url.pathname}: ${(e as Error)?.message ?? String(e)}`, e);
        if (!repetibleTrasRed || !quedan) throw error;
        await this.dormir(this.espera(intento));
        continue;
      }
      const meta = this.meta(respuesta);
      if (respuesta.ok) return { respuesta, meta };
      const error = errorDeRespuesta(await respuesta.text(), {
        estado: respuesta.status,
        idSolicitud: meta.idSolicitud,
        reintentarEnMs: meta.reintentarEnMs,
      });
      if (!reintentable(error) || !quedan) throw error;
      const espera = meta.reintentarEnMs ?? this.espera(intento);
      if (espera > this.esperaMaximaMs) throw error;
      await this.dormir(espera);
    }
  }

  private meta(r: Response): MetaRespuesta {
    const ubicacion = r.headers.get('location');
    return {
      estado: r.status,
      idSolicitud: r.headers.get('x-request-id'),
      idempotenciaRepetida: r.headers.get('idempotencia-repetida') === 'true',
      ubicacion: ubicacion === null ? null : (this.resolver(ubicacion)?.toString() ?? null),
      reintentarEnMs: leerRetryAfter(r.headers.get('retry-after')),
      encabezados: r.headers,
    };
  }
}
