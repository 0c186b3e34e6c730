import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * Every setting of every process, one environment variable each. This table is the single
 * source for validation, the README's configuration table and the docker-compose consistency test.
 */
export interface Variable {
  descripcion: string;
  esquema: z.ZodType;
  /** Default shown in the docs; secrets have none outside development. */
  defecto?: string;
  secreto?: boolean;
}

// Development-only master key: public on purpose, refused when NODE_ENV=production.
export const CLAVE_MAESTRA_DESARROLLO = Buffer.alloc(32, 'cfdi-desarrollo-no-usar-en-prod!').toString(
  'base64',
);

const entero = (defecto: number, min = 0, max = 65535) =>
  z.coerce.number().int().min(min).max(max).default(defecto);

/** `IP:puerto` (IPv6 in brackets): what Temporal's Prometheus exporter binds; it takes no host names. */
const esDireccionSocket = (v: string) => {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(v);
  const ip = m?.[1] ?? m?.[2];
  return Boolean(m && ip && isIP(ip) === (m[1] ? 6 : 4) && Number(m[3]) <= 65535);
};

/** An entry of Express's `trust proxy` list: an address, a subnet, or one of its named ranges. */
const esProxyConfiable = (v: string) => {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(v)) return true;
  const [ip = '', prefijo, ...resto] = v.split('/');
  const version = isIP(ip);
  if (!version || resto.length) return false;
  return (
    prefijo === undefined || (/^\d{1,3}$/.test(prefijo) && Number(prefijo) <= (version === 4 ? 32 : 128))
  );
};

