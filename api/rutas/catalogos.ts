import { Router } from 'express';
import {
  LIMITE_DEFECTO,
  LIMITE_MAXIMO,
  esCatalogoBuscable,
  esCatalogoListable,
  type CatalogosEnMemoria,
} from '../../db/catalogos/memoria';
import { ApiError } from '../errores';

const LARGO_MAXIMO_Q = 100;

const invalido = (parametro: string, mensaje: string) =>
  new ApiError('solicitud_invalida', 'parametro_invalido', mensaje, parametro);

function leerLimite(valor: unknown): number {
  if (valor === undefined) return LIMITE_DEFECTO;
  // The OpenAPI validator coerces it to a number; without it (or before it) it is still text.
  const n =
    typeof valor === 'number'
      ? valor
      : typeof valor === 'string' && /^\d{1,3}$/.test(valor)
        ? Number(valor)
        : NaN;
  if (!Number.isInteger(n) || n < 1 || n > LIMITE_MAXIMO) {
    throw invalido('limite', `El parámetro limite debe ser un entero entre 1 y ${LIMITE_MAXIMO}.`);
  }
  return n;
}

function leerQ(valor: unknown): string | undefined {
  if (valor === undefined) return undefined;
  // A repeated ?q=a&q=b arrives as an array: refused rather than guessing which one was meant.
  if (typeof valor !== 'string' || valor.length < 1 || valor.length > LARGO_MAXIMO_Q) {
    throw invalido('q', `El parámetro q debe ser un texto de 1 a ${LARGO_MAXIMO_Q} caracteres.`);
  }
  return valor;
}

/** GET /v1/catalogos/:nombre: public (no API key) and served from memory. */
export function rutasCatalogos(catalogos: CatalogosEnMemoria): Router {
  const r = Router();
  r.get('/v1/catalogos/:nombre', (req, res) => {
    const nombre = req.params.nombre;
    let datos: readonly unknown[];
    if (esCatalogoBuscable(nombre)) {
      const q = leerQ(req.query.q);
      const limite = leerLimite(req.query.limite);
      datos = catalogos.buscar(nombre, q, limite);
    } else if (esCatalogoListable(nombre)) {
      // The small catalogs are always returned whole; q and limite do not apply to them.
      datos = catalogos.listar(nombre);
    } else {
      throw new ApiError(
        'no_encontrado',
        'catalogo_no_encontrado',
        `El catálogo ${nombre} no existe.`,
        'nombre',
      );
    }
    // The data changes only with a deployment: clients and proxies may keep it for an hour. The ETag
    // is the data's fingerprint (same URL, same data, same bytes), set here so that Express does not
    // hash every response body; it still answers 304 to a matching If-None-Match.
    res.set({ 'Cache-Control': 'public, max-age=3600', ETag: `"${catalogos.huella}"` });
    res.json({ objeto: 'lista', catalogo: nombre, datos });
  });
  return r;
}
