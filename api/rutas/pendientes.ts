import { Router } from 'express';
import type { TipoPendiente } from '../../dominio/pendiente';
import type { ServicioPendientes } from '../../servicios/pendientes';
import { alcanceDe } from '../alcance';
import { leerPagina, lista } from '../paginacion';

/** The items' ids: the invoice, payment, email, delivery or receipt each operation is about. */
const PREFIJOS = ['fac', 'pago', 'cor', 'ent', 'rec'] as const;

/** The pending view: every operation not final, of every kind. Handlers only translate HTTP. */
export function rutasPendientes(p: ServicioPendientes): Router {
  const r = Router();
  r.get('/v1/pendientes', async (req, res) => {
    const q = req.query as { tipo?: TipoPendiente; organizacion?: string; antes_de?: string };
    const pagina = leerPagina(req.query, PREFIJOS, 'pendientes');
    res.json(lista(await p.listar(alcanceDe(req), q, pagina), 'pendientes'));
  });
  return r;
}
