import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parse } from 'yaml';
import {
  ConfigError,
  VARIABLES,
  cargarConfig,
  cargarConfigSinSecretos,
  type ConfigSinSecretos,
} from '../../config/config';
import { raizProyecto } from '../../config/rutas';
import { configuracionCompose, RUTA_SALUD_REPLICA } from '../../scripts/balanceador';
import { procesoServidorProduccion } from '../../scripts/temporal/servidor-produccion';
import { ATRIBUTOS, atributosParaCli } from '../../workflows/atributos';

/**
 * No Docker engine runs the production stack in CI, so this test reads docker-compose.yml and the
 * Dockerfile the way compose would and checks them against the code: config, search attributes, entry points.
 */

const RAIZ = raizProyecto();

type ValorEntorno = string | number | boolean | null;

interface Servicio {
  image?: string;
  build?: unknown;
  command?: string | string[];
  environment?: Record<string, ValorEntorno> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: (string | number | { target: number; published?: string | number })[];
  healthcheck?: { test?: string | string[] };
  volumes?: (string | { source?: string; target: string })[];
  restart?: string;
  user?: string;
  container_name?: string;
}

interface Compose {
  services: Record<string, Servicio>;
  [extension: string]: unknown;
}

const SERVICIOS_ESPERADOS = [
  'mysql',
  'postgresql',
  'temporal-admin-tools',
  'temporal-archivo',
  'temporal',
  'temporal-create-namespace',
  'temporal-ui',
  'mailpit',
  'pac-sandbox',
  'migrate',
  'worker',
  'worker-pdf',
  'api',
  'balanceador',
];
/** What `docker compose up --scale` multiplies: no fixed host port, no container name. */
const SERVICIOS_ESCALABLES = ['api', 'worker', 'worker-pdf'];
/** Processes built from this repository: they read config/config.ts. */
const SERVICIOS_APP = ['api', 'worker', 'worker-pdf', 'pac-sandbox', 'migrate'] as const;
type ServicioApp = (typeof SERVICIOS_APP)[number];

/** Plausible values for the variables compose requires (`${VAR:?...}`). */
const REQUERIDAS: Record<string, string> = {
  MYSQL_ROOT_PASSWORD: 'RaizPrueba1',
  CFDI_DB_PASSWORD: 'AplicacionPrueba2',
  TEMPORAL_DB_PASSWORD: 'TemporalPrueba3',
  CFDI_CLAVE_MAESTRA: randomBytes(32).toString('base64'),
};

/** Compose's interpolation: $$, $VAR, ${VAR}, ${VAR:-x}, ${VAR-x}, ${VAR:?msg}, ${VAR?msg}. */
function interpolar(texto: string, variables: Record<string, string>): string {
  const patron = /\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;
  return texto.replace(
    patron,
    (_m, dolar?: string, nombre?: string, operador?: string, argumento?: string, simple?: string) => {
      if (dolar) return '$';
      if (simple) return variables[simple] ?? '';
      const valor = variables[nombre!];
      // With the colon an empty value counts as missing, as in the shell.
      const vacia = valor === undefined || (operador?.startsWith(':') === true && valor === '');
      if (operador === ':-' || operador === '-') return vacia ? argumento! : valor!;
      if (operador === ':?' || operador === '?') {
        if (vacia) throw new Error(`falta la variable requerida ${nombre}: ${argumento}`);
        return valor!;
      }
      return valor ?? '';
    },
  );
}

function interpolarTodo(valor: unknown, variables: Record<string, string>): unknown {
  if (typeof valor === 'string') return interpolar(valor, variables);
  if (Array.isArray(valor)) return valor.map((v) => interpolarTodo(v, variables));
  if (valor && typeof valor === 'object') {
    return Object.fromEntries(Object.entries(valor).map(([k, v]) => [k, interpolarTodo(v, variables)]));
  }
  return valor;
}

function leerCompose(variables: Record<string, string>): Compose {
  const texto = readFileSync(join(RAIZ, 'docker-compose.yml'), 'utf8');
  const crudo: unknown = parse(texto, { merge: true });
  const compose = interpolarTodo(crudo, variables) as Compose;
  if (!compose?.services) throw new Error('docker-compose.yml sin services');
  return compose;
}

