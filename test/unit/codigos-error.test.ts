import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/*
 * Error codes are part of the contract (CodigoError and each operation's CodigosError…): a code thrown in the
 * code but missing there would compile nowhere and surprise integrators switching on it.
 */
const RAIZ = join(__dirname, '..', '..');
const doc = parse(readFileSync(join(RAIZ, 'openapi.yaml'), 'utf8')) as {
  components: { schemas: Record<string, { enum?: string[] }> };
};
const declarados = new Set(doc.components.schemas.CodigoError!.enum);

function fuentes(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const r = join(dir, n);
    return statSync(r).isDirectory() ? fuentes(r) : r.endsWith('.ts') ? [r] : [];
  });
}

// The ways the code names an error code: the error class, its helpers and the rule engine's violations.
const LLAMADAS =
  /(?:new (?:ErrorNegocio|ApiError)\(\s*'[a-z_]+',|noEncontrado\(|violacion\(|invalido\(|regla\(|ctx\.error\(|\.error\()\s*'([a-z][a-z0-9_]+)'/g;

/**
 * The console's pages and its users' service answer people with pages, never an API client: their codes are not in
 * the API's contract (the console's own tests check them).
 */
const FUERA_DE_LA_API = [join(RAIZ, 'api', 'consola'), join(RAIZ, 'servicios', 'usuarios.ts')];

describe('códigos de error en openapi.yaml', () => {
  const usados = new Map<string, string>();
  for (const carpeta of ['api', 'servicios', 'dominio', 'cfdi', 'seguridad', 'webhooks']) {
    for (const archivo of fuentes(join(RAIZ, carpeta))) {
      if (FUERA_DE_LA_API.some((f) => archivo.startsWith(f))) continue;
      for (const m of readFileSync(archivo, 'utf8').matchAll(LLAMADAS)) usados.set(m[1]!, archivo);
    }
  }

  it('encuentra los códigos del código fuente', () => {
    expect(usados.size).toBeGreaterThan(100);
  });

  it('todo código que el código lanza está en CodigoError', () => {
    const faltan = [...usados].filter(([c]) => !declarados.has(c)).map(([c, a]) => `${c} (${a})`);
    expect(faltan).toEqual([]);
  });

  it('cada operación declara sus códigos y todos están en CodigoError', () => {
    const ops = Object.entries(doc.components.schemas).filter(([n]) => n.startsWith('CodigosError'));
    for (const [nombre, s] of ops) {
      const lista = [
        ...(s.enum ?? []),
        ...((s as { anyOf?: { enum?: string[] }[] }).anyOf ?? []).flatMap((a) => a.enum ?? []),
      ];
      expect({ nombre, fuera: lista.filter((c) => !declarados.has(c)) }).toEqual({ nombre, fuera: [] });
    }
  });
});
