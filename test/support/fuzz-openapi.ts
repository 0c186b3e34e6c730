import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import fc from 'fast-check';
import { parse } from 'yaml';
import { rutaOpenApi } from '../../config/rutas';
import { validarRespuesta } from './contrato';

/**
 * Generated hostile input from openapi.yaml: for every operation, requests derived from its parameter and body
 * schemas (steered towards real resources by `Pista` placeholders), then broken by mutations (wrong types,
 * missing or extra fields, hostile strings, boundary numbers, huge arrays, truncated or invalid bodies, wrong
 * content types). Requests are abstract until `concretar` resolves the placeholders against the pools of ids
 * the run has at that moment.
 */

type Nodo = Record<string, any>;

const documento = parse(readFileSync(rutaOpenApi(), 'utf8')) as { paths: Record<string, Nodo> };

function resolver(n: Nodo | undefined): Nodo {
  let actual = n ?? {};
  while (typeof actual.$ref === 'string') {
    actual = (actual.$ref as string)
      .slice(2)
      .split('/')
      .reduce((a: Nodo, p: string) => a[p], documento as Nodo);
  }
  return actual;
}

export interface Parametro {
  nombre: string;
  en: 'path' | 'query' | 'header';
  requerido: boolean;
  esquema: Nodo;
}

export interface Operacion {
  id: string;
  metodo: string;
  plantilla: string;
  parametros: Parametro[];
  /** Media type → body schema. */
  cuerpos: Record<string, Nodo>;
  respuestas: Record<string, Nodo>;
}

const METODOS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of openapi.yaml, with its path-level parameters merged in. */
export function operaciones(): Operacion[] {
  const fuera: Operacion[] = [];
  for (const [plantilla, camino] of Object.entries(documento.paths)) {
    const comunes = ((camino.parameters ?? []) as Nodo[]).map(resolver);
    for (const metodo of METODOS) {
      const op = camino[metodo] as Nodo | undefined;
      if (!op) continue;
      const propios = ((op.parameters ?? []) as Nodo[]).map(resolver);
      const parametros = [...comunes, ...propios].map((p) => ({
        nombre: p.name as string,
        en: p.in as Parametro['en'],
        requerido: Boolean(p.required),
        esquema: resolver(p.schema),
      }));
      const cuerpo = resolver(op.requestBody);
      const cuerpos: Record<string, Nodo> = {};
      for (const [tipo, media] of Object.entries((cuerpo.content ?? {}) as Record<string, Nodo>))
        cuerpos[tipo] = media.schema as Nodo;
      fuera.push({
        id: op.operationId as string,
        metodo: metodo.toUpperCase(),
        plantilla,
        parametros,
        cuerpos,
        respuestas: op.responses as Record<string, Nodo>,
      });
    }
  }
  return fuera;
}

// --- pools and placeholders --------------------------------------------------------------------

/** A value taken at send time from a pool of real resources (ids made before or during the run). */
export class Pista {
  constructor(
    readonly pool: string,
    readonly indice: number,
  ) {}
}

/** A path or query value already percent-encoded (raw bytes such as `%FF`): sent as is. */
export class Crudo {
  constructor(readonly texto: string) {}
}

export type Pools = Map<string, unknown[]>;

const pista = (pool: string) => fc.nat(1000).map((i) => new Pista(pool, i));

function resolverPistas(v: unknown, pools: Pools): unknown {
  if (v instanceof Pista) {
    const lista = pools.get(v.pool) ?? [];
    return lista.length ? lista[v.indice % lista.length] : `${v.pool}_0000000000000000000000000`;
  }
  if (Buffer.isBuffer(v) || v instanceof Crudo) return v;
  if (Array.isArray(v)) return v.map((x) => resolverPistas(x, pools));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolverPistas(x, pools)]));
  return v;
}

const hoy = () => new Date().toISOString().slice(0, 10);

