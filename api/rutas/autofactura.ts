import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { raizProyecto } from '../../config/rutas';
import { ErrorNegocio } from '../../dominio/errores';
import type { Descarga, ServicioAutofactura } from '../../servicios/autofactura';
import { cuerpo } from '../cuerpo';
import type { LimitesAutofactura } from '../middleware/limite-autofactura';

/** The portal's page, script and style sheet: plain files in `portal/`, read once, served as they are. */
export const CARPETA_PORTAL = () => join(raizProyecto(), 'portal');

const ARCHIVOS = {
  '/autofactura': ['autofactura.html', 'text/html; charset=utf-8'],
  '/autofactura/autofactura.js': ['autofactura.js', 'text/javascript; charset=utf-8'],
  '/autofactura/autofactura.css': ['autofactura.css', 'text/css; charset=utf-8'],
} as const;

/** Seconds the page waits before asking again about an invoice still stamping. */
const REINTENTO_S = 2;

/**
 * The self-invoicing portal: a public page and the JSON operations it calls. No API key: the receipt's key is
 * the credential, so it travels only in POST bodies (never in a URL the logs or a Referer could keep), each key
 * operation passes the address's failed-lookup block and the key's bucket first, and a lookup that opens nothing
 * counts against the address.
 */
export function rutasAutofactura(autofactura: ServicioAutofactura, limites: LimitesAutofactura): Router {
  const r = Router();
  for (const [ruta, [archivo, tipo]] of Object.entries(ARCHIVOS)) {
    const contenido = readFileSync(join(CARPETA_PORTAL(), archivo));
    r.get(ruta, (_req, res) => {
      res.type(tipo).send(contenido);
    });
  }

  /** A key operation: limits first; a key that opened no receipt is counted against the address. */
  const conClave =
    (f: (req: Request, res: Response) => Promise<void>): RequestHandler =>
    async (req, res) => {
      await limites.antesDeClave(req, (req.body as { clave: string }).clave);
      try {
        await f(req, res);
      } catch (e) {
        if (e instanceof ErrorNegocio && e.codigo === 'clave_no_valida') await limites.claveFallida(req);
        throw e;
      }
    };

  const descargar = (res: Response, tipo: string, d: Descarga) => {
    res.type(tipo).set('Content-Disposition', `attachment; filename="${d.nombre}"`).send(d.contenido);
  };

  r.post('/autofactura/validacion', (req, res) => {
    res.json(autofactura.validar(cuerpo(req, 'validarDatosAutofactura')));
  });
  r.post(
    '/autofactura/recibo',
    conClave(async (req, res) => {
      res.json(await autofactura.recibo(cuerpo(req, 'consultarReciboAutofactura').clave));
    }),
  );
  r.post(
    '/autofactura/facturar',
    conClave(async (req, res) => {
      const x = await autofactura.facturar(cuerpo(req, 'facturarAutofactura'));
      // A new invoice stamped is 201, the same one again (a double submit) 200, either 202 while stamping.
      if (x.pendiente) res.status(202).set('Retry-After', String(REINTENTO_S)).json(x.factura);
      else res.status(x.nueva ? 201 : 200).json(x.factura);
    }),
  );
  r.post(
    '/autofactura/factura',
    conClave(async (req, res) => {
      const { clave, rfc } = cuerpo(req, 'consultarFacturaAutofactura');
      const x = await autofactura.factura(clave, rfc);
      if (x.pendiente) res.status(202).set('Retry-After', String(REINTENTO_S)).json(x.factura);
      else res.json(x.factura);
    }),
  );
  r.post(
    '/autofactura/xml',
    conClave(async (req, res) => {
      const { clave, rfc } = cuerpo(req, 'descargarXmlAutofactura');
      descargar(res, 'application/xml', await autofactura.xml(clave, rfc));
    }),
  );
  r.post(
    '/autofactura/pdf',
    conClave(async (req, res) => {
      const { clave, rfc } = cuerpo(req, 'descargarPdfAutofactura');
      descargar(res, 'application/pdf', await autofactura.pdf(clave, rfc));
    }),
  );
  return r;
}