export const VARIABLES = {
  NODE_ENV: {
    descripcion: 'Entorno: development, test o production. En production los secretos son obligatorios.',
    esquema: z.enum(['development', 'test', 'production']).default('development'),
    defecto: 'development',
  },
  PORT: { descripcion: 'Puerto HTTP de la API.', esquema: entero(3000, 1), defecto: '3000' },
  HOST: {
    descripcion: 'Dirección en la que escuchan la API y el PAC sandbox.',
    esquema: z.string().default('0.0.0.0'),
    defecto: '0.0.0.0',
  },
  LOG_LEVEL: {
    descripcion: 'Nivel de log de pino: fatal, error, warn, info, debug, trace o silent.',
    esquema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    defecto: 'info',
  },
  DATABASE_URL: {
    descripcion:
      'Conexión MySQL 8 / MariaDB 10.11 de la aplicación (mysql://usuario:contraseña@host:puerto/base).',
    esquema: z.string().url().default('mysql://root@127.0.0.1:3306/cfdi'),
    defecto: 'mysql://root@127.0.0.1:3306/cfdi',
  },
  TEMPORAL_ADDRESS: {
    descripcion: 'Dirección gRPC del servidor Temporal.',
    esquema: z.string().default('127.0.0.1:7233'),
    defecto: '127.0.0.1:7233',
  },
  TEMPORAL_NAMESPACE: {
    descripcion: 'Namespace de Temporal.',
    esquema: z.string().min(1).default('default'),
    defecto: 'default',
  },
  TEMPORAL_TASK_QUEUE: {
    descripcion: 'Cola de tareas que atiende el worker.',
    esquema: z.string().min(1).default('cfdi'),
    defecto: 'cfdi',
  },
  TEMPORAL_UI_URL: {
    descripcion:
      'URL de la interfaz web de Temporal: la imprime make up y a ella llevan los enlaces de la consola.',
    esquema: z.string().url().default('http://localhost:8233'),
    defecto: 'http://localhost:8233',
  },
  PAC_SANDBOX_URL: {
    descripcion: 'URL base del PAC sandbox que usa el modo test.',
    esquema: z.string().url().default('http://127.0.0.1:3100'),
    defecto: 'http://127.0.0.1:3100',
  },
  PAC_SANDBOX_PORT: {
    descripcion: 'Puerto en el que escucha el proceso del PAC sandbox.',
    esquema: entero(3100, 1),
    defecto: '3100',
  },
  PAC_SANDBOX_DATOS: {
    descripcion:
      'Carpeta del PAC sandbox donde vive el certificado "SAT" con que firma los SelloSAT (se crea al primer arranque); vacío = .data/pac-sandbox.',
    esquema: z.string().optional(),
  },
  PAC_SANDBOX_USUARIO: {
    descripcion: 'Usuario que el PAC sandbox exige en cada llamada SOAP; vacío = acepta cualquiera.',
    esquema: z.string().optional(),
  },
  PAC_SANDBOX_CONTRASENA: {
    descripcion: 'Contraseña que el PAC sandbox exige junto con PAC_SANDBOX_USUARIO.',
    esquema: z.string().optional(),
    secreto: true,
  },
  PAC_SANDBOX_PLAZO_ACEPTACION_MS: {
    descripcion:
      'Plazo del receptor para aceptar o rechazar una cancelación en el sandbox; vencido, "Plazo vencido".',
    esquema: entero(259_200_000, 0, 2_147_483_647),
    defecto: '259200000',
  },
  PAC_SANDBOX_VENTANA_SIN_ACEPTACION_MS: {
    descripcion: 'Tras el timbrado, tiempo en que una cancelación en el sandbox no requiere aceptación.',
    esquema: entero(86_400_000, 0, 2_147_483_647),
    defecto: '86400000',
  },
  PAC_SANDBOX_LATENCIA_MS: {
    descripcion: 'Latencia añadida a cada llamada SOAP del PAC sandbox (inyección de fallas).',
    esquema: entero(0, 0, 600_000),
    defecto: '0',
  },
  PAC_SANDBOX_FALLA: {
    descripcion:
      'Modo de falla inicial del PAC sandbox: normal, error_500 (SOAP Fault) o caido (cierra la conexión).',
    esquema: z.enum(['normal', 'error_500', 'caido']).default('normal'),
    defecto: 'normal',
  },
  PAC_SANDBOX_ESPERA_MAXIMA_MS: {
    descripcion: 'Cuánto retiene el PAC sandbox una solicitud SANDBOX:TIMEOUT antes de cerrar la conexión.',
    esquema: entero(300_000, 0, 3_600_000),
    defecto: '300000',
  },
  PAC_LIVE_URL: {
    descripcion: 'URL base del PAC real para el modo live. Sin ella el timbrado live responde 503.',
    esquema: z.string().url().optional(),
  },
  PAC_LIVE_USUARIO: { descripcion: 'Usuario del PAC real.', esquema: z.string().optional(), secreto: true },
  PAC_LIVE_CONTRASENA: {
    descripcion: 'Contraseña del PAC real.',
    esquema: z.string().optional(),
    secreto: true,
  },
  CHROMIUM_PATH: {
    descripcion:
      'Ejecutable de Chromium para los PDF; vacío = chromium-headless-shell o, si falta, chromium en el PATH.',
    esquema: z.string().optional(),
  },
  CFDI_CLAVE_MAESTRA: {
    descripcion:
      'Clave maestra (32 bytes en base64) que cifra llaves y contraseñas de CSD y secretos de webhooks. Obligatoria en production.',
    esquema: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'debe ser 32 bytes en base64')
      .optional(),
    secreto: true,
  },
  CFDI_CLAVE_MAESTRA_VERSION: {
    descripcion: 'Versión de la clave maestra, guardada junto a cada cifrado para poder rotarla.',
    esquema: entero(1, 1, 1_000_000),
    defecto: '1',
  },
  LIMITE_SOLICITUDES_POR_SEGUNDO: {
    descripcion:
      'Solicitudes por segundo que cada llave API puede sostener (cubeta de fichas en MySQL, una por llave para todas las réplicas de la API).',
    esquema: entero(100, 1, 1_000_000),
    defecto: '100',
  },
  LIMITE_SOLICITUDES_RAFAGA: {
    descripcion: 'Solicitudes que una llave API puede hacer de golpe antes de recibir 429.',
    esquema: entero(200, 1, 1_000_000),
    defecto: '200',
  },
  LIMITE_AUTENTICACIONES_FALLIDAS: {
    descripcion:
      'Autenticaciones fallidas (sin llave, mal formada, desconocida o revocada) que una dirección IP puede acumular en la ventana antes de recibir 429 en toda ruta autenticada.',
    esquema: entero(20, 1, 1_000_000),
    defecto: '20',
  },
  LIMITE_AUTENTICACIONES_FALLIDAS_VENTANA_MS: {
    descripcion:
      'Ventana en que se cuentan las autenticaciones fallidas de una dirección IP, en milisegundos.',
    esquema: entero(60_000, 1000, 86_400_000),
    defecto: '60000',
  },
  PROXIES_CONFIABLES: {
    descripcion:
      'Balanceadores o proxies inversos delante de la API cuyo X-Forwarded-For se cree (IP, IP/prefijo, loopback, linklocal o uniquelocal, separados por comas): la dirección del cliente que cuentan las autenticaciones fallidas es la que ellos reportan. Vacío = ninguno: la dirección TCP. El balanceador debe reemplazar el encabezado, no añadirle.',
    esquema: z
      .string()
      .transform((v) => v.split(',').map((p) => p.trim()))
      .refine(
        (l) => l.every(esProxyConfiable),
        'cada elemento debe ser una IP, IP/prefijo, loopback, linklocal o uniquelocal',
      )
      .optional(),
  },
  TIMBRADO_ESPERA_MS: {
    descripcion:
      'Cuánto espera la API a que el PAC timbre antes de responder 202 con el timbrado pendiente (el workflow sigue).',
    esquema: entero(8000, 0, 120_000),
    defecto: '8000',
  },
  PDF_ESPERA_MS: {
    descripcion:
      'Cuánto espera GET /v1/facturas/{id}/pdf a que se genere un PDF que aún no está guardado antes de responder 409 pdf_en_proceso.',
    esquema: entero(20_000, 1000, 120_000),
    defecto: '20000',
  },
  CANCELACION_SONDEO_MS: {
    descripcion:
      'Cada cuánto se consulta al SAT (vía el PAC) una cancelación que espera la respuesta del receptor.',
    esquema: entero(1_800_000, 100, 86_400_000),
    defecto: '1800000',
  },
  CANCELACION_PLAZO_MS: {
    descripcion:
      'Cuánto se sigue una cancelación que espera al receptor antes de darla por vencida (factura.cancelacion_fallida); el SAT da 72 h al receptor.',
    esquema: entero(604_800_000, 1000, 2_592_000_000),
    defecto: '604800000',
  },
  SMTP_URL: {
    descripcion:
      'Servidor SMTP de los correos a receptores: smtp://host:587 (STARTTLS si el servidor lo ofrece) o smtps://host:465 (TLS desde el inicio). Por omisión el Mailpit que arranca make up.',
    esquema: z
      .string()
      .refine((v) => /^smtps?:\/\/[^/\s]+/.test(v), 'debe ser smtp://host:puerto o smtps://host:puerto')
      // A password in the URL would reach every log that prints the setting: it goes in SMTP_CONTRASENA.
      .refine(
        (v) => !/^smtps?:\/\/[^/@]*@/.test(v),
        'sin usuario ni contraseña: use SMTP_USUARIO y SMTP_CONTRASENA',
      )
      .default('smtp://127.0.0.1:1025'),
    defecto: 'smtp://127.0.0.1:1025',
  },
  SMTP_URL_TEST: {
    descripcion:
      'Servidor SMTP de los correos del modo test, si es otro (un buzón de pruebas como Mailpit): así ninguna factura de prueba llega a una persona. Vacío = SMTP_URL. Sin usuario ni contraseña.',
    esquema: z
      .string()
      .refine(
        (v) => /^smtps?:\/\/[^/@\s]+/.test(v),
        'debe ser smtp://host:puerto o smtps://host:puerto, sin credenciales',
      )
      .optional(),
  },
  SMTP_USUARIO: {
    descripcion: 'Usuario del servidor SMTP (vacío: sin autenticación).',
    esquema: z.string().optional(),
    secreto: true,
  },
  SMTP_CONTRASENA: {
    descripcion: 'Contraseña del servidor SMTP.',
    esquema: z.string().optional(),
    secreto: true,
  },
  CORREO_REMITENTE: {
    descripcion:
      'Dirección From de los correos a receptores; el nombre que muestran es el de la organización emisora, y su correo va como Reply-To.',
    esquema: z.string().email().default('facturas@cfdi-api.localhost'),
    defecto: 'facturas@cfdi-api.localhost',
  },
  CORREO_ESPERA_MAXIMA_S: {
    descripcion:
      'Espera máxima entre dos intentos de un correo mientras el servidor SMTP no responde o contesta 4xx, en segundos (la espera crece desde 2 s).',
    esquema: entero(600, 1, 86_400),
    defecto: '600',
  },
  CORREO_PLAZO_S: {
    descripcion: 'Cuánto sigue intentando un correo antes de terminar fallido (correo.fallido), en segundos.',
    esquema: entero(259_200, 10, 2_592_000),
    defecto: '259200',
  },
  AUTOFACTURA_URL_BASE: {
    descripcion:
      'Origen público del portal de autofacturación, con el que se arma la url_autofactura de cada recibo (…/autofactura?clave=…) y su código QR. Vacío = la propia API en http://localhost:PORT.',
    esquema: z
      .string()
      .url()
      .refine((v) => /^https?:\/\/[^/]+\/?$/.test(v), 'debe ser un origen http(s)://host[:puerto], sin ruta')
      .optional(),
  },
  AUTOFACTURA_LIMITE_POR_SEGUNDO: {
    descripcion:
      'Solicitudes por segundo que una dirección IP puede sostener en las operaciones del portal de autofacturación (cubeta en MySQL, común a las réplicas).',
    esquema: entero(2, 1, 1_000_000),
    defecto: '2',
  },
  AUTOFACTURA_LIMITE_RAFAGA: {
    descripcion:
      'Solicitudes que una dirección IP puede hacer de golpe en el portal de autofacturación antes de recibir 429.',
    esquema: entero(60, 1, 1_000_000),
    defecto: '60',
  },
  AUTOFACTURA_CLAVES_FALLIDAS: {
    descripcion:
      'Claves de recibo que no abren nada (mal formadas, desconocidas o de un recibo cancelado) que una dirección IP puede probar en la ventana de LIMITE_AUTENTICACIONES_FALLIDAS_VENTANA_MS antes de que el portal le responda 429.',
    esquema: entero(10, 1, 1_000_000),
    defecto: '10',
  },
  WEBHOOKS_LOCALES_EN_TEST: {
    descripcion:
      'true: los webhooks de modo test pueden apuntar a loopback y redes privadas (desarrollo local). En un despliegue compartido use false: el modo test queda como live (solo direcciones públicas, aunque admite http).',
    esquema: z.enum(['true', 'false']).default('true'),
    defecto: 'true',
  },
  SALUD_TIMEOUT_MS: {
    descripcion: 'Tiempo máximo de cada verificación de GET /salud, en milisegundos.',
    esquema: entero(5000, 100, 60_000),
    defecto: '5000',
  },
  WORKER_METRICAS: {
    descripcion:
      'IP:puerto en que el worker publica sus métricas Prometheus (GET /metrics: las del SDK de Temporal y las del PAC, timbrados y entregas), sin autenticación; 127.0.0.1 = solo este equipo, puerto 0 = uno libre cualquiera.',
    esquema: z
      .string()
      .refine(esDireccionSocket, 'debe ser IP:puerto (por ejemplo 127.0.0.1:9464 o [::1]:9464)')
      .default('127.0.0.1:9464'),
    defecto: '127.0.0.1:9464',
  },
  WORKER_COLAS: {
    descripcion:
      'Colas que atiende este proceso worker, separadas por comas: principal (timbrado, cancelación, pagos, webhooks) y pdf (los PDF, pocos a la vez y con Chromium en baja prioridad). Un despliegue con los PDF en otras máquinas corre un worker con principal y otro con pdf.',
    esquema: z
      .string()
      .transform((v) => v.split(',').map((c) => c.trim()))
      .pipe(z.array(z.enum(['principal', 'pdf'])).min(1))
      .default(['principal', 'pdf']),
    defecto: 'principal,pdf',
  },
  WORKER_BUNDLE: {
    descripcion:
      'Archivo con el bundle de los workflows ya construido (bundleWorkflowCode de @temporalio/worker, de este mismo código); vacío = el worker lo construye al arrancar (unos segundos de CPU por proceso).',
    esquema: z.string().optional(),
  },
  PDF_CONCURRENCIA: {
    descripcion: 'PDF que el worker de la cola pdf genera a la vez (el resto espera en la cola).',
    esquema: entero(2, 1, 32),
    defecto: '2',
  },
  TOKEN_OPERADOR: {
    descripcion:
      'Token (32 caracteres o más) con que el operador consulta las rutas de operación (GET /salud/detalle, GET /metricas; en el PAC sandbox, /sandbox/fallas) desde fuera del equipo: Authorization: Bearer <token>. Vacío = solo desde loopback.',
    esquema: z.string().min(32).optional(),
    secreto: true,
  },
} satisfies Record<string, Variable>;