/** Values a real client would send for a field of that name: constants and pools of real resources. */
const PISTAS: Record<string, () => fc.Arbitrary<unknown>> = {
  organizacion: () => fc.oneof(pista('org'), pista('rfc_org')),
  cliente: () => fc.oneof(pista('cli'), pista('rfc_cli')),
  producto: () => pista('prod'),
  factura: () => fc.oneof(pista('fac_ppd'), pista('fac')),
  uuids: () => pista('uuid'),
  uuid: () => pista('uuid'),
  uuid_sustitucion: () => pista('uuid'),
  evento: () => pista('evt'),
  webhook: () => pista('wh'),
  url: () => pista('url_webhook'),
  contrasena: () => pista('contrasena'),
  clave_prod_serv: () => fc.constantFrom('80111600', '43211914', '01010101', '84111506'),
  clave_unidad: () => fc.constantFrom('E48', 'H87', 'ACT'),
  unidad: () => fc.constantFrom('Pieza', 'Servicio'),
  regimen_fiscal: () => fc.constantFrom('601', '612', '626', '616'),
  codigo_postal: () => fc.constantFrom('42501', '80290', '06000'),
  domicilio_fiscal: () => fc.constantFrom('42501', '80290'),
  lugar_expedicion: () => fc.constantFrom('42501', '80290'),
  uso_cfdi: () => fc.constantFrom('G03', 'G01', 'S01', 'CP01'),
  forma_pago: () => fc.constantFrom('03', '01', '99'),
  moneda: () => fc.constantFrom('MXN', 'MXN', 'USD'),
  tipo_cambio: () => fc.constantFrom('17.5', '20.123456'),
  tasa_o_cuota: () => fc.constantFrom('0.160000', '0.080000', '0.000000', '0.100000'),
  rfc: () => fc.constantFrom('EKU9003173C9', 'MASO451221PM4', 'XAXX010101000', 'AAA010101AAA'),
  valor_unitario: () => fc.constantFrom('100', '1500.00', '0.01', '3499.99'),
  monto: () => fc.constantFrom('1.00', '10.00', '100'),
  imp_pagado: () => fc.constantFrom('1.00', '10.00', '100'),
  cantidad: () => fc.constantFrom<unknown>('1', '2', 1, 0.5),
  fecha_pago: () => fc.constantFrom(hoy(), new Date().toISOString()),
  descripcion: () => fc.constantFrom('Servicio de consultoría', 'Pantalla LED 24" & cable <HDMI>'),
  nombre: () => fc.constantFrom('MARIA OLIVIA MARTINEZ SAGAZ', 'ESCUELA KEMPER URGATE', 'Llave fuzz'),
  motivo: () => fc.constantFrom('02', '03', '01'),
  objeto_imp: () => fc.constantFrom('02', '01'),
  impuestos: () => fc.constant(IVA),
  impuestos_default: () => fc.constant(IVA),
  modo: () => fc.constantFrom('test', 'test', 'live'),
  'paginacion.cursor_inicio': () => pista('cursor'),
};

const IVA = { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] };

/** Path segment before `{id}` → pool of ids; writes (PATCH, DELETE, POST) use the sacrificial pools. */
const POOL_DE_RUTA: Record<string, [lectura: string[], escritura: string[]]> = {
  facturas: [
    ['fac', 'fac_ppd'],
    ['fac', 'fac_ppd'],
  ],
  clientes: [['cli', 'cli_sac'], ['cli_sac']],
  productos: [['prod', 'prod_sac'], ['prod_sac']],
  organizaciones: [['org', 'rfc_org', 'org_sac'], ['org_sac']],
  certificados: [['cert', 'cert_sac'], ['cert_sac']],
  pagos: [['pago'], ['pago']],
  webhooks: [['wh', 'wh_sac'], ['wh_sac']],
  eventos: [['evt'], ['evt']],
  entregas: [['ent'], ['ent']],
  llaves_api: [['llave_sac'], ['llave_sac']],
};

// --- hostile values ------------------------------------------------------------------------------

const CONTROL = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i));

const CADENAS_HOSTILES = [
  ...CONTROL.map((c) => `a${c}b`),
  '\uFFFE',
  '\uFFFF',
  'x\uFFFEy',
  '\ud800x',
  'x\udc00',
  '\ud800',
  '|',
  'a|b',
  ' ',
  '   ',
  '\t',
  '\n',
  ' \t\r\n ',
  '',
  '\u00a0',
  '\u200b',
  '\u202e',
  'ñÑáÉü',
  '😀',
  'e\u0301',
  "'; DROP TABLE facturas; --",
  '<x>&amp;"\'',
  ']]>',
  '${x}',
  '%s%n',
  '../../etc/passwd',
  'null',
  'true',
  '0',
  '-1',
];

const DECIMALES_HOSTILES = [
  '999999999999999999',
  '999999999999999999.999999',
  '99999999999999999.99',
  '100000000000000000',
  '0',
  '0.000000',
  '0.0000001',
  '0.000001',
  '1e5',
  '-1',
  '00001',
  '.5',
  '5.',
  '1,000.00',
  '1'.repeat(25),
  '1'.repeat(26),
  ' 1',
  '١٢٣',
  'NaN',
  'Infinity',
];

const NUMEROS_HOSTILES = [
  0,
  -0,
  -1,
  1e308,
  -1e308,
  2 ** 53 + 2,
  1e-7,
  0.000001,
  1.5,
  123456789012345680,
  1e18 - 1,
  5e-324,
];

const decimal18 = fc
  .tuple(fc.bigInt({ min: 10n ** 17n, max: 10n ** 18n - 1n }), fc.stringMatching(/^[0-9]{0,6}$/))
  .map(([e, d]) => (d ? `${e}.${d}` : String(e)));

