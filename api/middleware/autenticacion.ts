import type { RequestHandler } from 'express';
import type { RepositorioLlaves } from '../../db/repositorios/llaves';
import type { ServicioCuenta } from '../../servicios/cuenta';
import { errorLiveBloqueado } from '../../servicios/llaves';
import { ApiError } from '../errores';
import { hashLlave, modoDeLlave } from '../../seguridad/llaves-api';
import { claveDeDireccion, errorDemasiadosFallos, type LimiteDeFallos } from './limite';

const REALM = { 'WWW-Authenticate': 'Basic realm="API CFDI", charset="UTF-8"' };
// ultimo_uso_en is informative: one write per key per minute is plenty.
const INTERVALO_USO_MS = 60_000;

function secretoDe(encabezado: string | undefined): string | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(encabezado ?? '');
  if (!m) return null;
  const decodificado = Buffer.from(m[1]!, 'base64').toString('utf8');
  const dosPuntos = decodificado.indexOf(':');
  return dosPuntos === -1 ? decodificado : decodificado.slice(0, dosPuntos);
}

/**
 * HTTP Basic with the API key as user name. The key is looked up by its hash on every request, so a
 * revoked key fails from the very next one. Unknown, malformed and revoked keys get one same answer.
 * Every failure counts against the client's address; past the limit the address gets 429 before any lookup.
 */
export function autenticacion(deps: {
  llaves: RepositorioLlaves;
  cuenta: ServicioCuenta;
  fallos: LimiteDeFallos;
}): RequestHandler {
  const ultimoUso = new Map<string, number>();
  return async (req, _res, next) => {
    // The socket's peer, which a client cannot forge with a header; behind a listed balancer (PROXIES_CONFIABLES),
    // the address it reports.
    const cliente = claveDeDireccion(req.ip);
    const espera = await deps.fallos.espera(cliente);
    if (espera !== null) throw errorDemasiadosFallos(espera);
    const fallo = async () => {
      if (await deps.fallos.registrarFallo(cliente))
        req.log.warn({ cliente }, 'autenticación: límite de intentos fallidos alcanzado');
    };
    const secreto = secretoDe(req.get('authorization'));
    if (secreto === null) {
      await fallo();
      throw new ApiError(
        'autenticacion',
        'autenticacion_requerida',
        'Falta la llave API: envíela por HTTP Basic como usuario, con contraseña vacía.',
        undefined,
        REALM,
      );
    }
    const fila = modoDeLlave(secreto) ? await deps.llaves.activaPorHash(hashLlave(secreto)) : undefined;
    if (!fila) {
      await fallo();
      throw new ApiError(
        'autenticacion',
        'llave_invalida',
        'La llave API no es válida o fue revocada.',
        undefined,
        REALM,
      );
    }
    // A live key keeps working only while the account meets the live requirements (a CSD can expire).
    if (fila.modo === 'live' && !(await deps.cuenta.liveHabilitado(fila.cuenta_id)))
      throw errorLiveBloqueado();
    req.alcance = {
      cuentaId: fila.cuenta_id,
      modo: fila.modo,
      llaveId: fila.id,
      // Events record who acted and in which request, also those the worker writes for this operation.
      origen: { solicitudId: req.id, llaveId: fila.id },
    };
    req.log = req.log.child({ cuenta_id: fila.cuenta_id, modo: fila.modo, llave_id: fila.id });
    const ahora = Date.now();
    if (ahora - (ultimoUso.get(fila.id) ?? 0) > INTERVALO_USO_MS) {
      ultimoUso.set(fila.id, ahora);
      deps.llaves.marcarUso(fila.id, new Date(ahora)).catch((e) => req.log.warn({ err: e }, 'ultimo_uso_en'));
    }
    next();
  };
}
