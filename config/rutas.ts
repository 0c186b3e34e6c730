import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository root, from source (tests) and from dist alike: the first folder holding package.json. */
export function raizProyecto(desde = __dirname): string {
  let dir = desde;
  while (!existsSync(join(dir, 'package.json'))) {
    const arriba = dirname(dir);
    if (arriba === dir) throw new Error(`package.json no encontrado sobre ${desde}`);
    dir = arriba;
  }
  return dir;
}

export const rutaOpenApi = () => join(raizProyecto(), 'openapi.yaml');
export const rutaDatos = () => join(raizProyecto(), '.data');
/** The SAT's reference files (CSDs, XSD/XSLT, examples) for tests and benchmarks: ../shared/sat beside the repo. */
export const directorioSat = () => join(raizProyecto(), '..', 'shared', 'sat');
