import { join } from 'node:path';
import { cargarConfigSinSecretos } from '../../config/config';
import { rutaDatos } from '../../config/rutas';

// `reinicio` and `sin_respuesta` are runtime-only (POST /sandbox/fallas); PAC_SANDBOX_FALLA takes the first three.
export const MODOS_FALLA = ['normal', 'error_500', 'caido', 'reinicio', 'sin_respuesta'] as const;
export type ModoFalla = (typeof MODOS_FALLA)[number];

export interface ConfigSandbox {
  rutaDatos: string;
  /** Credentials every SOAP call must carry; undefined accepts any. */
  credenciales?: { usuario: string; contrasena: string };
  plazoAceptacionMs: number;
  ventanaSinAceptacionMs: number;
  latenciaMs: number;
  falla: ModoFalla;
  esperaMaximaMs: number;
  /** TOKEN_OPERADOR: the fault switch from outside this machine; absent, loopback only. */
  tokenOperador?: string;
}

/** The sandbox's settings, from the project's one configuration module (PAC_SANDBOX_*, TOKEN_OPERADOR). */
export function leerConfigSandbox(env: NodeJS.ProcessEnv = process.env): ConfigSandbox {
  const config = cargarConfigSinSecretos(env);
  const c = config.pac.sandbox;
  return {
    rutaDatos: c.datos ?? join(rutaDatos(), 'pac-sandbox'),
    ...(c.usuario ? { credenciales: { usuario: c.usuario, contrasena: c.contrasena ?? '' } } : {}),
    plazoAceptacionMs: c.plazoAceptacionMs,
    ventanaSinAceptacionMs: c.ventanaSinAceptacionMs,
    latenciaMs: c.latenciaMs,
    falla: c.falla,
    esperaMaximaMs: c.esperaMaximaMs,
    ...(config.tokenOperador ? { tokenOperador: config.tokenOperador } : {}),
  };
}