export type NombreVariable = keyof typeof VARIABLES;

const esquema = (exigirSecretos: boolean) =>
  z
    .object(
      Object.fromEntries(Object.entries(VARIABLES).map(([nombre, v]) => [nombre, v.esquema])) as {
        [K in NombreVariable]: (typeof VARIABLES)[K]['esquema'];
      },
    )
    .superRefine((env, ctx) => {
      if (!exigirSecretos) return;
      if (env.NODE_ENV === 'production' && !env.CFDI_CLAVE_MAESTRA) {
        ctx.addIssue({
          code: 'custom',
          path: ['CFDI_CLAVE_MAESTRA'],
          message: 'es obligatoria en production',
        });
      }
      if (env.NODE_ENV === 'production' && env.CFDI_CLAVE_MAESTRA === CLAVE_MAESTRA_DESARROLLO) {
        ctx.addIssue({
          code: 'custom',
          path: ['CFDI_CLAVE_MAESTRA'],
          message: 'no puede ser la clave pública de desarrollo',
        });
      }
    });

export interface Config {
  entorno: 'development' | 'test' | 'production';
  logLevel: string;
  api: { port: number; host: string };
  databaseUrl: string;
  temporal: { address: string; namespace: string; taskQueue: string; uiUrl: string };
  pac: {
    sandboxUrl: string;
    sandboxPort: number;
    /** Settings of the sandbox PAC process itself. */
    sandbox: {
      datos?: string;
      usuario?: string;
      contrasena?: string;
      plazoAceptacionMs: number;
      ventanaSinAceptacionMs: number;
      latenciaMs: number;
      falla: 'normal' | 'error_500' | 'caido';
      esperaMaximaMs: number;
    };
    live?: { url: string; usuario?: string; contrasena?: string };
  };
  chromiumPath?: string;
  claveMaestra: { clave: Buffer; version: number };
  saludTimeoutMs: number;
  limiteSolicitudes: { porSegundo: number; rafaga: number };
  /** Failed authentications a client address may pile up in a window before it gets 429. */
  fallosAutenticacion: { maximo: number; ventanaMs: number };
  /** The self-invoicing portal's limits per client address: its bucket, and failed key lookups per window. */
  autofactura: { porDireccion: { porSegundo: number; rafaga: number }; clavesFallidas: number };
  /** Bearer token of the operator routes; absent: loopback only. */
  tokenOperador?: string;
  /** Proxies whose X-Forwarded-For names the client (Express's `trust proxy`); empty: the TCP peer. */
  proxiesConfiables: string[];
  /** `IP:port` of the worker's Prometheus endpoint (Temporal's exporter). */
  metricasWorker: string;
  /** The task queues this worker process serves. */
  colasWorker: ('principal' | 'pdf')[];
  /** A prebuilt workflow bundle (a file); absent: the worker builds it at start. */
  bundleWorkflows?: string;
  pdfConcurrencia: number;
  timbradoEsperaMs: number;
  pdfEsperaMs: number;
  cancelacionSondeoMs: number;
  cancelacionPlazoMs: number;
  webhooksLocalesEnTest: boolean;
  /** Origin of the self-invoicing portal in the receipts' links and QR codes. */
  autofacturaUrlBase: string;
  correo: {
    smtpUrl: string;
    /** Test mode's server when it is another (a sink); absent: `smtpUrl`. */
    smtpUrlTest?: string;
    usuario?: string;
    contrasena?: string;
    remitente: string;
    esperaMaximaS: number;
    plazoS: number;
  };
}

