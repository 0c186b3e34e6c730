import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VARIABLES } from '../../config/config';
import { FILTRO_TIMBRADOS_ATORADOS } from '../../temporal/consultas-ops';

describe('README', () => {
  const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
  const seccion = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Ops'));
  const documentadas = [...seccion.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);

  it('documenta exactamente las variables del módulo de configuración', () => {
    expect(documentadas.sort()).toEqual(Object.keys(VARIABLES).sort());
  });

  it('muestra el valor por defecto de cada variable que lo tiene', () => {
    for (const [nombre, v] of Object.entries(VARIABLES)) {
      if ('defecto' in v) expect(seccion).toContain(`| \`${nombre}\` | \`${v.defecto}\` |`);
    }
  });

  it('la sección Ops cita, en un bloque propio, el filtro de temporal/consultas-ops.ts', () => {
    const ops = readme.slice(readme.indexOf('## Ops'), readme.indexOf('## Sandbox'));
    expect(ops).toContain('```\n' + FILTRO_TIMBRADOS_ATORADOS + '\n```');
  });

  it('empieza por los dos comandos', () => {
    expect(readme.indexOf('make up')).toBeLessThan(readme.indexOf('## Architecture'));
    expect(readme).toMatch(/make test\s+# runs the whole test suite/);
  });
});