const largas = fc.constantFrom(300, 1001, 10_000, 100_000).map((n) => 'x'.repeat(n));

const cadenaHostil: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...CADENAS_HOSTILES) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...CONTROL, '\uFFFE', '\uFFFF', '|', ' ') }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: largas },
  { weight: 2, arbitrary: fc.constantFrom(...DECIMALES_HOSTILES) },
  { weight: 2, arbitrary: decimal18 },
);

const valorHostil: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: cadenaHostil },
  { weight: 2, arbitrary: fc.constantFrom(...NUMEROS_HOSTILES) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { a: 1 }) },
);

// --- arbitraries from schemas ---------------------------------------------------------------------

const MAX_ARREGLO = 3;

function fusionar(partes: Nodo[]): Nodo {
  const fuera: Nodo = { type: 'object', properties: {}, required: [] };
  for (const p of partes.map(resolver)) {
    Object.assign(fuera.properties, p.properties ?? {});
    fuera.required.push(...((p.required ?? []) as string[]));
    for (const k of Object.keys(p)) if (!['properties', 'required'].includes(k)) fuera[k] = p[k];
  }
  return fuera;
}

/** Strings matching the pattern; fast-check has no lookahead, so those are left out and filtered after. */
function coincidente(patron: string): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(patron));
  } catch {
    return fc.stringMatching(new RegExp(patron.replace(/\(\?[=!][^)]*\)/g, '')));
  }
}

function cadenaDeEsquema(s: Nodo): fc.Arbitrary<string | Buffer> {
  const min = (s.minLength as number | undefined) ?? 0;
  const max = Math.min((s.maxLength as number | undefined) ?? 40, 60);
  const longitudOk = (x: string) => x.length >= min && x.length <= ((s.maxLength as number) ?? Infinity);
  switch (s.format) {
    case 'binary':
      return fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b));
    case 'byte':
      return fc.base64String({ minLength: Math.max(min, 4), maxLength: 64 });
    case 'email':
      return fc.emailAddress().filter((x) => x.length <= 254);
    case 'uri':
      return fc.webUrl().filter((x) => !s.pattern || new RegExp(s.pattern as string).test(x));
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString());
  }
  if (s.pattern) {
    const patron = new RegExp(s.pattern as string);
    return coincidente(s.pattern as string)
      .map((x) => x.slice(0, (s.maxLength as number) ?? 60))
      .filter((x) => longitudOk(x) && patron.test(x));
  }
  return fc.string({ minLength: min, maxLength: Math.max(min, max) });
}

/** A value valid for the schema (mostly), steered by the field name towards real values. */
export function arbitrarioDeEsquema(esquema: Nodo | undefined, campo?: string): fc.Arbitrary<unknown> {
  let s = resolver(esquema);
  if (s.allOf) s = fusionar(s.allOf as Nodo[]);
  // OpenAPI 3.1: a nullable field is a type list with 'null'.
  const nulo = Array.isArray(s.type) && s.type.includes('null');
  if (Array.isArray(s.type)) s = { ...s, type: s.type.find((t) => t !== 'null') };
  let base: fc.Arbitrary<unknown>;
  if (s.anyOf || s.oneOf) {
    base = fc.oneof(...((s.anyOf ?? s.oneOf) as Nodo[]).map((x) => arbitrarioDeEsquema(x, campo)));
  } else if (Array.isArray(s.enum)) {
    base = fc.constantFrom(...(s.enum as unknown[]));
  } else {
    switch (s.type) {
      case 'string':
        base = cadenaDeEsquema(s);
        break;
      case 'integer':
        base = fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 });
        break;
      case 'number':
        base = fc.double({
          min: s.minimum ?? 0,
          max: s.maximum ?? 1e6,
          noNaN: true,
          noDefaultInfinity: true,
        });
        break;
      case 'boolean':
        base = fc.boolean();
        break;
      case 'array': {
        const item = arbitrarioDeEsquema(s.items as Nodo, campo);
        const limites = {
          minLength: (s.minItems as number | undefined) ?? 0,
          maxLength: Math.min((s.maxItems as number | undefined) ?? MAX_ARREGLO, MAX_ARREGLO),
        };
        base = s.uniqueItems
          ? fc.uniqueArray(item, { ...limites, selector: (x) => JSON.stringify(x) })
          : fc.array(item, limites);
        break;
      }
      default: {
        const props = (s.properties ?? {}) as Record<string, Nodo>;
        const requeridos = (s.required ?? []) as string[];
        const registro = fc.record(
          Object.fromEntries(Object.entries(props).map(([k, v]) => [k, arbitrarioDeEsquema(v, k)])),
          { requiredKeys: requeridos.filter((k) => k in props) },
        ) as fc.Arbitrary<Record<string, unknown>>;
        const minimo = (s.minProperties as number | undefined) ?? 0;
        base = minimo > 0 ? registro.filter((o) => Object.keys(o).length >= minimo) : registro;
      }
    }
  }
  if (nulo) base = fc.option(base, { nil: null, freq: 8 });
  const sugerida = campo ? PISTAS[campo] : undefined;
  return sugerida && s.type !== 'array' && s.type !== 'object'
    ? fc.oneof({ weight: 3, arbitrary: sugerida() }, { weight: 1, arbitrary: base })
    : sugerida && s.type === 'object'
      ? fc.oneof({ weight: 2, arbitrary: sugerida() }, { weight: 1, arbitrary: base })
      : base;
}

