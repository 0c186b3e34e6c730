import { validarRespuesta } from './contrato';

export interface Respuesta<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ClienteHttp {
  get<T = any>(ruta: string, encabezados?: Record<string, string>): Promise<Respuesta<T>>;
  post<T = any>(ruta: string, cuerpo?: unknown, encabezados?: Record<string, string>): Promise<Respuesta<T>>;
  patch<T = any>(ruta: string, cuerpo?: unknown, encabezados?: Record<string, string>): Promise<Respuesta<T>>;
  delete<T = any>(ruta: string, encabezados?: Record<string, string>): Promise<Respuesta<T>>;
  /** A PUT whose body is bytes sent as they are (an image), with their media type. */
  put<T = any>(
    ruta: string,
    cuerpo: Uint8Array,
    tipo: string,
    encabezados?: Record<string, string>,
  ): Promise<Respuesta<T>>;
  /** A GET whose answer is bytes (a PDF, a ZIP): the body as a Buffer; a JSON error is still checked. */
  binario(ruta: string, encabezados?: Record<string, string>): Promise<Respuesta<Buffer>>;
}

/** Real HTTP against the API, authenticated with `llave`; every JSON answer is checked against openapi.yaml. */
export function clienteHttp(url: string, llave?: string): ClienteHttp {
  const autenticados = (encabezados: Record<string, string>) => {
    const headers: Record<string, string> = { ...encabezados };
    if (llave) headers.authorization = `Basic ${Buffer.from(`${llave}:`).toString('base64')}`;
    return headers;
  };
  const esJson = (r: Response) => (r.headers.get('content-type') ?? '').includes('application/json');

  async function pedir(
    metodo: string,
    ruta: string,
    cuerpo?: unknown,
    encabezados: Record<string, string> = {},
  ) {
    const headers = autenticados(encabezados);
    const bytes = cuerpo instanceof Uint8Array;
    if (cuerpo !== undefined && !bytes) headers['content-type'] = 'application/json';
    const r = await fetch(`${url}${ruta}`, {
      method: metodo,
      headers,
      body: cuerpo === undefined ? undefined : bytes ? new Uint8Array(cuerpo) : JSON.stringify(cuerpo),
    });
    const texto = await r.text();
    const json = esJson(r);
    const body = json && texto ? JSON.parse(texto) : texto;
    if (json) validarRespuesta(metodo, ruta, r.status, body);
    return { status: r.status, headers: r.headers, body };
  }

  async function binario(ruta: string, encabezados: Record<string, string> = {}) {
    const r = await fetch(`${url}${ruta}`, { headers: autenticados(encabezados) });
    const body = Buffer.from(await r.arrayBuffer());
    if (esJson(r)) validarRespuesta('GET', ruta, r.status, JSON.parse(body.toString('utf8')));
    return { status: r.status, headers: r.headers, body };
  }
  return {
    get: (ruta, e) => pedir('GET', ruta, undefined, e),
    post: (ruta, c, e) => pedir('POST', ruta, c ?? {}, e),
    patch: (ruta, c, e) => pedir('PATCH', ruta, c ?? {}, e),
    delete: (ruta, e) => pedir('DELETE', ruta, undefined, e),
    put: (ruta, c, tipo, e) => pedir('PUT', ruta, c, { ...e, 'content-type': tipo }),
    binario,
  };
}
