import { isIPv6 } from 'node:net';
import type { RequestHandler } from 'express';
import { esFallaDeConexion } from '../../db/conexion';
import type { RepositorioLimites } from '../../db/repositorios/limites';
import { alcanceDe } from '../alcance';
import { ApiError } from '../errores';

export interface OpcionesLimite {
  porSegundo: number;
  rafaga: number;
}

/**
 * Token bucket per API key: `rafaga` requests at once, refilled at `porSegundo`. The bucket lives in the
 * database every API replica shares, so the limit is the key's across replicas; one statement per request.
 */
export function limiteDeSolicitudes(
  limites: Pick<RepositorioLimites, 'tomarFicha'>,
  op: OpcionesLimite,
  reloj: () => number = Date.now,
): RequestHandler {
  return async (req, res, next) => {
    const ficha = await limites.tomarFicha(alcanceDe(req), op, new Date(reloj()));
    const fichas = ficha.milifichas / 1000;
    res.setHeader('RateLimit-Limit', String(op.rafaga));
    res.setHeader('RateLimit-Remaining', String(Math.floor(fichas)));
    res.setHeader('RateLimit-Reset', String(Math.ceil((op.rafaga - fichas) / op.porSegundo)));
    if (!ficha.concedida) {
      const espera = Math.max(1, Math.ceil((1 - fichas) / op.porSegundo));
      throw new ApiError(
        'limite_de_solicitudes',
        'limite_de_solicitudes_excedido',
        `Demasiadas solicitudes con esta llave: reintente en ${espera} s.`,
        undefined,
        { 'Retry-After': String(espera) },
      );
    }
    next();
  };
}

export interface OpcionesFallos {
  /** Failures an address may pile up in one window; the next request waits for the window's end. */
  maximo: number;
  ventanaMs: number;
  /** Addresses whose verdict a replica remembers: beyond it the oldest are forgotten, so memory stays bounded. */
  maxDirecciones?: number;
}

/**
 * The key a client address is counted under: IPv4 as is (also IPv4-mapped IPv6), IPv6 by its /64, which one
 * subscriber usually holds whole (counting single addresses would let it rotate past the limit).
 */
export function claveDeDireccion(direccion: string | undefined): string {
  if (!direccion) return 'desconocida';
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(direccion);
  if (v4) return v4[1]!;
  if (!isIPv6(direccion)) return direccion;
  const grupos = (s: string) => (s ? s.split(':') : []).flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const [cabeza = '', cola] = direccion.split('%')[0]!.split('::');
  const izquierda = grupos(cabeza);
  const derecha = cola === undefined ? [] : grupos(cola);
  const relleno = cola === undefined ? [] : Array<string>(8 - izquierda.length - derecha.length).fill('0');
  const todos = [...izquierda, ...relleno, ...derecha];
  return `${todos
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** How long a replica trusts its last read of an address that was not blocked (failures on other replicas). */
export const VIGENCIA_LECTURA_MS = 1000;

/**
 * Failed authentications per client address, in fixed windows, counted in the database every API replica shares:
 * a failure is one statement (failures are rare); a request reads the address's count at most once a second per
 * replica (remembered here, bounded), and a replica whose own failure reaches the limit reads it at once. So the
 * limit holds across replicas; another replica starts refusing a valid key from a blocked address within a second.
 * A success does not clear the count: otherwise one valid key would let its holder guess others without limit.
 */
export function crearLimiteDeFallos(
  repo: Pick<RepositorioLimites, 'leerFallos' | 'registrarFallo' | 'purgarFallosAnterioresA'>,
  op: OpcionesFallos,
  reloj: () => number = Date.now,
) {
  const maxDirecciones = op.maxDirecciones ?? 10_000;
  // What this replica last read of each address: until when the verdict holds, and the block's end if blocked.
  // Insertion order is reading order, so the first entries are the oldest to forget.
  const vistas = new Map<string, { hasta: number; bloqueadaHasta: number | null }>();
  let ultimaPurga = -Infinity;

  function recordar(clave: string, v: { hasta: number; bloqueadaHasta: number | null }) {
    vistas.delete(clave);
    vistas.set(clave, v);
    if (vistas.size > maxDirecciones) vistas.delete(vistas.keys().next().value!);
  }

  return {
    /** Seconds the address must wait, or null when it may try. */
    async espera(clave: string): Promise<number | null> {
      const ahora = reloj();
      let v = vistas.get(clave);
      if (!v || ahora >= v.hasta) {
        let fila: Awaited<ReturnType<typeof repo.leerFallos>>;
        try {
          fila = await repo.leerFallos(clave);
        } catch (e) {
          // The database is down: the request's own lookup answers 503 (or 401 without credentials).
          if (esFallaDeConexion(e)) return null;
          throw e;
        }
        const fin = fila ? fila.inicio.getTime() + op.ventanaMs : 0;
        v =
          fila && fila.fallos >= op.maximo && ahora < fin
            ? { hasta: fin, bloqueadaHasta: fin }
            : { hasta: ahora + VIGENCIA_LECTURA_MS, bloqueadaHasta: null };
        recordar(clave, v);
      }
      if (v.bloqueadaHasta === null) return null;
      return Math.max(1, Math.ceil((v.bloqueadaHasta - ahora) / 1000));
    },
    /** Counts one failure; true when this one used up the address's allowance. */
    async registrarFallo(clave: string): Promise<boolean> {
      const ahora = reloj();
      let fallos: number;
      try {
        fallos = await repo.registrarFallo(clave, op.ventanaMs, new Date(ahora));
      } catch (e) {
        // Not counted while the database is down; the request still gets its 401.
        if (esFallaDeConexion(e)) return false;
        throw e;
      }
      // At the limit: the next request of this address reads the window (its end) instead of a stale verdict.
      if (fallos >= op.maximo) vistas.delete(clave);
      if (ahora - ultimaPurga >= op.ventanaMs) {
        ultimaPurga = ahora;
        // Ended windows only; a failed purge is retried a window later.
        repo.purgarFallosAnterioresA(new Date(ahora - op.ventanaMs)).catch(() => undefined);
      }
      return fallos === op.maximo;
    },
    /** Addresses this replica remembers (bounded by `maxDirecciones`). */
    get direcciones(): number {
      return vistas.size;
    },
  };
}

export type LimiteDeFallos = ReturnType<typeof crearLimiteDeFallos>;

/** The answer to an address that used up its failures, before any credential is looked at. */
export const errorDemasiadosFallos = (espera: number) =>
  new ApiError(
    'limite_de_solicitudes',
    'demasiados_intentos_fallidos',
    `Demasiadas autenticaciones fallidas desde esta dirección: reintente en ${espera} s.`,
    undefined,
    { 'Retry-After': String(espera) },
  );