// --- valid templates: requests that reach deep code --------------------------------------------------

const conceptoCompleto = fc.record({
  cantidad: fc.constantFrom<unknown>('1', 2, '0.5'),
  clave_prod_serv: fc.constantFrom('43211914', '80111600'),
  clave_unidad: fc.constantFrom('H87', 'E48'),
  unidad: fc.constant('Pieza'),
  descripcion: fc.constantFrom('Pantalla LED 24" & cable <HDMI>', 'Servicio', 'Cable ñandú'),
  valor_unitario: fc.constantFrom('3499.99', '100', '0.50'),
  objeto_imp: fc.constant('02'),
  impuestos: fc.constant(IVA),
});
const conceptos = fc.array(
  fc.oneof(
    fc.record({ producto: pista('prod'), cantidad: fc.constantFrom<unknown>(1, '2') }),
    conceptoCompleto,
  ),
  { minLength: 1, maxLength: 3 },
);

const PLANTILLAS: Record<string, fc.Arbitrary<unknown>> = {
  crearFactura: fc.oneof(
    fc.record({
      organizacion: pista('org'),
      tipo: fc.constant('ingreso'),
      cliente: fc.oneof(pista('cli'), pista('rfc_cli')),
      forma_pago: fc.constantFrom('03', '01'),
      conceptos,
      auto_timbrar: fc.constantFrom(true, true, false),
    }),
    fc.record({
      organizacion: fc.oneof(pista('org'), pista('rfc_org')),
      tipo: fc.constant('ingreso'),
      cliente: pista('cli'),
      metodo_pago: fc.constant('PPD'),
      conceptos,
    }),
  ),
  timbrarFactura: fc.constant(undefined),
  cancelarFactura: fc.record({ motivo: fc.constantFrom('02', '03') }),
  crearPago: fc
    .tuple(pista('org'), pista('fac_ppd'), fc.constantFrom('1.00', '10.00', '0.01'))
    .map(([organizacion, factura, monto]) => ({
      organizacion,
      fecha_pago: new Date().toISOString(),
      forma_pago: '03',
      monto,
      facturas_pagadas: [{ factura, imp_pagado: monto }],
    })),
  crearWebhook: fc.record({
    url: pista('url_webhook'),
    eventos_suscritos: fc.constant(['factura.timbrada', 'factura.creada', 'pago.creado']),
  }),
  reenviarEvento: fc.record({ evento: pista('evt') }),
  crearLlaveApi: fc.record({ nombre: fc.constant('fuzz'), modo: fc.constant('test') }),
  subirCertificado: fc.record({
    organizacion: pista('org'),
    cer: pista('cer_bin'),
    llave: pista('llave_bin'),
    contrasena: pista('contrasena'),
  }),
};

/** Operations that reach the fiscal core, the PAC and the workflows get this many times the share of the rest. */
export const PESO_OPERACION: Record<string, number> = {
  crearFactura: 6,
  crearPago: 4,
  cancelarFactura: 2,
  timbrarFactura: 2,
  crearCliente: 2,
  crearProducto: 2,
  subirCertificado: 2,
  crearWebhook: 2,
  reenviarEvento: 2,
};

// --- mutations -------------------------------------------------------------------------------------

type Mutacion =
  | { tipo: 'quitar'; n: number }
  | { tipo: 'extra'; n: number; valor: unknown }
  | { tipo: 'reemplazar'; n: number; valor: unknown }
  | { tipo: 'agregar_hostil'; n: number; valor: unknown }
  | { tipo: 'arreglo_enorme'; n: number; tam: number };

const mutacionValor: fc.Arbitrary<Mutacion> = fc.oneof(
  fc.record({ tipo: fc.constant('quitar' as const), n: fc.nat() }),
  fc.record({ tipo: fc.constant('extra' as const), n: fc.nat(), valor: valorHostil }),
  {
    weight: 4,
    arbitrary: fc.record({ tipo: fc.constant('reemplazar' as const), n: fc.nat(), valor: valorHostil }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      tipo: fc.constant('agregar_hostil' as const),
      n: fc.nat(),
      valor: fc.constantFrom(...CONTROL, '\uFFFE', '\uFFFF', '\ud800', '|', '\udc00x'),
    }),
  },
  fc.record({
    tipo: fc.constant('arreglo_enorme' as const),
    n: fc.nat(),
    tam: fc.constantFrom(101, 1001, 5000),
  }),
);

