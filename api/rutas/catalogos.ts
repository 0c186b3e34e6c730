import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse } from 'node:querystring';
import {
  LIMITE_DEFECTO,
  LIMITE_MAXIMO,
  esCatalogoBuscable,
  esCatalogoListable,
  terminosDeBusqueda,
  type CatalogosEnMemoria,
} from '../../db/catalogos/memoria';
import type { Logger } from '../../log/logger';
import { ApiError } from '../errores';
import { CacheLru } from '../cache-lru';
import { errorRegistrado } from '../middleware/manejador-errores';

const LARGO_MAXIMO_Q = 100;
const PREFIJO = '/v1/catalogos/';
const NOMBRE = /^[a-z_]{1,40}$/;
const PARAMETROS_BUSQUEDA = new Set(['q', 'limite']);
const SIN_PARAMETROS = new Set<string>();
// Bodies of a few KB: a few thousand distinct searches stay in memory.
const RESPUESTAS_EN_CACHE = 4_000;

const parametroInvalido = (parametro: string, mensaje: string) =>
  new ApiError('solicitud_invalida', 'parametro_invalido', mensaje, parametro);

function leerLimite(valor: string | string[] | undefined): number {
  if (valor === undefined) return LIMITE_DEFECTO;
  const n = typeof valor === 'string' && /^\d{1,3}$/.test(valor) ? Number(valor) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > LIMITE_MAXIMO) {
    throw parametroInvalido('limite', `El parámetro limite debe ser un entero entre 1 y ${LIMITE_MAXIMO}.`);
  }
  return n;
}

function leerQ(valor: string | string[] | undefined): string | undefined {
  if (valor === undefined) return undefined;
  // A repeated ?q=a&q=b arrives as an array: refused rather than guessing which one was meant.
  if (typeof valor !== 'string' || valor.length < 1 || valor.length > LARGO_MAXIMO_Q) {
    throw parametroInvalido('q', `El parámetro q debe ser un texto de 1 a ${LARGO_MAXIMO_Q} caracteres.`);
  }
  return valor;
}

function exigirConocidos(consulta: Record<string, unknown>, permitidos: ReadonlySet<string>) {
  for (const p of Object.keys(consulta)) {
    if (!permitidos.has(p))
      throw parametroInvalido(p, `El parámetro de consulta ${p} no existe en esta ruta.`);
  }
}

/** `If-None-Match` holds this ETag (or `*`), weak or strong: the client's copy is current. */
function vigente(req: IncomingMessage, etag: string): boolean {
  const h = req.headers['if-none-match'];
  if (!h) return false;
  return h.split(',').some((v) => {
    const t = v.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export type RutaCatalogos = (req: IncomingMessage, res: ServerResponse, log: Logger) => void;

/** Whether a request is for the catalog route: public reads, answered before Express. */
export function esRutaCatalogos(req: IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && (req.url ?? '').startsWith(PREFIJO);
}

/**
 * GET /v1/catalogos/:nombre: public, served from memory on plain Node HTTP. Every request costs only a
 * map lookup once its answer is cached (the data cannot change while the process lives), so an
 * autocomplete under load stays within a few ms; the answers and errors are those of the contract.
 */
export function crearRutaCatalogos(catalogos: CatalogosEnMemoria): RutaCatalogos {
  const etag = `"${catalogos.huella}"`;
  const cache = new CacheLru<Buffer>(RESPUESTAS_EN_CACHE);
  // The data changes only with a deployment: clients and proxies may keep it for an hour.
  const encabezados = { 'Cache-Control': 'public, max-age=3600', ETag: etag };

  function cuerpo(nombre: string, consulta: Record<string, string | string[] | undefined>): Buffer {
    if (esCatalogoBuscable(nombre)) {
      exigirConocidos(consulta, PARAMETROS_BUSQUEDA);
      const q = leerQ(consulta.q);
      const limite = leerLimite(consulta.limite);
      const clave = `${nombre}\n${limite}\n${q ?? ''}`;
      // Checked on a miss only: a refused q throws there, so it never enters the cache.
      return cache.obtener(clave, () => {
        // "%" or "--" would search nothing and answer the first records as if q were absent.
        if (q !== undefined && terminosDeBusqueda(q).length === 0) {
          throw parametroInvalido('q', 'El parámetro q debe contener al menos una letra o un dígito.');
        }
        return Buffer.from(
          JSON.stringify({ objeto: 'lista', catalogo: nombre, datos: catalogos.buscar(nombre, q, limite) }),
        );
      });
    }
    if (esCatalogoListable(nombre)) {
      exigirConocidos(consulta, SIN_PARAMETROS);
      return cache.obtener(nombre, () =>
        Buffer.from(JSON.stringify({ objeto: 'lista', catalogo: nombre, datos: catalogos.listar(nombre) })),
      );
    }
    throw new ApiError(
      'no_encontrado',
      'catalogo_no_encontrado',
      `El catálogo ${nombre} no existe.`,
      'nombre',
    );
  }

  return (req, res, log) => {
    const url = req.url!;
    const i = url.indexOf('?');
    const nombre = url.slice(PREFIJO.length, i < 0 ? undefined : i);
    try {
      if (!NOMBRE.test(nombre)) {
        throw new ApiError('no_encontrado', 'ruta_no_encontrada', 'La ruta solicitada no existe.');
      }
      const datos = cuerpo(nombre, i < 0 ? {} : parse(url.slice(i + 1)));
      if (vigente(req, etag)) {
        res.writeHead(304, encabezados).end();
        return;
      }
      res
        .writeHead(200, {
          ...encabezados,
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': datos.length,
        })
        .end(datos);
    } catch (err) {
      const e = errorRegistrado(log, err);
      res.writeHead(e.status, { ...e.encabezados, 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(e));
    }
  };
}
