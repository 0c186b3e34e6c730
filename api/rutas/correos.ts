import { Router } from 'express';
import type { EstadoCorreo } from '../../dominio/correo';
import type { ServicioCorreos } from '../../servicios/correos';
import { aceptada } from '../aceptada';
import { alcanceDe } from '../alcance';
import { cuerpo } from '../cuerpo';
import { leerPagina, lista } from '../paginacion';

/** The emails of invoices: send one again, and the email log. Handlers only translate HTTP. */
export function rutasCorreos(c: ServicioCorreos): Router {
  const r = Router();
  r.post('/v1/facturas/:id/correo', async (req, res) => {
    // The body is optional: without one the invoice goes to its own recipients.
    const correo = await c.reenviar(alcanceDe(req), req.params.id, cuerpo(req, 'enviarCorreoFactura') ?? {});
    aceptada(res, correo).json(correo);
  });
  r.get('/v1/correos', async (req, res) => {
    const q = req.query as { factura?: string; estado?: EstadoCorreo };
    // One invoice's log is a list of its own: its cursors walk only that list.
    const ambito = q.factura && `factura:${q.factura}`;
    const pagina = leerPagina(req.query, 'cor', ambito || undefined);
    res.json(
      lista(
        await c.listar(alcanceDe(req), { factura: q.factura, estado: q.estado }, pagina),
        ambito || undefined,
      ),
    );
  });
  r.get('/v1/correos/:id', async (req, res) => {
    res.json(await c.obtener(alcanceDe(req), req.params.id));
  });
  return r;
}
