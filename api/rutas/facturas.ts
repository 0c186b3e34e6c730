import { cuerpo } from '../cuerpo';
import { aceptada } from '../aceptada';
import { Router, type Response } from 'express';
import type { ServicioAuditoria } from '../../servicios/auditoria';
import type { ServicioEventos } from '../../servicios/eventos';
import type { ServicioHistoria } from '../../servicios/historia';
import type { ResultadoFactura, ServicioFacturas } from '../../servicios/facturas';
import { alcanceDe } from '../alcance';
import { creacionDe } from '../middleware/idempotencia';
import { leerPagina, lista } from '../paginacion';

/** A stamping or cancellation still going on after the bounded wait answers 202; a final one `completa`. */
const responder = (res: Response, r: ResultadoFactura, completa: 200 | 201) =>
  r.pendiente ? aceptada(res, r.factura).json(r.factura) : res.status(completa).json(r.factura);

export function rutasFacturas(
  facturas: ServicioFacturas,
  eventos: ServicioEventos,
  auditoria: ServicioAuditoria,
  historia: ServicioHistoria,
): Router {
  const r = Router();
  r.post('/v1/facturas', async (req, res) => {
    responder(res, await facturas.crear(alcanceDe(req), cuerpo(req, 'crearFactura'), creacionDe(res)), 201);
  });
  r.get('/v1/facturas', async (req, res) => {
    const q = req.query as Record<string, string | undefined>;
    const filtros = {
      organizacion: q.organizacion,
      cliente: q.cliente,
      estado: q.estado,
      tipo: q.tipo,
      timbrado_estado: q.timbrado_estado,
      creada_antes: q.creada_antes,
      creada_desde: q.creada_desde,
      uuid: q.uuid,
      folio: q.folio,
    };
    res.json(lista(await facturas.listar(alcanceDe(req), filtros, leerPagina(req.query, 'fac'))));
  });
  r.get('/v1/facturas/:id', async (req, res) => {
    res.json(await facturas.obtener(alcanceDe(req), req.params.id));
  });
  r.post('/v1/facturas/:id/timbrar', async (req, res) => {
    responder(res, await facturas.timbrar(alcanceDe(req), req.params.id), 200);
  });
  r.post('/v1/facturas/:id/timbrado/reintentar', async (req, res) => {
    responder(res, await facturas.reintentarTimbrado(alcanceDe(req), req.params.id), 200);
  });
  r.post('/v1/facturas/:id/timbrado/abandonar', async (req, res) => {
    responder(res, await facturas.abandonarTimbrado(alcanceDe(req), req.params.id), 200);
  });
  r.post('/v1/facturas/:id/cancelacion/reintentar', async (req, res) => {
    responder(res, await facturas.reintentarCancelacion(alcanceDe(req), req.params.id), 200);
  });
  r.post('/v1/facturas/:id/cancelar', async (req, res) => {
    responder(
      res,
      await facturas.cancelar(alcanceDe(req), req.params.id, cuerpo(req, 'cancelarFactura')),
      200,
    );
  });
  r.get('/v1/facturas/:id/xml', async (req, res) => {
    // Read before the type is set: an error must go out as JSON. Sent as a Buffer so nothing re-encodes it.
    const xml = await facturas.xml(alcanceDe(req), req.params.id);
    res
      .type('application/xml')
      .set('Content-Disposition', `inline; filename="${req.params.id}.xml"`)
      .send(Buffer.from(xml, 'utf8'));
  });
  r.get('/v1/facturas/:id/pdf', async (req, res) => {
    const pdf = await facturas.pdf(alcanceDe(req), req.params.id);
    res
      .type('application/pdf')
      .set('Content-Disposition', `inline; filename="${req.params.id}.pdf"`)
      .send(pdf);
  });
  r.get('/v1/facturas/:id/acuse', async (req, res) => {
    // As the XML: read before the type is set, sent as a Buffer so nothing re-encodes it.
    const acuse = await facturas.acuse(alcanceDe(req), req.params.id);
    res
      .type('application/xml')
      .set('Content-Disposition', `inline; filename="acuse-${req.params.id}.xml"`)
      .send(Buffer.from(acuse, 'utf8'));
  });
  r.get('/v1/facturas/:id/estado_sat', async (req, res) => {
    res.json(await facturas.estadoSat(alcanceDe(req), req.params.id));
  });
  r.get('/v1/facturas/:id/historia', async (req, res) => {
    res.json(await historia.historia(alcanceDe(req), req.params.id));
  });
  r.get('/v1/facturas/:id/auditoria', async (req, res) => {
    const { zip } = await auditoria.paquete(alcanceDe(req), req.params.id);
    res
      .type('application/zip')
      .set('Content-Disposition', `attachment; filename="auditoria-${req.params.id}.zip"`)
      .send(zip);
  });

  r.get('/v1/eventos', async (req, res) => {
    const q = req.query as Record<string, string | undefined>;
    const filtros = { tipo: q.tipo, factura: q.factura, pago: q.pago };
    // An invoice's or payment's events are a list of their own: its cursors walk only that list.
    const ambito = [q.factura && `factura:${q.factura}`, q.pago && `pago:${q.pago}`]
      .filter(Boolean)
      .join(',');
    const pagina = leerPagina(req.query, 'evt', ambito || undefined);
    res.json(lista(await eventos.listar(alcanceDe(req), filtros, pagina), ambito || undefined));
  });
  r.get('/v1/eventos/:id', async (req, res) => {
    res.json(await eventos.obtener(alcanceDe(req), req.params.id));
  });
  return r;
}
