import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { parse } from 'yaml';

/*
 * The contract itself: openapi.yaml must be a valid OpenAPI 3.0 document that express-openapi-validator
 * loads (the API validates every request with it), must cover every operation of the interface, and every
 * example it shows must satisfy its own schema. Needs no infrastructure.
 */

const RUTA_OPENAPI = join(__dirname, '..', '..', 'openapi.yaml');

type Nodo = Record<string, unknown>;

interface Parametro {
  name: string;
  in: string;
  required?: boolean;
  schema?: Nodo;
  example?: unknown;
  $ref?: string;
}

interface Medio {
  schema?: Nodo;
  example?: unknown;
  examples?: Record<string, { value?: unknown; $ref?: string }>;
}

interface Respuesta {
  $ref?: string;
  description?: string;
  content?: Record<string, Medio>;
}

interface Operacion {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parametro[];
  requestBody?: { required?: boolean; content?: Record<string, Medio> };
  responses?: Record<string, Respuesta>;
}

type Ruta = Partial<Record<Metodo, Operacion>> & { parameters?: Parametro[] };
type Metodo = 'get' | 'post' | 'patch' | 'delete' | 'put';

interface Documento {
  openapi: string;
  security?: unknown[];
  paths: Record<string, Ruta>;
  components: Nodo;
}

const doc = parse(readFileSync(RUTA_OPENAPI, 'utf8')) as Documento;

/** Section 4 of the interface, written out by hand: the contract must match it exactly. */
const CATALOGOS = [
  'claves_prod_serv',
  'claves_unidad',
  'codigos_postales',
  'regimenes_fiscales',
  'usos_cfdi',
  'formas_pago',
  'metodos_pago',
  'monedas',
  'exportaciones',
  'objetos_imp',
  'tipos_relacion',
];
const OPERACIONES_INTERFAZ: [Metodo, string][] = [
  ['post', '/v1/facturas'],
  ['get', '/v1/facturas'],
  ['get', '/v1/facturas/{id}'],
  ['post', '/v1/facturas/{id}/timbrar'],
  ['post', '/v1/facturas/{id}/cancelar'],
  ['get', '/v1/facturas/{id}/xml'],
  ['get', '/v1/facturas/{id}/pdf'],
  ['post', '/v1/clientes'],
  ['get', '/v1/clientes'],
  ['get', '/v1/clientes/{id}'],
  ['patch', '/v1/clientes/{id}'],
  ['delete', '/v1/clientes/{id}'],
  ['post', '/v1/productos'],
  ['get', '/v1/productos'],
  ['get', '/v1/productos/{id}'],
  ['patch', '/v1/productos/{id}'],
  ['delete', '/v1/productos/{id}'],
  ['post', '/v1/organizaciones'],
  ['get', '/v1/organizaciones'],
  ['get', '/v1/organizaciones/{id}'],
  ['patch', '/v1/organizaciones/{id}'],
  ['post', '/v1/certificados'],
  ['get', '/v1/certificados'],
  ['get', '/v1/certificados/{id}'],
  ['patch', '/v1/certificados/{id}'],
  ['post', '/v1/pagos'],
  ['get', '/v1/pagos'],
  ['get', '/v1/pagos/{id}'],
  ...CATALOGOS.map((c): [Metodo, string] => ['get', `/v1/catalogos/${c}`]),
  ['post', '/v1/webhooks'],
  ['get', '/v1/webhooks'],
  ['get', '/v1/webhooks/{id}'],
  ['patch', '/v1/webhooks/{id}'],
  ['delete', '/v1/webhooks/{id}'],
  ['get', '/v1/eventos'],
  ['get', '/v1/eventos/{id}'],
  ['post', '/v1/cuenta'],
  ['get', '/v1/cuenta'],
  ['patch', '/v1/cuenta'],
  ['post', '/v1/llaves_api'],
  ['get', '/v1/llaves_api'],
  ['delete', '/v1/llaves_api/{id}'],
];
/** Beyond section 4: the delivery log, resends and secret rotation (the spec leaves them to a control panel). */
const OPERACIONES_PROPIAS: [Metodo, string][] = [
  ['post', '/v1/webhooks/{id}/rotar_secreto'],
  ['get', '/v1/webhooks/{id}/entregas'],
  ['post', '/v1/webhooks/{id}/entregas'],
  ['get', '/v1/eventos/{id}/entregas'],
  ['get', '/v1/entregas/{id}'],
  ['get', '/v1/facturas/{id}/auditoria'],
  ['get', '/v1/facturas/{id}/acuse'],
  ['get', '/v1/facturas/{id}/estado_sat'],
  ['post', '/v1/facturas/{id}/timbrado/reintentar'],
  ['post', '/v1/facturas/{id}/correo'],
  ['get', '/v1/correos'],
  ['get', '/v1/correos/{id}'],
  ['post', '/v1/recibos'],
  ['get', '/v1/recibos'],
  ['get', '/v1/recibos/{id}'],
  ['post', '/v1/recibos/{id}/cancelar'],
  ['post', '/v1/recibos/{id}/facturar'],
  ['get', '/v1/recibos/{id}/qr'],
  ['post', '/v1/facturas_globales'],
  ['put', '/v1/organizaciones/{id}/logo'],
  ['get', '/v1/organizaciones/{id}/logo'],
  ['delete', '/v1/organizaciones/{id}/logo'],
  ['get', '/v1/pendientes'],
  ['get', '/v1/entregas'],
  ['post', '/v1/entregas/{id}/reintentar'],
  ['post', '/v1/facturas/{id}/timbrado/abandonar'],
  ['post', '/v1/facturas/{id}/cancelacion/reintentar'],
  ['get', '/v1/facturas/{id}/historia'],
  ['get', '/v1/clientes/{id}/estado_de_cuenta'],
  ['get', '/v1/resumen'],
];
/** The self-invoicing portal: a public page and the JSON operations it calls, without an API key. */
const OPERACIONES_PORTAL: [Metodo, string][] = [
  ['get', '/autofactura'],
  ['get', '/autofactura/autofactura.js'],
  ['get', '/autofactura/autofactura.css'],
  ['post', '/autofactura/recibo'],
  ['post', '/autofactura/validacion'],
  ['post', '/autofactura/facturar'],
  ['post', '/autofactura/factura'],
  ['post', '/autofactura/xml'],
  ['post', '/autofactura/pdf'],
];
const OPERACIONES_SALUD: [Metodo, string][] = [
  ['get', '/salud'],
  ['get', '/salud/detalle'],
  ['get', '/salud/vivo'],
  ['get', '/metricas'],
];
/** Collection GETs (section 4.9 pagination); the catalogs are not paginated. */
const LISTAS = [
  '/v1/facturas',
  '/v1/clientes',
  '/v1/productos',
  '/v1/organizaciones',
  '/v1/certificados',
  '/v1/pagos',
  '/v1/webhooks',
  '/v1/webhooks/{id}/entregas',
  '/v1/eventos',
  '/v1/eventos/{id}/entregas',
  '/v1/correos',
  '/v1/recibos',
  '/v1/pendientes',
  '/v1/entregas',
  '/v1/llaves_api',
];
// Operator routes: loopback or the operator's bearer token, with a 401 of their own.
const esDeOperador = (ruta: string) => ruta === '/salud/detalle' || ruta === '/metricas';
const esPortal = (ruta: string) => ruta === '/autofactura' || ruta.startsWith('/autofactura/');
const esPublica = (ruta: string) =>
  !esDeOperador(ruta) && (ruta.startsWith('/v1/catalogos/') || ruta.startsWith('/salud') || esPortal(ruta));
