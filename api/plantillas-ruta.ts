import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The label of a request whose path matches no known route (404s, scans). */
export const SIN_RUTA = 'sin_ruta';

const leidas = new Map<string, string[]>();

/** The path templates of the contract (`/v1/facturas/{id}`…), read once per process (parsing takes ~0.5 s). */
export function rutasDelContrato(archivoOpenApi: string): string[] {
  let rutas = leidas.get(archivoOpenApi);
  if (!rutas) {
    const doc = parse(readFileSync(archivoOpenApi, 'utf8')) as { paths?: Record<string, unknown> };
    rutas = Object.keys(doc.paths ?? {});
    leidas.set(archivoOpenApi, rutas);
  }
  return rutas;
}

interface Plantilla {
  texto: string;
  /** Literal segments as themselves, `{parameter}` segments as null. */
  partes: (string | null)[];
}

/**
 * Maps a request path (without its query) to the template it matches, for metric labels: an id in a label
 * would make one series per invoice. A `{parameter}` matches one non-empty segment; when several templates
 * match, the one with more literal segments wins. Anything else is `sin_ruta`, so the label set is bounded
 * by the templates whatever clients send. Matched on the raw path, before and whatever Express routes: a
 * request refused by authentication or validation is labelled with the route it asked for.
 */
export function crearPlantillaDeRuta(plantillas: readonly string[]): (ruta: string) => string {
  const porLargo = new Map<number, Plantilla[]>();
  for (const texto of plantillas) {
    const partes = texto.split('/').map((p) => (/^\{[^}]+\}$/.test(p) ? null : p));
    const lista = porLargo.get(partes.length) ?? [];
    lista.push({ texto, partes });
    porLargo.set(partes.length, lista);
  }
  const parametros = (p: Plantilla) => p.partes.filter((x) => x === null).length;
  for (const lista of porLargo.values()) lista.sort((a, b) => parametros(a) - parametros(b));

  return (ruta) => {
    const partes = ruta.split('/');
    const candidata = porLargo
      .get(partes.length)
      ?.find((p) => p.partes.every((x, i) => (x === null ? partes[i] !== '' : x === partes[i])));
    return candidata?.texto ?? SIN_RUTA;
  };
}
