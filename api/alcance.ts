import type { Request } from 'express';
import type { Modo } from './llaves/material';

/** Who is asking: every query of a business resource is scoped by account and mode. */
export interface Alcance {
  cuentaId: string;
  modo: Modo;
  llaveId: string;
}

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