const METODOS: Metodo[] = ['get', 'post', 'patch', 'delete', 'put'];

// ---------------------------------------------------------------------------------------------------------
// $ref resolution

function resolverPuntero(ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`Solo se admiten referencias locales: ${ref}`);
  let nodo: unknown = doc;
  for (const crudo of ref.slice(2).split('/')) {
    const parte = decodeURIComponent(crudo).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!nodo || typeof nodo !== 'object' || !(parte in (nodo as Nodo))) {
      throw new Error(`Referencia colgante: ${ref}`);
    }
    nodo = (nodo as Nodo)[parte];
  }
  return nodo;
}

/** Follows $ref chains until a node without $ref. */
function deref<T>(nodo: T): T {
  let actual: unknown = nodo;
  for (let i = 0; i < 20 && actual && typeof actual === 'object' && '$ref' in (actual as Nodo); i++) {
    actual = resolverPuntero(String((actual as Nodo).$ref));
  }
  return actual as T;
}

function recorrer(nodo: unknown, ruta: string, visitar: (n: Nodo, ruta: string) => void): void {
  if (Array.isArray(nodo)) {
    nodo.forEach((x, i) => recorrer(x, `${ruta}/${i}`, visitar));
  } else if (nodo && typeof nodo === 'object') {
    visitar(nodo as Nodo, ruta);
    for (const [k, v] of Object.entries(nodo as Nodo)) recorrer(v, `${ruta}/${k}`, visitar);
  }
}

interface InfoOperacion {
  metodo: Metodo;
  ruta: string;
  op: Operacion;
  parametros: Parametro[];
}

function operaciones(): InfoOperacion[] {
  const lista: InfoOperacion[] = [];
  for (const [ruta, item] of Object.entries(doc.paths)) {
    for (const metodo of METODOS) {
      const op = item[metodo];
      if (!op) continue;
      const lista_ = (x: unknown): Parametro[] => (Array.isArray(x) ? (x as Parametro[]) : []);
      const parametros = [...lista_(item.parameters), ...lista_(op.parameters)].map((p) => deref(p));
      lista.push({ metodo, ruta, op, parametros });
    }
  }
  return lista;
}