/** Docker's instructions of the Dockerfile, with line continuations joined. */
function instruccionesDockerfile(): { instruccion: string; argumentos: string }[] {
  const texto = readFileSync(join(RAIZ, 'Dockerfile'), 'utf8').replace(/\\\r?\n/g, ' ');
  return texto
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [instruccion = '', ...resto] = l.split(/\s+/);
      return { instruccion: instruccion.toUpperCase(), argumentos: resto.join(' ') };
    });
}

/** Only the final stage ends up in the image that compose runs. */
function etapaFinal() {
  const todas = instruccionesDockerfile();
  const desde = todas.map((i) => i.instruccion).lastIndexOf('FROM');
  return todas.slice(desde);
}

function entornoImagen(): Record<string, string> {
  const entorno: Record<string, string> = {};
  for (const { instruccion, argumentos } of etapaFinal()) {
    if (instruccion !== 'ENV') continue;
    for (const m of argumentos.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S+)/g)) {
      entorno[m[1]!] = m[2]!.replace(/^["']|["']$/g, '');
    }
  }
  return entorno;
}

function cmdImagen(): string[] {
  const cmd = etapaFinal().find((i) => i.instruccion === 'CMD');
  return cmd ? (JSON.parse(cmd.argumentos) as string[]) : [];
}

/** The service's own environment; a bare `VAR` or `VAR:` (taken from the host) counts as unset. */
function entornoServicio(s: Servicio): Record<string, string> {
  const pares: [string, ValorEntorno][] = Array.isArray(s.environment)
    ? s.environment.map((linea) => {
        const i = linea.indexOf('=');
        return i < 0 ? [linea, null] : [linea.slice(0, i), linea.slice(i + 1)];
      })
    : Object.entries(s.environment ?? {});
  return Object.fromEntries(pares.filter(([, v]) => v !== null).map(([k, v]) => [k, String(v)]));
}

function dependencias(s: Servicio): Record<string, string | undefined> {
  if (Array.isArray(s.depends_on)) return Object.fromEntries(s.depends_on.map((d) => [d, undefined]));
  return Object.fromEntries(Object.entries(s.depends_on ?? {}).map(([d, v]) => [d, v.condition]));
}

function puertos(s: Servicio): { contenedor: number; publicado?: number }[] {
  return (s.ports ?? []).map((p) => {
    if (typeof p === 'object') {
      return { contenedor: Number(p.target), publicado: p.published ? Number(p.published) : undefined };
    }
    const partes = String(p)
      .replace(/\/(tcp|udp)$/, '')
      .split(':');
    const contenedor = Number(partes.at(-1));
    return { contenedor, publicado: partes.length > 1 ? Number(partes.at(-2)) : undefined };
  });
}

function comando(s: Servicio): string[] {
  if (s.command === undefined) return s.build ? cmdImagen() : [];
  return Array.isArray(s.command) ? s.command : s.command.split(/\s+/);
}

/** Host directory bound at `destino` inside the container. */
function montaje(s: Servicio, destino: string): string | undefined {
  for (const v of s.volumes ?? []) {
    const [origen, objetivo] = typeof v === 'string' ? v.split(':') : [v.source, v.target];
    if (objetivo === destino && origen?.startsWith('.')) return join(RAIZ, origen);
  }
  return undefined;
}

/** Named volumes (declared under the top-level `volumes:`) a service mounts: folder inside → volume. */
function volumenesConNombre(s: Servicio, compose: Compose): Map<string, string> {
  const declarados = Object.keys((compose.volumes ?? {}) as Record<string, unknown>);
  const montados = new Map<string, string>();
  for (const v of s.volumes ?? []) {
    const [origen, objetivo] = typeof v === 'string' ? v.split(':') : [v.source, v.target];
    if (origen && objetivo && declarados.includes(origen)) montados.set(objetivo, origen);
  }
  return montados;
}

interface Pila {
  compose: Compose;
  servicio(nombre: string): Servicio;
  /** What the process sees: the image's ENV overridden by the service's environment. */
  entorno: Record<ServicioApp, Record<string, string>>;
  config: Record<ServicioApp, ConfigSinSecretos>;
}

/** Only these processes handle secrets; the others load their configuration without them. */
const CON_SECRETOS: readonly string[] = ['api', 'worker'];

