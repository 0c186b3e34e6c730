import { isIPv6 } from 'node:net';
import type { RequestHandler } from 'express';
import { alcanceDe } from '../alcance';
import { ApiError } from '../errores';

export interface OpcionesLimite {
  porSegundo: number;
  rafaga: number;
}

/**
 * Token bucket per API key, in this process: `rafaga` requests at once, refilled at `porSegundo`.
 * Several API instances each apply it (documented); a shared store would be needed for a global limit.
 */
export function limiteDeSolicitudes(op: OpcionesLimite, reloj: () => number = Date.now): RequestHandler {
  const cubetas = new Map<string, { fichas: number; t: number }>();
  return (req, res, next) => {
    const { llaveId } = alcanceDe(req);
    const ahora = reloj();
    const c = cubetas.get(llaveId) ?? { fichas: op.rafaga, t: ahora };
    c.fichas = Math.min(op.rafaga, c.fichas + ((ahora - c.t) / 1000) * op.porSegundo);
    c.t = ahora;
    cubetas.set(llaveId, c);
    const hastaLleno = Math.ceil((op.rafaga - c.fichas) / op.porSegundo);
    res.setHeader('RateLimit-Limit', String(op.rafaga));
    if (c.fichas < 1) {
      const espera = Math.max(1, Math.ceil((1 - c.fichas) / op.porSegundo));
      res.setHeader('RateLimit-Remaining', '0');
      res.setHeader('RateLimit-Reset', String(hastaLleno));
      throw new ApiError(
        'limite_de_solicitudes',
        'limite_de_solicitudes_excedido',
        `Demasiadas solicitudes con esta llave: reintente en ${espera} s.`,
        undefined,
        { 'Retry-After': String(espera) },
      );
    }
    c.fichas -= 1;
    res.setHeader('RateLimit-Remaining', String(Math.floor(c.fichas)));
    res.setHeader('RateLimit-Reset', String(Math.ceil((op.rafaga - c.fichas) / op.porSegundo)));
    next();
  };
}

export interface OpcionesFallos {
  /** Failures an address may pile up in one window; the next request waits for the window's end. */
  maximo: number;
  ventanaMs: number;
  /** Addresses tracked at once: beyond it the oldest windows are forgotten, so memory stays bounded. */
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

/**
 * Failed authentications per client address, in fixed windows, in this process. A success does not clear
 * the count: otherwise one valid key would let its holder guess others without limit.
 */
export function crearLimiteDeFallos(op: OpcionesFallos, reloj: () => number = Date.now) {
  const maxDirecciones = op.maxDirecciones ?? 10_000;
  // Insertion order is window-start order (an expired window is deleted before a new one is set), so the
  // oldest windows are always first: expiring and evicting stop at the first young one.
  const ventanas = new Map<string, { inicio: number; fallos: number }>();
  const vencida = (v: { inicio: number }, ahora: number) => ahora - v.inicio >= op.ventanaMs;

  function vigente(clave: string, ahora: number) {
    const v = ventanas.get(clave);
    if (v && vencida(v, ahora)) {
      ventanas.delete(clave);
      return undefined;
    }
    return v;
  }

  function hacerLugar(ahora: number) {
    for (const [clave, v] of ventanas) {
      if (ventanas.size < maxDirecciones && !vencida(v, ahora)) break;
      ventanas.delete(clave);
    }
  }

  return {
    /** Seconds the address must wait, or null when it may try. */
    espera(clave: string): number | null {
      const ahora = reloj();
      const v = vigente(clave, ahora);
      if (!v || v.fallos < op.maximo) return null;
      return Math.max(1, Math.ceil((v.inicio + op.ventanaMs - ahora) / 1000));
    },
    /** Counts one failure; true when this one used up the address's allowance. */
    registrarFallo(clave: string): boolean {
      const ahora = reloj();
      const v = vigente(clave, ahora);
      if (v) return ++v.fallos === op.maximo;
      hacerLugar(ahora);
      ventanas.set(clave, { inicio: ahora, fallos: 1 });
      return op.maximo === 1;
    },
    get direcciones(): number {
      return ventanas.size;
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
