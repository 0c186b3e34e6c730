import { readFileSync } from 'node:fs';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { rutaOpenApi } from '../../config/rutas';

type Nodo = Record<string, unknown>;

/** Schema keywords ajv does not know are dropped; local refs point into the whole document. */
function aJsonSchema(nodo: unknown): unknown {
  if (Array.isArray(nodo)) return nodo.map(aJsonSchema);
  if (!nodo || typeof nodo !== 'object') return nodo;
  const fuera: Nodo = {};
  for (const [k, v] of Object.entries(nodo as Nodo)) {
    if (k === 'example' || k === 'examples' || k === 'discriminator' || k === 'xml') continue;
    // Local refs point into the whole document, registered under the id "openapi".
    fuera[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi${v}` : aJsonSchema(v);
  }
  return fuera;
}

const documento = parse(readFileSync(rutaOpenApi(), 'utf8')) as {
  paths: Record<string, Record<string, { responses?: Record<string, Nodo>; 'x-codigos-error'?: string }>>;
  components?: Nodo;
};
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
ajv.addSchema({ components: aJsonSchema(documento.components) } as Nodo, 'openapi');

const rutas = Object.keys(documento.paths).map((plantilla) => ({
  plantilla,
  patron: new RegExp(`^${plantilla.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  fijos: plantilla.split('/').filter((p) => !p.startsWith('{')).length,
}));

const cache = new Map<string, ValidateFunction | null>();

function validador(plantilla: string, metodo: string, status: number): ValidateFunction | null {
  const clave = `${metodo} ${plantilla} ${status}`;
  if (!cache.has(clave)) {
    const respuestas = documento.paths[plantilla]?.[metodo]?.responses;
    if (!respuestas) throw new Error(`openapi.yaml no documenta ${metodo.toUpperCase()} ${plantilla}`);
    let r = (respuestas[String(status)] ?? respuestas.default) as Nodo | undefined;
    if (!r)
      throw new Error(
        `openapi.yaml no documenta la respuesta ${status} de ${metodo.toUpperCase()} ${plantilla}`,
      );
    if (typeof r.$ref === 'string') {
      const nombre = r.$ref.split('/').pop()!;
      r = (documento.components?.responses as Record<string, Nodo>)[nombre]!;
    }
    const esquema = (r.content as Record<string, { schema?: unknown }> | undefined)?.['application/json']
      ?.schema;
    cache.set(clave, esquema ? ajv.compile(aJsonSchema(esquema) as Nodo) : null);
  }
  return cache.get(clave)!;
}

/**
 * Fails when a response the API gave is not what openapi.yaml promises for that operation and status.
 * Every request of the integration tests goes through it, so the contract cannot drift.
 */
export function validarRespuesta(metodo: string, ruta: string, status: number, cuerpo: unknown): void {
  const camino = ruta.split('?')[0]!;
  // The most specific template wins: /v1/llaves_api/{id} vs a literal path.
  const candidata = rutas
    .filter((r) => r.patron.test(camino) && documento.paths[r.plantilla]?.[metodo.toLowerCase()])
    .sort((a, b) => b.fijos - a.fijos)[0];
  if (!candidata) throw new Error(`openapi.yaml no documenta ${metodo} ${camino}`);
  const v = validador(candidata.plantilla, metodo.toLowerCase(), status);
  if (v && !v(cuerpo)) {
    throw new Error(
      `La respuesta ${status} de ${metodo} ${camino} no cumple openapi.yaml:\n${JSON.stringify(v.errors, null, 2)}\n${JSON.stringify(cuerpo, null, 2).slice(0, 2000)}`,
    );
  }
  const codigo = (cuerpo as { error?: { codigo?: unknown } } | null)?.error?.codigo;
  const codigos = documento.paths[candidata.plantilla]![metodo.toLowerCase()]!['x-codigos-error'];
  if (status >= 400 && codigos && !codigosDe(codigos)(codigo)) {
    throw new Error(
      `${metodo} ${camino} respondió ${status} ${String(codigo)}, fuera de ${codigos.split('/').pop()}`,
    );
  }
}

/** The operation's own error codes (`x-codigos-error`): an undeclared code is contract drift. */
function codigosDe(ref: string): ValidateFunction {
  let v = cache.get(ref);
  if (!v) cache.set(ref, (v = ajv.compile({ $ref: `openapi${ref}` })));
  return v;
}
