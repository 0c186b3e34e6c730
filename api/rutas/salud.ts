import { Router } from 'express';
import { verificarSalud, type DepsSalud } from '../salud/verificar';

export function rutasSalud(deps: DepsSalud): Router {
  const r = Router();
  // Liveness only: no dependency is touched, for container health checks.
  r.get('/salud/vivo', (_req, res) => {
    res.json({ estado: 'ok' });
  });
  r.get('/salud', async (_req, res) => {
    const salud = await verificarSalud(deps);
    res.status(salud.estado === 'ok' ? 200 : 503).json(salud);
  });
  return r;
}
