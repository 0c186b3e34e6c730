import { Router } from 'express';
import type { ServicioLogos } from '../../servicios/logos';
import { alcanceDe } from '../alcance';

/** An organization's logo: raw image bodies (PNG or JPEG), read by `express.raw` in app.ts. */
export function rutasLogos(logos: ServicioLogos): Router {
  const r = Router();
  r.put('/v1/organizaciones/:id/logo', async (req, res) => {
    const datos = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    res.json(await logos.subir(alcanceDe(req), req.params.id, req.get('content-type') ?? '', datos));
  });
  r.get('/v1/organizaciones/:id/logo', async (req, res) => {
    const logo = await logos.obtener(alcanceDe(req), req.params.id);
    res.type(logo.tipo).send(logo.datos);
  });
  r.delete('/v1/organizaciones/:id/logo', async (req, res) => {
    res.json(await logos.eliminar(alcanceDe(req), req.params.id));
  });
  return r;
}
