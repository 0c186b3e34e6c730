import { cuerpo } from '../cuerpo';
import { Router } from 'express';
import type { ServicioCuenta } from '../../servicios/cuenta';
import type { ServicioLlaves } from '../../servicios/llaves';
import { alcanceDe } from '../alcance';
import { leerPagina, lista } from '../paginacion';

export function rutasCuenta(cuenta: ServicioCuenta, llaves: ServicioLlaves): Router {
  const r = Router();
  r.get('/v1/cuenta', async (req, res) => {
    res.json(await cuenta.obtener(alcanceDe(req)));
  });
  r.post('/v1/cuenta', async (req, res) => {
    res.json(await cuenta.completarOnboarding(alcanceDe(req), cuerpo(req, 'completarCuenta')));
  });
  r.patch('/v1/cuenta', async (req, res) => {
    res.json(await cuenta.actualizar(alcanceDe(req), cuerpo(req, 'actualizarCuenta')));
  });

  r.post('/v1/llaves_api', async (req, res) => {
    res.status(201).json(await llaves.crear(alcanceDe(req), cuerpo(req, 'crearLlaveApi')));
  });
  r.get('/v1/llaves_api', async (req, res) => {
    res.json(lista(await llaves.listar(alcanceDe(req), leerPagina(req.query, 'llave'))));
  });
  r.delete('/v1/llaves_api/:id', async (req, res) => {
    res.json(await llaves.revocar(alcanceDe(req), req.params.id));
  });
  return r;
}