/** Every node of a JSON tree with the setter that replaces it (the root has none). */
function nodos(
  v: unknown,
): { valor: unknown; padre?: Record<string, unknown> | unknown[]; clave?: string | number }[] {
  const fuera: ReturnType<typeof nodos> = [{ valor: v }];
  const visitar = (x: unknown) => {
    if (Buffer.isBuffer(x) || x instanceof Pista || x instanceof Crudo) return;
    if (Array.isArray(x))
      x.forEach((h, i) => {
        fuera.push({ valor: h, padre: x, clave: i });
        visitar(h);
      });
    else if (x && typeof x === 'object')
      for (const [k, h] of Object.entries(x)) {
        fuera.push({ valor: h, padre: x as Record<string, unknown>, clave: k });
        visitar(h);
      }
  };
  visitar(v);
  return fuera;
}

const copiar = (v: unknown): unknown =>
  Buffer.isBuffer(v) || v instanceof Pista || v instanceof Crudo
    ? v
    : Array.isArray(v)
      ? v.map(copiar)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copiar(x)]))
        : v;

export function aplicarMutacion(original: unknown, m: Mutacion): unknown {
  const raiz = { v: copiar(original) };
  const todos = nodos(raiz.v).map((n) => (n.padre ? n : { ...n, padre: raiz as never, clave: 'v' }));
  const objetivo = todos[m.n % todos.length]!;
  const poner = (valor: unknown) =>
    ((objetivo.padre as Record<string | number, unknown>)[objetivo.clave!] = valor);
  switch (m.tipo) {
    case 'quitar':
      if (Array.isArray(objetivo.padre)) objetivo.padre.splice(objetivo.clave as number, 1);
      else if (objetivo.padre !== (raiz as never))
        delete (objetivo.padre as Record<string, unknown>)[objetivo.clave!];
      break;
    case 'extra': {
      const o = objetivo.valor;
      if (Array.isArray(o)) o.push(m.valor);
      else if (o && typeof o === 'object' && !(o instanceof Pista))
        (o as Record<string, unknown>).campo_extra = m.valor;
      else poner(m.valor);
      break;
    }
    case 'reemplazar':
      poner(m.valor);
      break;
    case 'agregar_hostil': {
      const o = objetivo.valor;
      poner(typeof o === 'string' ? `${o}${m.valor as string}` : `Texto${m.valor as string}`);
      break;
    }
    case 'arreglo_enorme': {
      const o = objetivo.valor;
      poner(Array.from({ length: m.tam }, () => copiar(Array.isArray(o) ? (o[0] ?? 'x') : o)));
      break;
    }
  }
  return raiz.v;
}

// --- whole requests ---------------------------------------------------------------------------------

export type MutacionHttp =
  | 'ninguna'
  | 'json_truncado'
  | 'utf8_invalido'
  | 'tipo_contenido'
  | 'sin_tipo_contenido'
  | 'cuerpo_no_objeto'
  | 'cuerpo_vacio'
  | 'cuerpo_sobrante'
  | 'multipart_truncado'
  | 'multipart_mal_formado';

/** A request before its placeholders are resolved. */
export interface SolicitudAbstracta {
  operacion: string;
  metodo: string;
  plantilla: string;
  camino: Record<string, unknown>;
  consulta: [string, unknown][];
  encabezados: Record<string, string>;
  tipoContenido?: string;
  cuerpo?: unknown;
  mutaciones: string[];
  http: MutacionHttp;
  corte: number;
}

const HOSTILES_RUTA = [
  new Crudo('%FF'),
  new Crudo('%C3%28'),
  new Crudo('%ED%A0%80'),
  new Crudo('%00'),
  new Crudo('%'),
  new Crudo('%zz'),
  new Crudo('%2E%2E'),
  new Crudo('fac_%7C'),
  new Crudo('x'.repeat(5000)),
];

function arbRuta(op: Operacion, p: Parametro): fc.Arbitrary<unknown> {
  const segmentos = op.plantilla.split('/');
  const recurso = segmentos[segmentos.indexOf(`{${p.nombre}}`) - 1] ?? '';
  const [lectura, escritura] = POOL_DE_RUTA[recurso] ?? [[], []];
  const pools = op.metodo === 'GET' ? lectura : escritura;
  return fc.oneof(
    ...(pools.length ? [{ weight: 8, arbitrary: fc.oneof(...pools.map(pista)) }] : []),
    { weight: 1, arbitrary: arbitrarioDeEsquema(p.esquema).filter((x) => x !== '') },
    {
      weight: 1,
      arbitrary: fc.oneof(
        cadenaHostil.filter((x) => x !== ''),
        fc.constantFrom(...HOSTILES_RUTA),
      ),
    },
  );
}

