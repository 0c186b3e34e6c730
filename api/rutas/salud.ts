import { Router, type RequestHandler } from 'express';
import { verificadorCompartido, verificarSalud, type DepsSalud } from '../salud/verificar';

/**
 * `/salud` tells anyone only whether the service works; the components, versions and errors are for the
 * operator (`/salud/detalle`, behind the operator guard).
 */
export function rutasSalud(deps: DepsSalud, soloOperador: RequestHandler): Router {
  const r = Router();
  const verificarPublica = verificadorCompartido(deps);
  // Liveness only: no dependency is touched, for container health checks.
  r.get('/salud/vivo', (_req, res) => {
    res.json({ estado: 'ok' });
  });
  r.get('/salud', async (_req, res) => {
    const { estado } = await verificarPublica();
    res.status(estado === 'ok' ? 200 : 503).json({ estado });
  });
  r.get('/salud/detalle', soloOperador, async (_req, res) => {
    const salud = await verificarSalud(deps);
    res.status(salud.estado === 'ok' ? 200 : 503).json(salud);
  });
  return r;
}
