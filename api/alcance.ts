import type { Request } from 'express';
import type { Alcance } from '../dominio/alcance';

declare module 'express-serve-static-core' {
  interface Request {
    alcance?: Alcance;
  }
}

export function alcanceDe(req: Request): Alcance {
  // The authentication middleware runs before every route that calls this.
  if (!req.alcance) throw new Error('ruta sin autenticación');
  return req.alcance;
}