function arbConsulta(op: Operacion): fc.Arbitrary<[string, unknown][]> {
  const enConsulta = op.parametros.filter((p) => p.en === 'query');
  const validos = fc.tuple(
    ...enConsulta.map((p) =>
      p.requerido
        ? arbitrarioDeEsquema(p.esquema, p.nombre).map((v) => [p.nombre, v] as [string, unknown])
        : fc.option(
            arbitrarioDeEsquema(p.esquema, p.nombre).map((v) => [p.nombre, v] as [string, unknown]),
            { freq: 2 },
          ),
    ),
  );
  const nombres = enConsulta.map((p) => p.nombre);
  return fc
    .tuple(
      validos,
      fc.oneof(
        { weight: 14, arbitrary: fc.constant<[string, unknown][]>([]) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.constantFrom('desconocido', 'limit', 'paginacion', '__proto__'), valorHostil)
            .map((x) => [x as [string, unknown]]),
        },
        ...(nombres.length
          ? [
              {
                weight: 3,
                arbitrary: fc
                  .tuple(
                    fc.constantFrom(...nombres),
                    fc.oneof(valorHostil, fc.constantFrom(...HOSTILES_RUTA)),
                  )
                  .map((x) => [x as [string, unknown]]),
              },
            ]
          : []),
      ),
    )
    .map(([v, extra]) => [...v.filter((x): x is [string, unknown] => x !== null), ...extra]);
}

const claveIdempotencia = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.constantFrom('fuzz-clave-fija', 'fuzz-otra-clave') },
  { weight: 1, arbitrary: fc.constantFrom('con espacio', 'x'.repeat(256), 'ñandú', '') },
);

/** Requests for one operation: valid-looking ones and broken ones, about half each. */
export function arbitrarioSolicitud(op: Operacion): fc.Arbitrary<SolicitudAbstracta> {
  const enCamino = op.parametros.filter((p) => p.en === 'path');
  const camino = fc.record(Object.fromEntries(enCamino.map((p) => [p.nombre, arbRuta(op, p)])));
  const tipos = Object.keys(op.cuerpos);
  const conIdempotencia = op.parametros.some((p) => p.nombre === 'Clave-Idempotencia');
  const cuerpoArb: fc.Arbitrary<{ tipo?: string; cuerpo?: unknown }> = tipos.length
    ? fc.constantFrom(...tipos).chain((tipo) => {
        const derivado = arbitrarioDeEsquema(op.cuerpos[tipo]);
        const plantilla = PLANTILLAS[op.id];
        const valido =
          plantilla && (tipo === 'application/json' ? op.id !== 'subirCertificado' : true)
            ? fc.oneof({ weight: 3, arbitrary: plantilla }, { weight: 1, arbitrary: derivado })
            : derivado;
        return valido.map((cuerpo) => ({ tipo, cuerpo }));
      })
    : fc.constant({});
  return fc
    .record({
      camino,
      consulta: arbConsulta(op),
      clave: conIdempotencia ? claveIdempotencia : fc.constant(undefined),
      cuerpo: cuerpoArb,
      mutaciones: fc.oneof(
        { weight: 6, arbitrary: fc.constant<Mutacion[]>([]) },
        { weight: 4, arbitrary: fc.array(mutacionValor, { minLength: 1, maxLength: 3 }) },
      ),
      http: fc.oneof(
        { weight: 40, arbitrary: fc.constant<MutacionHttp>('ninguna') },
        {
          weight: 10,
          arbitrary: fc.constantFrom<MutacionHttp>(
            'json_truncado',
            'utf8_invalido',
            'tipo_contenido',
            'sin_tipo_contenido',
            'cuerpo_no_objeto',
            'cuerpo_vacio',
            'cuerpo_sobrante',
            'multipart_truncado',
            'multipart_mal_formado',
          ),
        },
      ),
      corte: fc.nat(),
    })
    .map((r) => {
      const mutaciones: string[] = [];
      let cuerpo = r.cuerpo.cuerpo;
      if (cuerpo !== undefined)
        for (const m of r.mutaciones) {
          cuerpo = aplicarMutacion(cuerpo, m);
          mutaciones.push(m.tipo);
        }
      const encabezados: Record<string, string> = {};
      if (r.clave !== undefined) encabezados['Clave-Idempotencia'] = r.clave;
      return {
        operacion: op.id,
        metodo: op.metodo,
        plantilla: op.plantilla,
        camino: r.camino,
        consulta: r.consulta,
        encabezados,
        tipoContenido: r.cuerpo.tipo,
        cuerpo,
        mutaciones,
        http: r.http,
        corte: r.corte,
      };
    });
}

