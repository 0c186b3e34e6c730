import type { Request, RequestHandler } from 'express';
import type { Cubeta, RepositorioLimites } from '../../db/repositorios/limites';
import { hashClaveRecibo, normalizarClaveRecibo } from '../../seguridad/claves-recibo';
import { ApiError } from '../errores';
import { claveDeDireccion, crearLimiteDeFallos, type OpcionesFallos } from './limite';

/**
 * The self-invoicing portal's buckets live in the API keys' table (`limites_llaves`) under `cuentaId`s of their
 * own, which no account id (`cta_…`) can be: one statement per request, shared by every API replica.
 */
export const PREFIJO_CUBETAS_AUTOFACTURA = 'autofactura:';
const CUBETA_DIRECCION = `${PREFIJO_CUBETAS_AUTOFACTURA}direccion`;
const CUBETA_CLAVE = `${PREFIJO_CUBETAS_AUTOFACTURA}clave`;
/** Failed key lookups are counted beside failed authentications, under keys of their own. */
const PREFIJO_FALLOS = 'autofactura|';

/** Each receipt key's bucket: the page's few requests (lookup, submit, polls, downloads), not a scan. */
export const CUBETA_POR_CLAVE: Cubeta = { rafaga: 20, porSegundo: 1 };

export interface OpcionesLimitesAutofactura {
  /** Every portal operation of a client address (its key lookups, submits and as-you-type checks). */
  porDireccion: Cubeta;
  /** Failed key lookups (malformed, unknown or a cancelled receipt's) an address may make per window. */
  fallos: OpcionesFallos;
}

const demasiadas = (codigo: string, mensaje: string, espera: number) =>
  new ApiError('limite_de_solicitudes', codigo, mensaje, undefined, { 'Retry-After': String(espera) });

/**
 * The portal has no API key: what limits it is the client's address (the TCP peer, or what a trusted balancer
 * reports) and the receipt key. Buckets per address and per key, and failed lookups per address in fixed windows
 * (`crearLimiteDeFallos`, as failed authentications): past the limit every key lookup from that address answers
 * 429 before the key is looked at, so keys cannot be enumerated from one address.
 */
export function crearLimitesAutofactura(
  repo: Pick<
    RepositorioLimites,
    'tomarFicha' | 'purgarCubetasInactivas' | 'leerFallos' | 'registrarFallo' | 'purgarFallosAnterioresA'
  >,
  op: OpcionesLimitesAutofactura,
  reloj: () => number = Date.now,
) {
  const fallos = crearLimiteDeFallos(repo, op.fallos, reloj);
  let ultimaPurga = reloj();

  /** A bucket untouched for this long has refilled to its burst: forgetting it changes no answer. */
  const llenaTras = (c: Cubeta) => Math.ceil((c.rafaga / c.porSegundo) * 1000) + 1000;

  function purgar(ahora: number): void {
    if (ahora - ultimaPurga < 60_000) return;
    ultimaPurga = ahora;
    // Best effort, off the request's path: a failed purge is tried again a minute later.
    for (const [cuenta, c] of [
      [CUBETA_DIRECCION, op.porDireccion],
      [CUBETA_CLAVE, CUBETA_POR_CLAVE],
    ] as const) {
      repo.purgarCubetasInactivas(cuenta, new Date(ahora - llenaTras(c))).catch(() => undefined);
    }
  }

  async function tomar(cuentaId: string, llaveId: string, c: Cubeta, quien: string): Promise<void> {
    const ahora = reloj();
    const ficha = await repo.tomarFicha({ cuentaId, llaveId }, c, new Date(ahora));
    purgar(ahora);
    if (ficha.concedida) return;
    const espera = Math.max(1, Math.ceil((1 - ficha.milifichas / 1000) / c.porSegundo));
    throw demasiadas(
      'limite_de_solicitudes_excedido',
      `Demasiadas solicitudes ${quien}: espere ${espera} s y vuelva a intentarlo.`,
      espera,
    );
  }

  const direccion = (req: Request) => claveDeDireccion(req.ip ?? req.socket.remoteAddress);

  return {
    /** Every portal JSON operation: the address's bucket, before its body is read. */
    porDireccion: (async (req, _res, next) => {
      await tomar(CUBETA_DIRECCION, direccion(req), op.porDireccion, 'desde esta dirección');
      next();
    }) as RequestHandler,

    /** Before a key is looked up: a blocked address is refused whatever the key, then the key's own bucket. */
    async antesDeClave(req: Request, clave: string): Promise<void> {
      const espera = await fallos.espera(PREFIJO_FALLOS + direccion(req));
      if (espera !== null) {
        throw demasiadas(
          'demasiadas_claves_invalidas',
          `Demasiados intentos con claves que no corresponden a un recibo desde esta dirección: espere ${espera} s y vuelva a intentarlo.`,
          espera,
        );
      }
      const canonica = normalizarClaveRecibo(clave);
      // A malformed key has no bucket: it opens nothing and counts as a failure.
      if (canonica)
        await tomar(CUBETA_CLAVE, hashClaveRecibo(canonica).slice(0, 40), CUBETA_POR_CLAVE, 'con esta clave');
    },

    /** A lookup that opened no receipt. */
    async claveFallida(req: Request): Promise<void> {
      await fallos.registrarFallo(PREFIJO_FALLOS + direccion(req));
    },
  };
}

export type LimitesAutofactura = ReturnType<typeof crearLimitesAutofactura>;