/** Every object schema reachable from a request schema, with its location. */
function esquemasObjeto(esquema: unknown, donde: string, vistos = new Set<string>()): [Nodo, string][] {
  if (!esquema || typeof esquema !== 'object') return [];
  const crudo = esquema as Nodo;
  if (typeof crudo.$ref === 'string') {
    if (vistos.has(crudo.$ref)) return [];
    vistos.add(crudo.$ref);
    return esquemasObjeto(resolverPuntero(crudo.$ref), crudo.$ref, vistos);
  }
  const encontrados: [Nodo, string][] = [];
  if (crudo.type === 'object' || crudo.properties) encontrados.push([crudo, donde]);
  for (const [k, v] of Object.entries((crudo.properties as Record<string, unknown>) ?? {})) {
    encontrados.push(...esquemasObjeto(v, `${donde}.${k}`, vistos));
  }
  encontrados.push(...esquemasObjeto(crudo.items, `${donde}[]`, vistos));
  for (const clave of ['anyOf', 'oneOf', 'allOf'] as const) {
    const partes = crudo[clave];
    if (Array.isArray(partes))
      partes.forEach((p, i) => encontrados.push(...esquemasObjeto(p, `${donde}.${clave}[${i}]`, vistos)));
  }
  return encontrados;
}

/** Named examples of a media type: `example` counts as one called "". */
function ejemplosDe(medio: Medio | undefined): [string, unknown][] {
  if (!medio) return [];
  const lista: [string, unknown][] = [];
  if (medio.example !== undefined) lista.push(['', medio.example]);
  for (const [nombre, e] of Object.entries(medio.examples ?? {})) lista.push([nombre, deref(e).value]);
  return lista;
}

// ---------------------------------------------------------------------------------------------------------
// A tiny app behind express-openapi-validator: it answers each request with the example the test asks for,
// so the validator checks request examples against request schemas and response examples against
// response schemas.

let servidor: Server;
let base: string;

type SolicitudOpenApi = Request & { openapi?: { openApiRoute: string } };

const responderEjemplo: RequestHandler = (req, res) => {
  const meta = (req as SolicitudOpenApi).openapi;
  if (!meta) {
    res.status(599).json({ mensaje: 'la ruta no pasó por el validador' });
    return;
  }
  const op = doc.paths[meta.openApiRoute]?.[req.method.toLowerCase() as Metodo];
  const respuestas = op?.responses ?? {};
  const status = req.get('x-prueba-status') ?? Object.keys(respuestas).find((s) => /^2/.test(s)) ?? '200';
  const respuesta = deref(respuestas[status]);
  const medio = respuesta?.content?.['application/json'];
  if (!medio) {
    res.status(Number(status)).type('text/plain').send('sin cuerpo JSON');
    return;
  }
  const nombre = req.get('x-prueba-ejemplo') ?? ejemplosDe(medio)[0]?.[0] ?? '';
  const ejemplo = ejemplosDe(medio).find(([n]) => n === nombre);
  if (!ejemplo) {
    res.status(598).json({ mensaje: `sin ejemplo ${nombre}` });
    return;
  }
  res.status(Number(status)).json(ejemplo[1]);
};

const manejarError: ErrorRequestHandler = (err, _req, res, _next) => {
  const e = err as { status?: number; message?: string; errors?: unknown };
  res.status(e.status ?? 500).json({ mensaje: e.message, errores: e.errors });
};

