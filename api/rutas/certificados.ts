import { Router, type Request } from 'express';
import type { CsdSubido, ServicioCertificados } from '../../servicios/certificados';
import { alcanceDe } from '../alcance';
import { ApiError } from '../errores';
import { leerPagina, lista } from '../paginacion';

/** The upload arrives as multipart (files in parts `cer` and `llave`) or as JSON with base64 files. */
function leerSubida(req: Request): CsdSubido {
  const b = req.body as Record<string, string>;
  if (req.is('multipart/form-data')) {
    const archivos = (req.files as Express.Multer.File[] | undefined) ?? [];
    const archivo = (campo: 'cer' | 'llave') => {
      const f = archivos.find((x) => x.fieldname === campo);
      if (!f)
        throw new ApiError('solicitud_invalida', 'parametro_invalido', `Falta el archivo ${campo}.`, campo);
      return f.buffer;
    };
    return {
      organizacion: b.organizacion!,
      contrasena: b.contrasena!,
      cer: archivo('cer'),
      llave: archivo('llave'),
    };
  }
  return {
    organizacion: b.organizacion!,
    contrasena: b.contrasena!,
    cer: Buffer.from(b.cer!, 'base64'),
    llave: Buffer.from(b.llave!, 'base64'),
  };
}

export function rutasCertificados(s: ServicioCertificados): Router {
  const r = Router();
  r.post('/v1/certificados', async (req, res) => {
    res.status(201).json(await s.crear(alcanceDe(req), leerSubida(req)));
  });
  r.get('/v1/certificados', async (req, res) => {
    const organizacion = req.query.organizacion as string | undefined;
    res.json(lista(await s.listar(alcanceDe(req), { organizacion }, leerPagina(req.query, 'cert'))));
  });
  r.get('/v1/certificados/:id', async (req, res) => {
    res.json(await s.obtener(alcanceDe(req), req.params.id));
  });
  r.patch('/v1/certificados/:id', async (req, res) => {
    res.json(await s.cambiarActivo(alcanceDe(req), req.params.id, req.body.activo));
  });
  return r;
}
