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