beforeAll(async () => {
  const app = express();
  app.use(express.json({ limit: '2mb' }));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: RUTA_OPENAPI,
      validateRequests: true,
      validateResponses: true,
      validateSecurity: false,
    }),
  );
  app.use(responderEjemplo);
  app.use(manejarError);
  await new Promise<void>((listo) => {
    servidor = app.listen(0, '127.0.0.1', () => listo());
  });
  base = `http://127.0.0.1:${(servidor.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((listo) => servidor.close(() => listo()));
});

interface Envio {
  metodo: Metodo;
  ruta: string;
  cuerpo?: unknown;
  tipo?: string;
  encabezados?: Record<string, string>;
  esquemaCuerpo?: Nodo;
}

function rutaConEjemplos(ruta: string, parametros: Parametro[]): string {
  return ruta.replace(/\{([^}]+)\}/g, (_m, nombre: string) => {
    const p = parametros.find((x) => x.in === 'path' && x.name === nombre);
    if (p?.example === undefined)
      throw new Error(`El parámetro de ruta ${nombre} de ${ruta} no tiene ejemplo`);
    return encodeURIComponent(String(p.example));
  });
}

async function enviar(e: Envio): Promise<{ status: number; cuerpo: string }> {
  const encabezados: Record<string, string> = { ...(e.encabezados ?? {}) };
  let body: string | FormData | undefined;
  if (e.cuerpo !== undefined) {
    if (e.tipo === 'multipart/form-data') {
      const formulario = new FormData();
      const propiedades = (deref(e.esquemaCuerpo)?.properties ?? {}) as Record<string, Nodo>;
      for (const [k, v] of Object.entries(e.cuerpo as Nodo)) {
        if (deref(propiedades[k])?.format === 'binary')
          formulario.append(k, new Blob([String(v)]), `${k}.bin`);
        else formulario.append(k, String(v));
      }
      body = formulario;
    } else {
      encabezados['content-type'] = e.tipo ?? 'application/json';
      body = JSON.stringify(e.cuerpo);
    }
  }
  const r = await fetch(base + e.ruta, { method: e.metodo.toUpperCase(), headers: encabezados, body });
  return { status: r.status, cuerpo: await r.text() };
}

/** A valid request for the operation: path examples and the first request-body example, if any. */
function solicitudValida(o: InfoOperacion): Envio {
  const e: Envio = { metodo: o.metodo, ruta: rutaConEjemplos(o.ruta, o.parametros) };
  const contenido = o.op.requestBody?.content;
  if (contenido) {
    const tipo = contenido['application/json'] ? 'application/json' : Object.keys(contenido)[0]!;
    const primero = ejemplosDe(contenido[tipo])[0];
    if (!primero) throw new Error(`${o.metodo} ${o.ruta}: el cuerpo ${tipo} no tiene ejemplo`);
    e.tipo = tipo;
    e.cuerpo = primero[1];
    e.esquemaCuerpo = contenido[tipo]?.schema;
  }
  return e;
}

const nombreOp = (o: { metodo: string; ruta: string }) => `${o.metodo.toUpperCase()} ${o.ruta}`;

// ---------------------------------------------------------------------------------------------------------

describe('openapi.yaml: documento', () => {
  it('es OpenAPI 3.1 y toda referencia $ref resuelve', () => {
    expect(doc.openapi).toBe('3.1.0');
    const colgantes: string[] = [];
    let total = 0;
    recorrer(doc, '#', (n, ruta) => {
      if (typeof n.$ref !== 'string') return;
      total++;
      try {
        resolverPuntero(n.$ref);
      } catch {
        colgantes.push(`${ruta} → ${n.$ref}`);
      }
    });
    expect(total).toBeGreaterThan(100);
    expect(colgantes).toEqual([]);
  });

  it('toda descripción y resumen es texto (protege contra YAML en estilo de flujo mal interpretado)', () => {
    const malos: string[] = [];
    recorrer(doc, '#', (n, ruta) => {
      // Inside schemas `properties` maps field names to schemas: a field could be called "description".
      if (ruta.endsWith('/properties')) return;
      for (const clave of ['description', 'summary'] as const) {
        if (clave in n && typeof n[clave] !== 'string') malos.push(`${ruta}/${clave}`);
      }
    });
    expect(malos).toEqual([]);
  });

  it('express-openapi-validator carga el documento y atiende una ruta conocida', async () => {
    const r = await enviar({ metodo: 'get', ruta: '/salud/vivo' });
    expect(r.cuerpo).not.toContain('apiDoc was invalid');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.cuerpo)).toEqual({ estado: 'ok' });
  });

  it('una ruta fuera del contrato da 404 del validador, no un 500', async () => {
    const r = await enviar({ metodo: 'get', ruta: '/v1/no_existe' });
    expect(r.status).toBe(404);
  });
});

describe('openapi.yaml: cobertura de la interfaz', () => {
  const documentadas = operaciones();

  it('documenta exactamente las operaciones de la sección 4, las propias, las del portal, la salud y las métricas', () => {
    const esperadas = [
      ...OPERACIONES_INTERFAZ,
      ...OPERACIONES_PROPIAS,
      ...OPERACIONES_PORTAL,
      ...OPERACIONES_SALUD,
    ].map(([m, r]) => `${m.toUpperCase()} ${r}`);
    expect(documentadas.map(nombreOp).sort()).toEqual([...esperadas].sort());
  });

  it('toda operación con Clave-Idempotencia declara el 422 de una clave reutilizada con otra solicitud', () => {
    const conClave = documentadas.filter((o) => o.parametros.some((p) => p.name === 'Clave-Idempotencia'));
    expect(conClave.length).toBeGreaterThan(10);
    expect(conClave.filter((o) => !o.op.responses?.['422']).map(nombreOp)).toEqual([]);
  });

  it('cada operación tiene operationId único, tag, resumen, descripción y una respuesta 2xx', () => {
    const ids = new Set<string>();
    const etiquetas = new Set(
      ((doc as unknown as { tags?: { name: string }[] }).tags ?? []).map((t) => t.name),
    );
    for (const o of documentadas) {
      const donde = nombreOp(o);
      expect([donde, typeof o.op.operationId]).toEqual([donde, 'string']);
      expect([donde, ids.has(o.op.operationId!)]).toEqual([donde, false]);
      ids.add(o.op.operationId!);
      expect([donde, (o.op.summary ?? '').length > 0, (o.op.description ?? '').length > 0]).toEqual([
        donde,
        true,
        true,
      ]);
      expect([
        donde,
        (o.op.tags ?? []).length > 0 && (o.op.tags ?? []).every((t) => etiquetas.has(t)),
      ]).toEqual([donde, true]);
      const codigos = Object.keys(o.op.responses ?? {});
      expect([donde, codigos.some((c) => /^2\d\d$/.test(c))]).toEqual([donde, true]);
      for (const c of codigos) expect([donde, c, /^[1-5]\d\d$/.test(c)]).toEqual([donde, c, true]);
    }
  });

  it('autenticación: global por llave; catálogos y salud públicos; 401 en todo lo demás', () => {
    expect(doc.security).toEqual([{ llaveApi: [] }]);
    expect(deref(doc.components.securitySchemes as Nodo).llaveApi).toMatchObject({
      type: 'http',
      scheme: 'basic',
    });
    for (const o of documentadas) {
      const donde = nombreOp(o);
      if (esPublica(o.ruta)) {
        expect([donde, o.op.security]).toEqual([donde, []]);
        expect([donde, '401' in (o.op.responses ?? {})]).toEqual([donde, false]);
      } else if (esDeOperador(o.ruta)) {
        expect([donde, o.op.security]).toEqual([donde, [{ tokenOperador: [] }]]);
        expect([donde, o.op.responses?.['401']?.$ref]).toEqual([
          donde,
          '#/components/responses/OperadorRequerido',
        ]);
      } else {
        expect([donde, o.op.security]).toEqual([donde, undefined]);
        expect([donde, o.op.responses?.['401']?.$ref]).toEqual([
          donde,
          '#/components/responses/NoAutenticado',
        ]);
        expect([donde, o.op.responses?.['429']?.$ref]).toEqual([
          donde,
          '#/components/responses/LimiteDeSolicitudes',
        ]);
      }
    }
  });

  it('las respuestas de error 400/401/403/404/409/422/429 usan los componentes comunes', () => {
    const componentes: Record<string, string> = {
      '400': 'SolicitudInvalida',
      '401': 'NoAutenticado',
      '403': 'SinPermiso',
      '404': 'NoEncontrado',
      '409': 'Conflicto',
      '422': 'ReglaDeNegocio',
      '429': 'LimiteDeSolicitudes',
    };
    for (const o of documentadas) {
      for (const [codigo, r] of Object.entries(o.op.responses ?? {})) {
        const nombre = codigo === '401' && esDeOperador(o.ruta) ? 'OperadorRequerido' : componentes[codigo];
        if (nombre)
          expect([nombreOp(o), codigo, r.$ref]).toEqual([
            nombreOp(o),
            codigo,
            `#/components/responses/${nombre}`,
          ]);
      }
    }
  });

  it('todo POST, PATCH, PUT y DELETE documenta 413 y 415: el cuerpo se lee en todos, lo declaren o no', () => {
    for (const o of documentadas.filter((x) => x.metodo !== 'get')) {
      const r = o.op.responses ?? {};
      expect([nombreOp(o), r['413']?.$ref, r['415']?.$ref]).toEqual([
        nombreOp(o),
        '#/components/responses/CargaDemasiadoGrande',
        '#/components/responses/TipoDeContenido',
      ]);
    }
  });

  it('todo POST /v1 declara el encabezado Clave-Idempotencia (el portal no tiene cuenta en que guardarla)', () => {
    for (const o of documentadas.filter((x) => x.metodo === 'post' && x.ruta.startsWith('/v1/'))) {
      const p = o.parametros.find((x) => x.in === 'header' && x.name === 'Clave-Idempotencia');
      expect([nombreOp(o), p?.required ?? false, deref(p?.schema)?.maxLength]).toEqual([
        nombreOp(o),
        false,
        255,
      ]);
    }
  });

  it('toda lista declara paginacion.limite y paginacion.cursor_inicio y devuelve objeto/datos/paginacion', () => {
    for (const ruta of LISTAS) {
      const o = documentadas.find((x) => x.metodo === 'get' && x.ruta === ruta);
      expect([ruta, o !== undefined]).toEqual([ruta, true]);
      const limite = o!.parametros.find((p) => p.in === 'query' && p.name === 'paginacion.limite');
      const cursor = o!.parametros.find((p) => p.in === 'query' && p.name === 'paginacion.cursor_inicio');
      expect([ruta, limite?.schema]).toEqual([
        ruta,
        { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      ]);
      expect([ruta, deref(cursor?.schema)?.type]).toEqual([ruta, 'string']);
      const esquema = deref(deref(o!.op.responses?.['200'])?.content?.['application/json']?.schema) as Nodo;
      const props = esquema.properties as Record<string, Nodo>;
      expect([ruta, esquema.required]).toEqual([ruta, ['objeto', 'datos', 'paginacion']]);
      expect([ruta, deref(props.objeto)?.enum]).toEqual([ruta, ['lista']]);
      expect([ruta, deref(props.datos)?.type]).toEqual([ruta, 'array']);
      const paginacion = deref(props.paginacion) as Nodo;
      expect([ruta, Object.keys(paginacion.properties as Nodo).sort()]).toEqual([
        ruta,
        ['hay_mas', 'siguiente_cursor'],
      ]);
    }
  });

  it('todo objeto de un cuerpo de solicitud tiene additionalProperties: false', () => {
    const abiertos: string[] = [];
    let revisados = 0;
    for (const o of documentadas) {
      for (const [tipo, medio] of Object.entries(o.op.requestBody?.content ?? {})) {
        for (const [esquema, donde] of esquemasObjeto(medio.schema, `${nombreOp(o)} ${tipo}`)) {
          revisados++;
          if (esquema.additionalProperties !== false) abiertos.push(donde);
        }
      }
    }
    expect(revisados).toBeGreaterThan(20);
    expect(abiertos).toEqual([]);
  });

  it('cada cuerpo de solicitud y cada respuesta 2xx JSON tiene al menos un ejemplo', () => {
    const sinEjemplo: string[] = [];
    for (const o of documentadas) {
      for (const [tipo, medio] of Object.entries(o.op.requestBody?.content ?? {})) {
        if (ejemplosDe(medio).length === 0) sinEjemplo.push(`${nombreOp(o)} solicitud ${tipo}`);
      }
      for (const [codigo, r] of Object.entries(o.op.responses ?? {})) {
        const medio = deref(r).content?.['application/json'];
        if (/^2/.test(codigo) && medio && ejemplosDe(medio).length === 0)
          sinEjemplo.push(`${nombreOp(o)} ${codigo}`);
      }
    }
    expect(sinEjemplo).toEqual([]);
  });

  it('las operaciones de catálogos buscables aceptan q y limite; las demás, nada', () => {
    for (const o of documentadas.filter((x) => x.ruta.startsWith('/v1/catalogos/'))) {
      const nombres = o.parametros.map((p) => p.name).sort();
      const buscable = ['claves_prod_serv', 'claves_unidad', 'codigos_postales'].some((c) =>
        o.ruta.endsWith(c),
      );
      expect([o.ruta, nombres]).toEqual([o.ruta, buscable ? ['limite', 'q'] : []]);
    }
  });
});

