import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, type Variable } from '../../config/config';
import { rutaDatos } from '../../config/rutas';

/**
 * Settings of the sandbox PAC process. They belong in config/config.ts's VARIABLES table; until they are
 * merged there, this table has the same shape (and the same "empty means unset" rule) so moving them is
 * a copy.
 */

const entero = (defecto: number, max = 2_147_483_647) =>
  z.coerce.number().int().min(0).max(max).default(defecto);

export const MODOS_FALLA = ['normal', 'error_500', 'caido'] as const;
export type ModoFalla = (typeof MODOS_FALLA)[number];

export const VARIABLES_SANDBOX = {
  PAC_SANDBOX_DATOS: {
    descripcion:
      'Carpeta del PAC sandbox donde vive el certificado "SAT" con que firma los SelloSAT (se crea al primer arranque).',
    esquema: z.string().optional(),
    defecto: '.data/pac-sandbox',
  },
  PAC_SANDBOX_USUARIO: {
    descripcion:
      'Usuario que el PAC sandbox exige en cada llamada SOAP; vacío = acepta cualquiera. El modo test de la API envía este.',
    esquema: z.string().optional(),
  },
  PAC_SANDBOX_CONTRASENA: {
    descripcion: 'Contraseña que el PAC sandbox exige junto con PAC_SANDBOX_USUARIO.',
    esquema: z.string().optional(),
    secreto: true,
  },
  PAC_SANDBOX_PLAZO_ACEPTACION_MS: {
    descripcion:
      'Plazo del receptor para aceptar o rechazar una cancelación; vencido, queda "Plazo vencido" (cancelada).',
    esquema: entero(259_200_000),
    defecto: '259200000',
  },
  PAC_SANDBOX_VENTANA_SIN_ACEPTACION_MS: {
    descripcion: 'Tras el timbrado, tiempo en que una cancelación no requiere aceptación del receptor.',
    esquema: entero(86_400_000),
    defecto: '86400000',
  },
  PAC_SANDBOX_LATENCIA_MS: {
    descripcion: 'Latencia añadida a cada llamada SOAP del PAC sandbox (inyección de fallas).',
    esquema: entero(0, 600_000),
    defecto: '0',
  },
  PAC_SANDBOX_FALLA: {
    descripcion:
      'Modo de falla inicial del PAC sandbox: normal, error_500 (SOAP Fault) o caido (cierra la conexión).',
    esquema: z.enum(MODOS_FALLA).default('normal'),
    defecto: 'normal',
  },
  PAC_SANDBOX_ESPERA_MAXIMA_MS: {
    descripcion: 'Cuánto retiene el PAC sandbox una solicitud SANDBOX:TIMEOUT antes de cerrar la conexión.',
    esquema: entero(300_000, 3_600_000),
    defecto: '300000',
  },
} satisfies Record<string, Variable>;

export interface ConfigSandbox {
  rutaDatos: string;
  /** Credentials every SOAP call must carry; undefined accepts any. */
  credenciales?: { usuario: string; contrasena: string };
  plazoAceptacionMs: number;
  ventanaSinAceptacionMs: number;
  latenciaMs: number;
  falla: ModoFalla;
  esperaMaximaMs: number;
}

export function leerConfigSandbox(env: NodeJS.ProcessEnv = process.env): ConfigSandbox {
  const limpio = Object.fromEntries(
    Object.keys(VARIABLES_SANDBOX).map((k) => [k, env[k] === '' ? undefined : env[k]]),
  );
  const r = z
    .object(
      Object.fromEntries(Object.entries(VARIABLES_SANDBOX).map(([k, v]) => [k, v.esquema])) as {
        [K in keyof typeof VARIABLES_SANDBOX]: (typeof VARIABLES_SANDBOX)[K]['esquema'];
      },
    )
    .safeParse(limpio);
  if (!r.success) {
    const detalle = r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Configuración inválida del PAC sandbox: ${detalle}`);
  }
  const e = r.data;
  return {
    rutaDatos: e.PAC_SANDBOX_DATOS ?? join(rutaDatos(), 'pac-sandbox'),
    ...(e.PAC_SANDBOX_USUARIO
      ? { credenciales: { usuario: e.PAC_SANDBOX_USUARIO, contrasena: e.PAC_SANDBOX_CONTRASENA ?? '' } }
      : {}),
    plazoAceptacionMs: e.PAC_SANDBOX_PLAZO_ACEPTACION_MS,
    ventanaSinAceptacionMs: e.PAC_SANDBOX_VENTANA_SIN_ACEPTACION_MS,
    latenciaMs: e.PAC_SANDBOX_LATENCIA_MS,
    falla: e.PAC_SANDBOX_FALLA,
    esperaMaximaMs: e.PAC_SANDBOX_ESPERA_MAXIMA_MS,
  };
}