function cargarPila(variables: Record<string, string>): Pila {
  const compose = leerCompose(variables);
  const servicio = (nombre: string) => {
    const s = compose.services[nombre];
    if (!s) throw new Error(`falta el servicio ${nombre}`);
    return s;
  };
  const imagen = entornoImagen();
  const entorno = Object.fromEntries(
    SERVICIOS_APP.map((n) => [n, { ...imagen, ...entornoServicio(servicio(n)) }]),
  ) as Pila['entorno'];
  const config = Object.fromEntries(
    SERVICIOS_APP.map((n) => [
      n,
      CON_SECRETOS.includes(n) ? cargarConfig(entorno[n]) : cargarConfigSinSecretos(entorno[n]),
    ]),
  ) as Pila['config'];
  return { compose, servicio, entorno, config };
}

/** SQL visibility stores custom search attributes in fixed columns: Keyword01..Keyword10 and so on. */
const LIMITES_VISIBILIDAD_SQL: Record<string, number> = {
  Keyword: 10,
  Text: 3,
  Int: 3,
  Double: 3,
  Bool: 3,
  Datetime: 3,
  KeywordList: 3,
};

describe('docker-compose.yml de producción', () => {
  let pila: Pila;

  beforeAll(() => {
    pila = cargarPila(REQUERIDAS);
  });

  it('declara todos los servicios, cada uno con imagen o build', () => {
    expect(Object.keys(pila.compose.services).sort()).toEqual([...SERVICIOS_ESPERADOS].sort());
    for (const [nombre, s] of Object.entries(pila.compose.services)) {
      expect({ nombre, tieneImagenOBuild: Boolean(s.image || s.build) }).toEqual({
        nombre,
        tieneImagenOBuild: true,
      });
    }
    for (const n of SERVICIOS_APP) expect(pila.servicio(n).build).toBeDefined();
  });

  it('comparte el entorno de la aplicación con el ancla x-app-env', () => {
    const comun = entornoServicio({ environment: pila.compose['x-app-env'] as Record<string, string> });
    expect(Object.keys(comun).length).toBeGreaterThan(5);
    for (const n of ['api', 'worker', 'migrate'] as const) {
      expect(pila.entorno[n]).toMatchObject(comun);
    }
  });

  it('los servicios de la aplicación solo usan variables de config/config.ts', () => {
    const conocidas = Object.keys(VARIABLES);
    expect(Object.keys(entornoImagen()).filter((v) => !conocidas.includes(v))).toEqual([]);
    for (const n of SERVICIOS_APP) {
      const desconocidas = Object.keys(entornoServicio(pila.servicio(n))).filter(
        (v) => !conocidas.includes(v),
      );
      expect({ servicio: n, desconocidas }).toEqual({ servicio: n, desconocidas: [] });
    }
  });

  it('la configuración de cada proceso es válida en production', () => {
    for (const n of SERVICIOS_APP) expect(pila.config[n].entorno).toBe('production');
    for (const n of ['api', 'worker'] as const) {
      expect(cargarConfig(pila.entorno[n]).claveMaestra.clave.toString('base64')).toBe(
        REQUERIDAS.CFDI_CLAVE_MAESTRA,
      );
    }
  });

  it('solo la API y el worker reciben la clave maestra', () => {
    for (const n of SERVICIOS_APP) {
      expect({ servicio: n, recibe: 'CFDI_CLAVE_MAESTRA' in pila.entorno[n] }).toEqual({
        servicio: n,
        recibe: CON_SECRETOS.includes(n),
      });
    }
  });

  it('sin CFDI_CLAVE_MAESTRA ni compose ni la API o el worker arrancan', () => {
    const { CFDI_CLAVE_MAESTRA: _omitida, ...sinClave } = REQUERIDAS;
    expect(() => leerCompose(sinClave)).toThrow(/CFDI_CLAVE_MAESTRA/);
    for (const n of ['api', 'worker'] as const) {
      const { CFDI_CLAVE_MAESTRA: _quitada, ...entorno } = pila.entorno[n];
      expect(entorno.NODE_ENV).toBe('production');
      expect(() => cargarConfig(entorno)).toThrow(ConfigError);
      expect(() => cargarConfig(entorno)).toThrow(/CFDI_CLAVE_MAESTRA: es obligatoria/);
    }
  });

  it('las réplicas escalan con --scale: api, worker y worker-pdf no fijan puertos del host ni nombre de contenedor', () => {
    for (const n of SERVICIOS_ESCALABLES) {
      const s = pila.servicio(n);
      expect({ n, puertos: s.ports ?? [], nombre: s.container_name }).toEqual({
        n,
        puertos: [],
        nombre: undefined,
      });
    }
  });

  it('el balanceador publica el puerto de la API y reparte entre las réplicas que resuelve el DNS de Docker', () => {
    const { port, host } = pila.config.api.api;
    expect(host).toBe('0.0.0.0');
    const balanceador = pila.servicio('balanceador');
    expect(balanceador.image).toMatch(/^haproxy:2\.6(\.|$)/);
    expect(puertos(balanceador)).toEqual([{ contenedor: 3000, publicado: 3000 }]);
    expect(dependencias(balanceador)).toEqual({ api: 'service_healthy' });
    const archivo = montaje(balanceador, '/usr/local/etc/haproxy/haproxy.cfg');
    expect(archivo).toBeDefined();
    // The same configuration `make up` and the scale-out test run, with Docker's DNS for the servers.
    expect(readFileSync(archivo!, 'utf8')).toBe(configuracionCompose());
    const cfg = configuracionCompose();
    expect(cfg).toContain('bind 0.0.0.0:3000');
    expect(cfg).toContain(`server-template api 1-16 api:${port} check resolvers docker`);
    expect(cfg).toContain('nameserver dns 127.0.0.11:53');
    expect(cfg).toContain(`option httpchk GET ${RUTA_SALUD_REPLICA}`);
    // The API counts failed authentications by the address the balancer reports, which must be trusted.
    expect(cfg).toContain('http-request set-header X-Forwarded-For %[src]');
    expect(pila.config.api.proxiesConfiables).toEqual(['uniquelocal']);
  });

  it('la API escucha en el puerto que consultan su healthcheck y el balanceador', () => {
    const { port } = pila.config.api.api;
    const prueba = [pila.servicio('api').healthcheck?.test ?? []].flat().join(' ');
    const url = prueba.match(/https?:\/\/[^'"\s)]+/)?.[0];
    expect(url).toBeDefined();
    expect(new URL(url!).pathname).toBe('/salud/vivo');
    expect(Number(new URL(url!).port)).toBe(port);
    expect(new URL(url!).pathname).toBe(RUTA_SALUD_REPLICA);
  });

  it('el PAC sandbox recibe el mismo TOKEN_OPERADOR que la API (su interruptor global de fallas es del operador)', () => {
    const token = 'operador-'.padEnd(40, '5');
    const conToken = cargarPila({ ...REQUERIDAS, TOKEN_OPERADOR: token });
    expect(conToken.config.api.tokenOperador).toBe(token);
    expect(conToken.config['pac-sandbox'].tokenOperador).toBe(token);
    expect(pila.config['pac-sandbox'].tokenOperador).toBe(pila.config.api.tokenOperador);
  });

  it('la API y el worker llegan al PAC sandbox en el puerto en que escucha', () => {
    const sandbox = pila.config['pac-sandbox'];
    expect(sandbox.api.host).toBe('0.0.0.0');
    for (const n of ['api', 'worker'] as const) {
      const url = new URL(pila.config[n].pac.sandboxUrl);
      expect(url.hostname).toBe('pac-sandbox');
      expect(Number(url.port || 80)).toBe(sandbox.pac.sandboxPort);
    }
  });

  it('los workers envían el correo a Mailpit hasta que SMTP_URL nombra el servidor real', () => {
    const mailpit = pila.servicio('mailpit');
    expect(mailpit.image).toBe('axllent/mailpit:v1.33.1');
    // The UI has no login: this host only; SMTP stays on the compose network.
    expect(mailpit.ports).toEqual(['127.0.0.1:8025:8025']);
    for (const n of ['worker', 'worker-pdf'] as const)
      expect(pila.entorno[n].SMTP_URL).toBe('smtp://mailpit:1025');
    const real = cargarPila({
      ...REQUERIDAS,
      SMTP_URL: 'smtps://smtp.ejemplo.mx:465',
      SMTP_USUARIO: 'envios',
      SMTP_CONTRASENA: 'Clave1',
    });
    for (const n of ['worker', 'worker-pdf'] as const)
      expect(real.entorno[n]).toMatchObject({
        SMTP_URL: 'smtps://smtp.ejemplo.mx:465',
        SMTP_USUARIO: 'envios',
        SMTP_CONTRASENA: 'Clave1',
      });
  });

  it('DATABASE_URL apunta a la base y al usuario que crea el servicio mysql', () => {
    const mysql = pila.servicio('mysql');
    const entornoMysql = entornoServicio(mysql);
    const scripts = montaje(mysql, '/docker-entrypoint-initdb.d');
    const sql = scripts
      ? readdirSync(scripts)
          .map((f) => readFileSync(join(scripts, f), 'utf8'))
          .join('\n')
      : '';
    const basesInit = [
      entornoMysql.MYSQL_DATABASE,
      ...[...sql.matchAll(/CREATE DATABASE (?:IF NOT EXISTS )?`?(\w+)`?/gi)].map((m) => m[1]),
    ];
    for (const n of ['api', 'worker', 'migrate'] as const) {
      const url = new URL(pila.config[n].databaseUrl);
      expect(url.protocol).toBe('mysql:');
      expect(url.hostname).toBe('mysql');
      expect(Number(url.port || 3306)).toBe(3306);
      expect(basesInit).toContain(url.pathname.slice(1));
      expect(decodeURIComponent(url.username)).toBe(entornoMysql.MYSQL_USER);
      expect(decodeURIComponent(url.password)).toBe(entornoMysql.MYSQL_PASSWORD);
    }
  });

  it('Temporal guarda su estado en PostgreSQL, como TEMPORAL=servidor make up y su prueba', () => {
    const temporal = entornoServicio(pila.servicio('temporal'));
    const herramientas = entornoServicio(pila.servicio('temporal-admin-tools'));
    const postgresql = pila.servicio('postgresql');
    const pg = entornoServicio(postgresql);
    expect(postgresql.image).toMatch(/^postgres:15/);
    expect(temporal).toMatchObject({ POSTGRES_SEEDS: 'postgresql', DB_PORT: '5432' });
    expect(temporal.POSTGRES_USER).toBe(pg.POSTGRES_USER);
    expect(temporal.POSTGRES_PWD).toBe(pg.POSTGRES_PASSWORD);
    expect(herramientas).toMatchObject({
      SQL_HOST: 'postgresql',
      SQL_PORT: '5432',
      SQL_USER: pg.POSTGRES_USER,
      SQL_PASSWORD: pg.POSTGRES_PASSWORD,
    });
    // The same template variables the local production-grade server is started with.
    const local = procesoServidorProduccion({
      carpeta: '/x',
      plantillas: '/x',
      ip: '127.0.0.1',
      puerto: 7233,
      base: temporal.DBNAME!,
      baseVisibilidad: temporal.VISIBILITY_DBNAME!,
      pg: { host: 'postgresql', puerto: 5432, usuario: pg.POSTGRES_USER!, contrasena: pg.POSTGRES_PASSWORD! },
    }).entorno;
    for (const v of [
      'DB',
      'POSTGRES_SEEDS',
      'DB_PORT',
      'POSTGRES_USER',
      'POSTGRES_PWD',
      'DBNAME',
      'VISIBILITY_DBNAME',
    ])
      expect({ v, valor: temporal[v] }).toEqual({ v, valor: local[v] });
    expect(dependencias(pila.servicio('temporal')).postgresql).toBe('service_healthy');
  });

  it('prepara los esquemas PostgreSQL de Temporal con la misma versión que el servidor', () => {
    const herramientas = pila.servicio('temporal-admin-tools');
    const version = (s: Servicio) => s.image?.split(':')[1];
    expect(version(herramientas)).toBe(version(pila.servicio('temporal')));
    expect(version(pila.servicio('temporal-create-namespace'))).toBe(version(pila.servicio('temporal')));
    const guion = comando(herramientas).join('\n');
    for (const [base, carpeta] of [
      ['temporal', 'temporal'],
      ['temporal_visibility', 'visibility'],
    ] as const) {
      const herramienta = `temporal-sql-tool --plugin postgres12 --db ${base}`;
      const pasos = [
        `${herramienta} create-database`,
        `${herramienta} setup-schema -v 0.0`,
        `${herramienta} update-schema -d /etc/temporal/schema/postgresql/v12/${carpeta}/versioned`,
      ];
      const posiciones = pasos.map((p) => guion.indexOf(p));
      expect(posiciones.every((p) => p >= 0)).toBe(true);
      expect([...posiciones].sort((a, b) => a - b)).toEqual(posiciones);
    }
    expect(dependencias(pila.servicio('temporal'))['temporal-admin-tools']).toBe(
      'service_completed_successfully',
    );
  });

  it('los PDF tienen su propio worker: sin clave maestra, solo la cola pdf; el worker principal no los genera', () => {
    expect(pila.config.worker.colasWorker).toEqual(['principal']);
    expect(pila.config['worker-pdf'].colasWorker).toEqual(['pdf']);
    expect(pila.config['worker-pdf'].temporal).toEqual(pila.config.worker.temporal);
    expect(comando(pila.servicio('worker-pdf'))).toEqual(comando(pila.servicio('worker')));
  });

  it('fija los shards y monta la configuración dinámica que declara', () => {
    const temporal = pila.servicio('temporal');
    const entorno = entornoServicio(temporal);
    expect(Number(entorno.NUM_HISTORY_SHARDS)).toBeGreaterThanOrEqual(128);
    const ruta = entorno.DYNAMIC_CONFIG_FILE_PATH!;
    const carpeta = montaje(temporal, posix.dirname(ruta));
    expect(carpeta).toBeDefined();
    const archivo = join(carpeta!, posix.basename(ruta));
    expect(existsSync(archivo)).toBe(true);
    const dinamica = parse(readFileSync(archivo, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(dinamica)).not.toContain('system.forceSearchAttributesCacheRefreshOnRead');
  });

  it('TEMPORAL_ADDRESS apunta al puerto gRPC del servicio temporal', () => {
    const puertosTemporal = puertos(pila.servicio('temporal')).map((p) => p.contenedor);
    const direcciones = [
      pila.config.api.temporal.address,
      pila.config.worker.temporal.address,
      entornoServicio(pila.servicio('temporal-ui')).TEMPORAL_ADDRESS,
      entornoServicio(pila.servicio('temporal-create-namespace')).TEMPORAL_ADDRESS,
    ];
    for (const d of direcciones) {
      const [host, puerto] = (d ?? '').split(':');
      expect(host).toBe('temporal');
      expect(puertosTemporal).toContain(Number(puerto));
    }
    const ui = puertos(pila.servicio('temporal-ui')).map((p) => p.publicado);
    expect(ui).toContain(Number(new URL(pila.config.api.temporal.uiUrl).port));
  });

  it('la API y el worker comparten namespace y cola, y el namespace es el que se crea', () => {
    const { api, worker } = pila.config;
    expect(worker.temporal.namespace).toBe(api.temporal.namespace);
    expect(worker.temporal.taskQueue).toBe(api.temporal.taskQueue);
    const creador = pila.servicio('temporal-create-namespace');
    expect(entornoServicio(creador).TEMPORAL_NAMESPACE).toBe(api.temporal.namespace);
    const guion = comando(creador).join('\n');
    expect(guion).toMatch(/temporal operator namespace create [^\n]*--namespace "\$TEMPORAL_NAMESPACE"/);
    expect(guion).toMatch(/--retention/);
  });

  it('el namespace archiva historias y visibilidad en file:// dentro de un volumen del servidor', () => {
    const temporal = pila.servicio('temporal');
    const montados = volumenesConNombre(temporal, pila.compose);
    const creador = pila.servicio('temporal-create-namespace');
    const entorno = entornoServicio(creador);
    // Shell line continuations joined: each command on one line.
    const guion = comando(creador)
      .join('\n')
      .replace(/\\\n\s*/g, ' ');
    // Both paths: a new namespace is created with archival, an older one is updated to it.
    for (const orden of ['create', 'update']) {
      const linea = guion.split('\n').find((l) => l.includes(`temporal operator namespace ${orden} `)) ?? '';
      expect(linea).toContain('--namespace "$TEMPORAL_NAMESPACE"');
      const uris: string[] = [];
      for (const clase of ['history', 'visibility']) {
        expect({
          orden,
          clase,
          estado: linea.match(new RegExp(`--${clase}-archival-state (\\w+)`))?.[1],
        }).toEqual({
          orden,
          clase,
          estado: 'enabled',
        });
        const variable = linea.match(new RegExp(`--${clase}-uri "\\$(\\w+)"`))?.[1] ?? '';
        const uri = new URL(entorno[variable] ?? 'sin:uri');
        expect({ orden, clase, protocolo: uri.protocol }).toEqual({ orden, clase, protocolo: 'file:' });
        // On a volume, not in the container's writable layer, which a recreated container loses.
        const carpeta = [...montados.keys()].find((c) => uri.pathname.startsWith(`${c}/`));
        expect({ orden, clase, uri: uri.href, enVolumen: Boolean(carpeta) }).toEqual({
          orden,
          clase,
          uri: uri.href,
          enVolumen: true,
        });
        uris.push(uri.href);
      }
      expect(new Set(uris).size).toBe(2);
    }
  });

  it('el volumen del archivo es del usuario del servidor (uid 1000) antes de que arranque', () => {
    const temporal = pila.servicio('temporal');
    const preparador = pila.servicio('temporal-archivo');
    const montados = [...volumenesConNombre(temporal, pila.compose)];
    expect(montados).toHaveLength(1);
    const [carpeta, volumen] = montados[0]!;
    const enPreparador = [...volumenesConNombre(preparador, pila.compose)].find(
      ([, v]) => v === volumen,
    )?.[0];
    expect(enPreparador).toBe(carpeta);
    expect(preparador.user).toMatch(/^(0|root)(:|$)/);
    expect(comando(preparador).join(' ')).toContain(`chown 1000:1000 ${carpeta}`);
    expect(dependencias(temporal)['temporal-archivo']).toBe('service_completed_successfully');
  });

  it('registra exactamente los atributos de búsqueda de workflows/atributos.ts', () => {
    const creador = pila.servicio('temporal-create-namespace');
    const registrados = (entornoServicio(creador).ATRIBUTOS_BUSQUEDA ?? '').trim().split(/\s+/);
    expect([...registrados].sort()).toEqual([...atributosParaCli()].sort());
    const guion = comando(creador).join('\n');
    expect(guion).toMatch(/for \w+ in \$ATRIBUTOS_BUSQUEDA/);
    expect(guion).toContain('temporal operator search-attribute create');
    // Idempotent: a second `up` finds them registered and must not fail.
    expect(guion).toMatch(/already exists/i);
    // Right after the describe that missed, the server answers "namespace not found" for about a second.
    const espera = guion.indexOf('until temporal operator search-attribute list');
    expect(espera).toBeGreaterThan(guion.indexOf('temporal operator namespace create'));
    expect(espera).toBeLessThan(guion.indexOf('temporal operator search-attribute create'));
  });

  it('los atributos caben en las columnas de la visibilidad SQL', () => {
    const porTipo = new Map<string, number>();
    for (const par of atributosParaCli()) {
      const tipo = par.split('=')[1]!;
      porTipo.set(tipo, (porTipo.get(tipo) ?? 0) + 1);
    }
    expect(Object.keys(ATRIBUTOS).length).toBe(atributosParaCli().length);
    for (const [tipo, cuantos] of porTipo) {
      expect({ tipo, cabe: cuantos <= (LIMITES_VISIBILIDAD_SQL[tipo] ?? 0) }).toEqual({ tipo, cabe: true });
    }
  });

  it('cada depends_on nombra un servicio existente con la condición que puede cumplir', () => {
    for (const [nombre, s] of Object.entries(pila.compose.services)) {
      for (const [dep, condicion] of Object.entries(dependencias(s))) {
        const destino = pila.compose.services[dep];
        expect({ nombre, dep, existe: Boolean(destino) }).toEqual({ nombre, dep, existe: true });
        // compose refuses service_healthy on a service without a healthcheck.
        if (condicion === 'service_healthy')
          expect({ dep, healthcheck: destino?.healthcheck?.test }).toEqual({
            dep,
            healthcheck: expect.anything(),
          });
        // A one-shot that restarts after exiting 0 never counts as completed.
        if (condicion === 'service_completed_successfully')
          expect({ dep, restart: destino?.restart }).toEqual({
            dep,
            restart: 'no',
          });
      }
    }
    for (const n of ['api', 'worker'] as const) {
      expect(dependencias(pila.servicio(n))).toEqual({
        migrate: 'service_completed_successfully',
        temporal: 'service_healthy',
        'temporal-create-namespace': 'service_completed_successfully',
        'pac-sandbox': 'service_started',
      });
    }
    expect(dependencias(pila.servicio('migrate')).mysql).toBe('service_healthy');
  });

  it('cada servicio construido ejecuta un archivo de dist/ cuyo fuente TypeScript existe', () => {
    for (const [nombre, s] of Object.entries(pila.compose.services)) {
      if (!s.build) continue;
      const cmd = comando(s);
      expect(cmd[0]).toBe('node');
      const archivo = cmd.find((a) => /^dist\/.+\.js$/.test(a));
      expect({ nombre, archivo }).toEqual({ nombre, archivo: expect.any(String) });
      const fuente = archivo!.replace(/^dist\//, '').replace(/\.js$/, '.ts');
      expect({ nombre, fuente, existe: existsSync(join(RAIZ, fuente)) }).toEqual({
        nombre,
        fuente,
        existe: true,
      });
    }
  });
});

describe('Dockerfile', () => {
  it('existe, parte de node 20 bookworm-slim e instala Chromium sin recomendados', () => {
    expect(existsSync(join(RAIZ, 'Dockerfile'))).toBe(true);
    const instrucciones = instruccionesDockerfile();
    const desde = instrucciones.filter((i) => i.instruccion === 'FROM').map((i) => i.argumentos);
    expect(desde.length).toBeGreaterThanOrEqual(3);
    const runs = etapaFinal()
      .filter((i) => i.instruccion === 'RUN')
      .map((i) => i.argumentos)
      .join('\n');
    expect(runs).toMatch(/apt-get install -y --no-install-recommends[^\n]*\bchromium\b/);
    expect(runs).toMatch(/\bfonts-dejavu-core\b/);
    expect(runs).toContain('rm -rf /var/lib/apt/lists/*');
    const texto = readFileSync(join(RAIZ, 'Dockerfile'), 'utf8');
    expect(texto).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    expect(texto).toContain('npm ci --omit=dev');
    expect(texto).toContain('npm run build');
  });

  it('el worker encuentra Chromium y el proceso no corre como root', () => {
    const imagen = entornoImagen();
    expect(imagen).toMatchObject({
      NODE_ENV: 'production',
      CHROMIUM_PATH: '/usr/bin/chromium-headless-shell',
    });
    expect(cargarPila(REQUERIDAS).config.worker.chromiumPath).toBe('/usr/bin/chromium-headless-shell');
    const usuario = etapaFinal()
      .filter((i) => i.instruccion === 'USER')
      .at(-1)?.argumentos;
    expect(usuario).toBeDefined();
    expect(['root', '0']).not.toContain(usuario);
  });

  it('copia lo que lee en tiempo de ejecución y deja fuera del contexto lo generado', () => {
    const copias = etapaFinal()
      .filter((i) => i.instruccion === 'COPY')
      .map((i) => i.argumentos)
      .join('\n');
    for (const ruta of ['node_modules', 'dist', 'openapi.yaml', 'package.json', 'db/catalogos/datos']) {
      expect(copias).toContain(ruta);
    }
    expect(copias).toContain('--from=dependencias /app/node_modules');
    // A COPY from the build context whose source is missing breaks `docker build`.
    for (const { instruccion, argumentos } of etapaFinal()) {
      if (instruccion !== 'COPY' || argumentos.startsWith('--from=')) continue;
      const fuentes = argumentos.split(/\s+/).slice(0, -1);
      for (const f of fuentes) expect({ f, existe: existsSync(join(RAIZ, f)) }).toEqual({ f, existe: true });
    }
    const ignorados = readFileSync(join(RAIZ, '.dockerignore'), 'utf8').split(/\r?\n/);
    for (const ruta of ['node_modules', 'dist', '.data', '.git', 'coverage', '.env']) {
      expect(ignorados).toContain(ruta);
    }
  });
});