// --- concrete requests ------------------------------------------------------------------------------

export interface Solicitud {
  operacion: string;
  metodo: string;
  ruta: string;
  encabezados: Record<string, string>;
  cuerpo?: Buffer;
  /** How it was built, for the findings. */
  mutaciones: string[];
}

function codificar(v: unknown): string {
  if (v instanceof Crudo) return v.texto;
  const texto = typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined');
  try {
    const c = encodeURIComponent(texto);
    return c === '.' || c === '..' ? c.replace(/\./g, '%2E') : c;
  } catch {
    // A lone surrogate: its UTF-8 replacement bytes, percent-encoded.
    return [...Buffer.from(texto, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

function aMultipart(cuerpo: unknown, limite: string): Buffer {
  const partes: Buffer[] = [];
  const campos =
    cuerpo && typeof cuerpo === 'object' && !Array.isArray(cuerpo)
      ? Object.entries(cuerpo)
      : [['cuerpo', cuerpo]];
  for (const [k, v] of campos) {
    const nombre = String(k).replace(/"/g, '%22');
    if (Buffer.isBuffer(v)) {
      partes.push(
        Buffer.from(
          `--${limite}\r\nContent-Disposition: form-data; name="${nombre}"; filename="${nombre}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        v,
        Buffer.from('\r\n'),
      );
    } else {
      const texto = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
      partes.push(
        Buffer.from(`--${limite}\r\nContent-Disposition: form-data; name="${nombre}"\r\n\r\n${texto}\r\n`),
      );
    }
  }
  partes.push(Buffer.from(`--${limite}--\r\n`));
  return Buffer.concat(partes);
}

const aJson = (v: unknown) =>
  JSON.stringify(v, (_k, x) => (Buffer.isBuffer(x) ? x.toString('base64') : x)) ?? 'null';

/** Resolves the placeholders and serializes the body, applying the HTTP-level mutation. */
export function concretar(a: SolicitudAbstracta, pools: Pools): Solicitud {
  const camino = resolverPistas(a.camino, pools) as Record<string, unknown>;
  const ruta = a.plantilla.replace(/\{([^}]+)\}/g, (_m, nombre: string) => codificar(camino[nombre]));
  const consulta = (resolverPistas(a.consulta, pools) as [string, unknown][])
    .map(([k, v]) => `${encodeURIComponent(k)}=${codificar(v)}`)
    .join('&');
  const encabezados: Record<string, string> = { ...a.encabezados };
  const mutaciones = [...a.mutaciones];
  let cuerpo: Buffer | undefined;
  let tipo = a.tipoContenido;
  const valor = resolverPistas(a.cuerpo, pools);
  const limite = 'limiteFuzz0123456789';
  if (tipo === 'multipart/form-data') {
    cuerpo = aMultipart(valor, limite);
    tipo = `multipart/form-data; boundary=${limite}`;
  } else if (tipo) {
    cuerpo = Buffer.from(aJson(valor));
  }
  if (a.http !== 'ninguna') mutaciones.push(a.http);
  switch (a.http) {
    case 'json_truncado':
    case 'multipart_truncado':
      cuerpo = (cuerpo ?? Buffer.from(aJson(valor))).subarray(0, a.corte % Math.max(1, cuerpo?.length ?? 1));
      tipo ??= 'application/json';
      break;
    case 'utf8_invalido': {
      const base = cuerpo ?? Buffer.from('{"x":"y"}');
      const comilla = base.indexOf('"', a.corte % Math.max(1, base.length));
      const en = comilla >= 0 ? comilla + 1 : 0;
      const malos = [
        Buffer.from([0xff]),
        Buffer.from([0xc3, 0x28]),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from([0xe2, 0x82]),
      ];
      cuerpo = Buffer.concat([base.subarray(0, en), malos[a.corte % malos.length]!, base.subarray(en)]);
      tipo ??= 'application/json';
      break;
    }
    case 'tipo_contenido':
      tipo = [
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
        `multipart/form-data; boundary=${limite}`,
        'application/octet-stream',
      ][a.corte % 6];
      cuerpo ??= Buffer.from(aJson(valor));
      break;
    case 'sin_tipo_contenido':
      tipo = undefined;
      cuerpo ??= Buffer.from(aJson(valor));
      break;
    case 'cuerpo_no_objeto':
      cuerpo = Buffer.from(['[]', '"x"', '123', 'null', 'true', '[{}]'][a.corte % 6]!);
      tipo = 'application/json';
      break;
    case 'cuerpo_vacio':
      cuerpo = Buffer.alloc(0);
      break;
    case 'cuerpo_sobrante':
      cuerpo = Buffer.from('{"a":1}{"b":2}');
      tipo = 'application/json';
      break;
    case 'multipart_mal_formado':
      cuerpo = Buffer.concat([
        Buffer.from(`--otro\r\nContent-Disposition: form-data\r\n\r\n`),
        cuerpo ?? Buffer.alloc(0),
      ]);
      tipo = `multipart/form-data; boundary=${limite}`;
      break;
  }
  if (tipo) encabezados['content-type'] = tipo;
  return {
    operacion: a.operacion,
    metodo: a.metodo,
    ruta: consulta ? `${ruta}?${consulta}` : ruta,
    encabezados,
    cuerpo,
    mutaciones,
  };
}

// --- sending and checking ----------------------------------------------------------------------------

export interface Recibida {
  status: number;
  tipoContenido: string;
  cuerpo: Buffer;
}

const agente = new Agent({ keepAlive: true, maxSockets: 16 });

/** Sends exactly these bytes (a body on GET, raw percent-encoding, no content type) over node:http. */
export function enviar(url: string, s: Solicitud, plazoMs = 120_000): Promise<Recibida> {
  return new Promise((resolve, reject) => {
    const destino = new URL(url);
    const req = request(
      {
        host: destino.hostname,
        port: destino.port,
        method: s.metodo,
        path: s.ruta,
        agent: agente,
        headers: { ...s.encabezados, ...(s.cuerpo ? { 'content-length': String(s.cuerpo.length) } : {}) },
        timeout: plazoMs,
      },
      (res) => {
        const partes: Buffer[] = [];
        res.on('data', (p: Buffer) => partes.push(p));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            tipoContenido: String(res.headers['content-type'] ?? ''),
            cuerpo: Buffer.concat(partes),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`sin respuesta en ${plazoMs} ms`)));
    req.on('error', reject);
    req.end(s.cuerpo);
  });
}

export function cerrarConexiones(): void {
  agente.destroy();
}

/** Why the answer breaks openapi.yaml for that operation, or undefined when it keeps it. */
export interface Incumplimiento {
  /** Short and stable: what groups equal findings. */
  clave: string;
  detalle: string;
}

// What any route may answer before an operation is identified (openapi.yaml's x-respuestas-del-servidor).
const RESPUESTAS_DEL_SERVIDOR = ((documento as Nodo)['x-respuestas-del-servidor'] ?? {}) as Record<
  string,
  Nodo
>;
const CODIGOS_DEL_PARSER = ['solicitud_malformada', 'solicitud_incompleta', 'encabezados_demasiado_grandes'];

/** The envelope of a rejection by Node's HTTP parser (api/servidor.ts), and nothing else. */
function esRechazoDelParser(r: Recibida): boolean {
  try {
    const e = (JSON.parse(r.cuerpo.toString('utf8')) as { error?: Record<string, unknown> }).error;
    return (
      r.tipoContenido.startsWith('application/json') &&
      typeof e?.mensaje === 'string' &&
      e.tipo === 'solicitud_invalida' &&
      CODIGOS_DEL_PARSER.includes(e.codigo as string)
    );
  } catch {
    return false;
  }
}

/** Why the answer breaks openapi.yaml for that operation, or undefined when it keeps it. */
export function fueraDeContrato(op: Operacion, r: Recibida): Incumplimiento | undefined {
  const documentada = op.respuestas[String(r.status)] ?? op.respuestas.default;
  if (!documentada) {
    if (RESPUESTAS_DEL_SERVIDOR[String(r.status)] && esRechazoDelParser(r)) return undefined;
    return { clave: `status ${r.status} no documentado`, detalle: '' };
  }
  const contenido = (resolver(documentada).content ?? {}) as Record<string, unknown>;
  const media = r.tipoContenido.split(';')[0]!.trim();
  if (!r.cuerpo.length && !media)
    return Object.keys(contenido).length ? { clave: 'respuesta sin cuerpo', detalle: '' } : undefined;
  if (!(media in contenido))
    return {
      clave: `tipo de contenido ${media || '(ninguno)'} no documentado para ${r.status}`,
      detalle: '',
    };
  if (media !== 'application/json') return undefined;
  let cuerpo: unknown;
  try {
    cuerpo = JSON.parse(r.cuerpo.toString('utf8'));
  } catch {
    return { clave: 'JSON ilegible', detalle: '' };
  }
  try {
    validarRespuesta(op.metodo, op.plantilla.replace(/\{[^}]+\}/g, 'x'), r.status, cuerpo);
    return undefined;
  } catch (e) {
    const mensaje = (e as Error).message;
    const errores = [...mensaje.matchAll(/"instancePath": "([^"]*)",\s*"schemaPath": "([^"]*)"/g)]
      .map((m) => `${m[1]} ${m[2]!.split('/').pop()}`)
      .slice(0, 3);
    return {
      clave: `cuerpo ${r.status} fuera del esquema: ${errores.join(', ')}`,
      detalle: mensaje.slice(0, 1500),
    };
  }
}