describe('openapi.yaml: los ejemplos cumplen sus esquemas (validados por express-openapi-validator)', () => {
  const casos: { nombre: string; envio: Envio; esperado: number }[] = [];
  for (const o of operaciones()) {
    const valida = solicitudValida(o);
    const primer2xx = Object.keys(o.op.responses ?? {}).find((c) => /^2/.test(c))!;
    // Every request-body example, answered with the first success example.
    for (const [tipo, medio] of Object.entries(o.op.requestBody?.content ?? {})) {
      for (const [nombre, valor] of ejemplosDe(medio)) {
        casos.push({
          nombre: `${nombreOp(o)} solicitud ${tipo} ${nombre || '(example)'}`,
          envio: { ...valida, tipo, cuerpo: valor, esquemaCuerpo: medio.schema },
          esperado: Number(primer2xx),
        });
      }
    }
    // Every JSON response example, after a valid request.
    for (const [codigo, r] of Object.entries(o.op.responses ?? {})) {
      for (const [nombre] of ejemplosDe(deref(r).content?.['application/json'])) {
        casos.push({
          nombre: `${nombreOp(o)} respuesta ${codigo} ${nombre || '(example)'}`,
          envio: { ...valida, encabezados: { 'x-prueba-status': codigo, 'x-prueba-ejemplo': nombre } },
          esperado: Number(codigo),
        });
      }
    }
  }

  it('hay casos para todas las operaciones', () => {
    expect(casos.length).toBeGreaterThan(150);
  });

  it.each(casos.map((c) => [c.nombre, c] as const))('%s', async (_nombre, caso) => {
    const r = await enviar(caso.envio);
    expect({ status: r.status, cuerpo: r.status === caso.esperado ? '' : r.cuerpo }).toEqual({
      status: caso.esperado,
      cuerpo: '',
    });
  });
});

