import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const RAIZ = join(__dirname, '..', '..');
// Leaves: they may import anything, nothing imports them.
const HOJAS = new Set(['test', 'bench', 'scripts', 'node_modules', 'dist', 'deploy']);

type Grafo = Map<string, Set<string>>;

/** Strongly connected components with more than one folder (or a folder importing itself through others). */
export function ciclos(grafo: Grafo): string[][] {
  let indice = 0;
  const pila: string[] = [];
  const enPila = new Set<string>();
  const idx = new Map<string, number>();
  const bajo = new Map<string, number>();
  const resultado: string[][] = [];
  const visitar = (v: string) => {
    idx.set(v, indice);
    bajo.set(v, indice++);
    pila.push(v);
    enPila.add(v);
    for (const w of grafo.get(v) ?? []) {
      if (!idx.has(w)) {
        visitar(w);
        bajo.set(v, Math.min(bajo.get(v)!, bajo.get(w)!));
      } else if (enPila.has(w)) bajo.set(v, Math.min(bajo.get(v)!, idx.get(w)!));
    }
    if (bajo.get(v) === idx.get(v)) {
      const componente: string[] = [];
      let w: string;
      do {
        w = pila.pop()!;
        enPila.delete(w);
        componente.push(w);
      } while (w !== v);
      if (componente.length > 1) resultado.push(componente.sort());
    }
  };
  for (const v of grafo.keys()) if (!idx.has(v)) visitar(v);
  return resultado;
}

const carpetasFuente = () =>
  readdirSync(RAIZ).filter(
    (n) => !n.startsWith('.') && !HOJAS.has(n) && statSync(join(RAIZ, n)).isDirectory(),
  );

/** The import graph folded into top-level folders, as dependency-cruiser reads it (type-only imports too). */
function grafoDeCarpetas(): Grafo {
  const salida = execFileSync(
    join(RAIZ, 'node_modules', '.bin', 'depcruise'),
    [
      '--config',
      '.dependency-cruiser.cjs',
      '--collapse',
      '^[^/]+/',
      '--output-type',
      'json',
      // A second run reads only what changed (make test-unit's caches live in the same folder).
      '--cache',
      join(RAIZ, 'node_modules', '.cache', 'pruebas', 'depcruise'),
      '--cache-strategy',
      'content',
      ...carpetasFuente(),
    ],
    { cwd: RAIZ, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const { modules } = JSON.parse(salida) as {
    modules: { source: string; dependencies: { resolved: string }[] }[];
  };
  const grafo: Grafo = new Map();
  for (const m of modules.filter((x) => x.source.endsWith('/'))) {
    const destinos = m.dependencies.map((d) => d.resolved).filter((r) => r.endsWith('/') && r !== m.source);
    grafo.set(m.source, new Set(destinos));
  }
  return grafo;
}

describe('capas: ningún ciclo entre carpetas de primer nivel', () => {
  it('el detector encuentra un ciclo de dos y de tres carpetas, y ninguno en una cadena', () => {
    const g = (pares: [string, string][]): Grafo => {
      const m: Grafo = new Map();
      for (const [a, b] of pares) {
        if (!m.has(a)) m.set(a, new Set());
        if (!m.has(b)) m.set(b, new Set());
        m.get(a)!.add(b);
      }
      return m;
    };
    expect(
      ciclos(
        g([
          ['api/', 'db/'],
          ['db/', 'api/'],
        ]),
      ),
    ).toEqual([['api/', 'db/']]);
    expect(
      ciclos(
        g([
          ['a/', 'b/'],
          ['b/', 'c/'],
          ['c/', 'a/'],
          ['c/', 'd/'],
        ]),
      ),
    ).toEqual([['a/', 'b/', 'c/']]);
    expect(
      ciclos(
        g([
          ['api/', 'servicios/'],
          ['servicios/', 'db/'],
          ['db/', 'dominio/'],
        ]),
      ),
    ).toEqual([]);
  });

  it('el árbol fuente no tiene ciclos entre carpetas (importaciones de solo tipos incluidas)', () => {
    const grafo = grafoDeCarpetas();
    // The graph must really hold the layers: an empty or partial read would pass vacuously.
    expect(grafo.get('api/')).toContain('servicios/');
    expect(grafo.get('servicios/')).toContain('db/');
    expect(grafo.get('temporal/')).toContain('workflows/');
    expect(ciclos(grafo)).toEqual([]);
  });

  it('solo api/ conoce los códigos de estado HTTP', () => {
    const grafo = grafoDeCarpetas();
    for (const [carpeta, destinos] of grafo) {
      if (carpeta !== 'api/') expect([carpeta, [...destinos].includes('api/')]).toEqual([carpeta, false]);
    }
  });
});