export class ConfigError extends Error {}

export type ConfigSinSecretos = Omit<Config, 'claveMaestra'>;

function leer(env: NodeJS.ProcessEnv, exigirSecretos: boolean): Config {
  // Empty strings mean "unset", as in docker-compose's `VAR=` lines.
  const limpio = Object.fromEntries(
    Object.keys(VARIABLES).map((k) => [k, env[k] === '' ? undefined : env[k]]),
  );
  const r = esquema(exigirSecretos).safeParse(limpio);
  if (!r.success) {
    const detalle = r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Configuración inválida: ${detalle}`);
  }
  const e = r.data;
  return {
    entorno: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    api: { port: e.PORT, host: e.HOST },
    databaseUrl: e.DATABASE_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      uiUrl: e.TEMPORAL_UI_URL,
    },
    pac: {
      sandboxUrl: e.PAC_SANDBOX_URL,
      sandboxPort: e.PAC_SANDBOX_PORT,
      sandbox: {
        datos: e.PAC_SANDBOX_DATOS,
        usuario: e.PAC_SANDBOX_USUARIO,
        contrasena: e.PAC_SANDBOX_CONTRASENA,
        plazoAceptacionMs: e.PAC_SANDBOX_PLAZO_ACEPTACION_MS,
        ventanaSinAceptacionMs: e.PAC_SANDBOX_VENTANA_SIN_ACEPTACION_MS,
        latenciaMs: e.PAC_SANDBOX_LATENCIA_MS,
        falla: e.PAC_SANDBOX_FALLA,
        esperaMaximaMs: e.PAC_SANDBOX_ESPERA_MAXIMA_MS,
      },
      live: e.PAC_LIVE_URL
        ? { url: e.PAC_LIVE_URL, usuario: e.PAC_LIVE_USUARIO, contrasena: e.PAC_LIVE_CONTRASENA }
        : undefined,
    },
    chromiumPath: e.CHROMIUM_PATH,
    claveMaestra: {
      clave: Buffer.from(e.CFDI_CLAVE_MAESTRA ?? CLAVE_MAESTRA_DESARROLLO, 'base64'),
      version: e.CFDI_CLAVE_MAESTRA_VERSION,
    },
    saludTimeoutMs: e.SALUD_TIMEOUT_MS,
    limiteSolicitudes: { porSegundo: e.LIMITE_SOLICITUDES_POR_SEGUNDO, rafaga: e.LIMITE_SOLICITUDES_RAFAGA },
    fallosAutenticacion: {
      maximo: e.LIMITE_AUTENTICACIONES_FALLIDAS,
      ventanaMs: e.LIMITE_AUTENTICACIONES_FALLIDAS_VENTANA_MS,
    },
    autofactura: {
      porDireccion: { porSegundo: e.AUTOFACTURA_LIMITE_POR_SEGUNDO, rafaga: e.AUTOFACTURA_LIMITE_RAFAGA },
      clavesFallidas: e.AUTOFACTURA_CLAVES_FALLIDAS,
    },
    tokenOperador: e.TOKEN_OPERADOR,
    proxiesConfiables: e.PROXIES_CONFIABLES ?? [],
    metricasWorker: e.WORKER_METRICAS,
    colasWorker: e.WORKER_COLAS,
    bundleWorkflows: e.WORKER_BUNDLE,
    pdfConcurrencia: e.PDF_CONCURRENCIA,
    timbradoEsperaMs: e.TIMBRADO_ESPERA_MS,
    pdfEsperaMs: e.PDF_ESPERA_MS,
    cancelacionSondeoMs: e.CANCELACION_SONDEO_MS,
    cancelacionPlazoMs: e.CANCELACION_PLAZO_MS,
    webhooksLocalesEnTest: e.WEBHOOKS_LOCALES_EN_TEST === 'true',
    autofacturaUrlBase: (e.AUTOFACTURA_URL_BASE ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    correo: {
      smtpUrl: e.SMTP_URL,
      smtpUrlTest: e.SMTP_URL_TEST,
      usuario: e.SMTP_USUARIO,
      contrasena: e.SMTP_CONTRASENA,
      remitente: e.CORREO_REMITENTE,
      esperaMaximaS: e.CORREO_ESPERA_MAXIMA_S,
      plazoS: e.CORREO_PLAZO_S,
    },
  };
}

/** Configuration of a process that handles secrets (api, worker): in production the master key is mandatory. */
export function cargarConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return leer(env, true);
}

/** Configuration of a process that never touches a secret (sandbox PAC, migrations, scripts). */
export function cargarConfigSinSecretos(env: NodeJS.ProcessEnv = process.env): ConfigSinSecretos {
  const { claveMaestra: _nunca, ...resto } = leer(env, false);
  return resto;
}

/** The email workflows' retry limits, as the processes that start them pass them on. */
export const reintentosCorreo = (c: Pick<Config, 'correo'>) => ({
  maximoEntreIntentosS: c.correo.esperaMaximaS,
  plazoS: c.correo.plazoS,
});