describe('openapi.yaml: el validador aplica las reglas del contrato', () => {
  const factura = {
    organizacion: 'org_01kbq2a0c0h3m5p7r9t1v3x5z7',
    tipo: 'ingreso',
    cliente: 'URE180429TM6',
    forma_pago: '03',
    conceptos: [{ producto: 'prod_01kbq2c8e0g2j4m6q8s0w2y4a6', cantidad: 2.5 }],
  };
  const cliente = {
    organizacion: 'EKU9003173C9',
    rfc: 'URE180429TM6',
    nombre: 'UNIVERSIDAD ROBOTICA ESPAÑOLA',
    regimen_fiscal: '601',
    domicilio_fiscal: '86991',
    uso_cfdi: 'G03',
  };

  it.each([
    ['cantidad numérica', { ...factura }, 201],
    [
      'cantidad como texto',
      { ...factura, conceptos: [{ producto: 'prod_01kbq2c8e0g2j4m6q8s0w2y4a6', cantidad: '3' }] },
      201,
    ],
    ['conceptos vacíos', { ...factura, conceptos: [] }, 400],
    ['propiedad desconocida', { ...factura, descuento_global: '10' }, 400],
    [
      'propiedad desconocida en un concepto',
      { ...factura, conceptos: [{ cantidad: '1', precio: '10' }] },
      400,
    ],
    [
      'precio con 7 decimales',
      { ...factura, conceptos: [{ cantidad: '1', valor_unitario: '1.1234567' }] },
      400,
    ],
    ['tipo pago no se crea por aquí', { ...factura, tipo: 'pago' }, 400],
    ['moneda en minúsculas', { ...factura, moneda: 'usd' }, 400],
  ])('POST /v1/facturas: %s', async (_n, cuerpo, esperado) => {
    expect((await enviar({ metodo: 'post', ruta: '/v1/facturas', cuerpo })).status).toBe(esperado);
  });

  it.each([
    ['válido', cliente, 201],
    ['RFC en minúsculas', { ...cliente, rfc: 'ure180429tm6' }, 400],
    ['RFC de 11 caracteres', { ...cliente, rfc: 'URE180429TM' }, 400],
    ['RFC genérico', { ...cliente, rfc: 'XAXX010101000', regimen_fiscal: '616', uso_cfdi: 'S01' }, 201],
    ['código postal de 4 dígitos', { ...cliente, domicilio_fiscal: '8699' }, 400],
    ['uso CP01', { ...cliente, uso_cfdi: 'CP01' }, 201],
    ['uso inventado', { ...cliente, uso_cfdi: 'G3' }, 400],
    ['correo inválido', { ...cliente, correo: 'no-es-correo' }, 400],
    ['sin uso_cfdi', { ...cliente, uso_cfdi: undefined }, 400],
  ])('POST /v1/clientes: %s', async (_n, cuerpo, esperado) => {
    expect((await enviar({ metodo: 'post', ruta: '/v1/clientes', cuerpo })).status).toBe(esperado);
  });

  it.each([
    ['motivo 02', { motivo: '02' }, 200],
    ['motivo 05', { motivo: '05' }, 400],
    ['uuid mal formado', { motivo: '01', uuid_sustitucion: 'no-es-uuid' }, 400],
  ])('POST /v1/facturas/{id}/cancelar: %s', async (_n, cuerpo, esperado) => {
    const ruta = '/v1/facturas/fac_01kbq3x7m2d5c8n9p4r6t0v2w4/cancelar';
    expect((await enviar({ metodo: 'post', ruta, cuerpo })).status).toBe(esperado);
  });

  it('PATCH /v1/organizaciones/{id} rechaza el RFC (inmutable) y acepta el id o el RFC en la ruta', async () => {
    const cuerpo = { rfc: 'EKU9003173C9' };
    expect((await enviar({ metodo: 'patch', ruta: '/v1/organizaciones/EKU9003173C9', cuerpo })).status).toBe(
      400,
    );
    const color = { color_acento: '#1f4e79' };
    expect(
      (await enviar({ metodo: 'patch', ruta: '/v1/organizaciones/EKU9003173C9', cuerpo: color })).status,
    ).toBe(200);
    const malo = { color_acento: '1F4E79' };
    expect((await enviar({ metodo: 'patch', ruta: '/v1/organizaciones/org_x', cuerpo: malo })).status).toBe(
      400,
    );
    expect((await enviar({ metodo: 'patch', ruta: '/v1/organizaciones/org_x', cuerpo: {} })).status).toBe(
      400,
    );
  });

  it('los ids con prefijo equivocado en la ruta dan 400', async () => {
    expect(
      (await enviar({ metodo: 'get', ruta: '/v1/facturas/cli_01kbq2b4d6f8h0k2m4p6r8t0v2' })).status,
    ).toBe(400);
    expect(
      (await enviar({ metodo: 'get', ruta: '/v1/clientes/cli_01kbq2b4d6f8h0k2m4p6r8t0v2' })).status,
    ).toBe(200);
  });

  it('paginación: límites de paginacion.limite y parámetros desconocidos', async () => {
    const ok = '/v1/facturas?paginacion.limite=100&paginacion.cursor_inicio=abc&estado=timbrada&tipo=pago';
    expect((await enviar({ metodo: 'get', ruta: ok })).status).toBe(200);
    expect((await enviar({ metodo: 'get', ruta: '/v1/facturas?paginacion.limite=0' })).status).toBe(400);
    expect((await enviar({ metodo: 'get', ruta: '/v1/facturas?paginacion.limite=101' })).status).toBe(400);
    expect((await enviar({ metodo: 'get', ruta: '/v1/facturas?limite=10' })).status).toBe(400);
    expect((await enviar({ metodo: 'get', ruta: '/v1/facturas?estado=pagada' })).status).toBe(400);
  });

  it('Clave-Idempotencia: 1 a 255 caracteres visibles', async () => {
    const envio = (clave: string) =>
      enviar({
        metodo: 'post',
        ruta: '/v1/llaves_api',
        cuerpo: { nombre: 'x', modo: 'test' },
        encabezados: { 'Clave-Idempotencia': clave },
      });
    expect((await envio('a'.repeat(255))).status).toBe(201);
    expect((await envio('a'.repeat(256))).status).toBe(400);
    expect((await envio('con espacio')).status).toBe(400);
  });

  it('catálogos: q de 1 a 100 caracteres y limite de 1 a 100; los no buscables no aceptan parámetros', async () => {
    expect(
      (await enviar({ metodo: 'get', ruta: '/v1/catalogos/claves_unidad?q=pieza&limite=5' })).status,
    ).toBe(200);
    expect(
      (await enviar({ metodo: 'get', ruta: `/v1/catalogos/claves_unidad?q=${'a'.repeat(101)}` })).status,
    ).toBe(400);
    expect((await enviar({ metodo: 'get', ruta: '/v1/catalogos/claves_unidad?limite=101' })).status).toBe(
      400,
    );
    expect((await enviar({ metodo: 'get', ruta: '/v1/catalogos/monedas?q=peso' })).status).toBe(400);
  });

  it('certificados: multipart con archivos y JSON con base64', async () => {
    const esquema =
      doc.paths['/v1/certificados']?.post?.requestBody?.content?.['multipart/form-data']?.schema;
    const datos = { organizacion: 'EKU9003173C9', contrasena: '12345678a', cer: 'x', llave: 'y' };
    const multipart = { metodo: 'post' as const, ruta: '/v1/certificados', tipo: 'multipart/form-data' };
    expect((await enviar({ ...multipart, cuerpo: datos, esquemaCuerpo: esquema })).status).toBe(201);
    const { llave: _sinLlave, ...incompleto } = datos;
    expect((await enviar({ ...multipart, cuerpo: incompleto, esquemaCuerpo: esquema })).status).toBe(400);
    const json = { ...datos, cer: 'MIIFuzCCA6OgAwIBAgIU', llave: 'MIIFDjBABgkqhkiG' };
    expect((await enviar({ metodo: 'post', ruta: '/v1/certificados', cuerpo: json })).status).toBe(201);
    const noBase64 = { ...json, cer: 'esto no es base64!' };
    expect((await enviar({ metodo: 'post', ruta: '/v1/certificados', cuerpo: noBase64 })).status).toBe(400);
  });

  it('webhooks: tipos de evento conocidos y sin repetir', async () => {
    const ruta = '/v1/webhooks';
    const url = 'https://erp.example.mx/h';
    expect(
      (await enviar({ metodo: 'post', ruta, cuerpo: { url, eventos_suscritos: ['pago.creado'] } })).status,
    ).toBe(201);
    const repetidos = { url, eventos_suscritos: ['pago.creado', 'pago.creado'] };
    expect((await enviar({ metodo: 'post', ruta, cuerpo: repetidos })).status).toBe(400);
    const desconocido = { url, eventos_suscritos: ['factura.pagada'] };
    expect((await enviar({ metodo: 'post', ruta, cuerpo: desconocido })).status).toBe(400);
    const noUrl = { url: 'no es url', eventos_suscritos: ['pago.creado'] };
    expect((await enviar({ metodo: 'post', ruta, cuerpo: noUrl })).status).toBe(400);
    // The scheme is the service's rule (422 url_no_segura, with a message that names it), not the schema's.
    const ftp = { url: 'ftp://erp.example.mx/h', eventos_suscritos: ['pago.creado'] };
    expect((await enviar({ metodo: 'post', ruta, cuerpo: ftp })).status).toBe(201);
  });

  it('pagos: fecha_pago ISO 8601 con o sin zona, o solo fecha', async () => {
    const pago = {
      organizacion: 'org_01kbq2a0c0h3m5p7r9t1v3x5z7',
      forma_pago: '03',
      monto: '100.00',
      facturas_pagadas: [{ factura: 'fac_01kbq3y9n4f7e0q1s3v5x7z9b1', imp_pagado: '100.00' }],
    };
    for (const fecha_pago of [
      '2026-12-05',
      '2026-12-05T10:30:00',
      '2026-12-05T16:30:00Z',
      '2026-12-05T10:30:00-06:00',
    ]) {
      expect([
        fecha_pago,
        (await enviar({ metodo: 'post', ruta: '/v1/pagos', cuerpo: { ...pago, fecha_pago } })).status,
      ]).toEqual([fecha_pago, 201]);
    }
    const malo = { ...pago, fecha_pago: '05/12/2026' };
    expect((await enviar({ metodo: 'post', ruta: '/v1/pagos', cuerpo: malo })).status).toBe(400);
  });
});
