import type { Modo } from '../dominio/alcance';
import type { ConfigSinSecretos } from '../config/config';
import { PacFinkok } from './finkok/cliente';
import { ErrorPacNoConfigurado, type PuertoPac } from './puerto';

/**
 * The PAC of each API mode: test mode talks to the sandbox PAC and live mode to the real one, both
 * through the same Finkok adapter. Live mode without credentials gets a port whose every call throws
 * ErrorPacNoConfigurado (a 503 for the API), so nothing is ever sent to the sandbox by mistake.
 */
export interface OpcionesPacs {
  pac: Pick<ConfigSinSecretos['pac'], 'sandboxUrl' | 'live'>;
  /** Credentials the sandbox accepts (it accepts any unless PAC_SANDBOX_USUARIO is set). */
  sandbox?: { usuario: string; contrasena: string };
  timeoutMs?: number;
  timeoutCancelacionMs?: number;
}

export function crearPacPara(modo: Modo, op: OpcionesPacs): PuertoPac {
  const tiempos = { timeoutMs: op.timeoutMs, timeoutCancelacionMs: op.timeoutCancelacionMs };
  if (modo === 'test') {
    return new PacFinkok({
      url: op.pac.sandboxUrl,
      usuario: op.sandbox?.usuario ?? 'sandbox',
      contrasena: op.sandbox?.contrasena ?? 'sandbox',
      ...tiempos,
    });
  }
  const live = op.pac.live;
  if (!live?.url || !live.usuario || !live.contrasena) return pacNoConfigurado();
  return new PacFinkok({ url: live.url, usuario: live.usuario, contrasena: live.contrasena, ...tiempos });
}

export function pacNoConfigurado(mensaje?: string): PuertoPac {
  const fallar = () => Promise.reject(new ErrorPacNoConfigurado(mensaje));
  return { timbrar: fallar, consultarTimbre: fallar, cancelar: fallar, estatusSat: fallar };
}
