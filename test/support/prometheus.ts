/** One series of a Prometheus text exposition. */
export interface Serie {
  nombre: string;
  etiquetas: Record<string, string>;
  valor: number;
}

/** Every sample line of a Prometheus text exposition (comments skipped). */
export function series(texto: string): Serie[] {
  const fuera: Serie[] = [];
  for (const linea of texto.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(linea);
    if (!m) continue;
    const etiquetas: Record<string, string> = {};
    for (const e of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      etiquetas[e[1]!] = e[2]!.replace(/\\(.)/g, (_x, c: string) => (c === 'n' ? '\n' : c));
    fuera.push({ nombre: m[1]!, etiquetas, valor: Number(m[3]) });
  }
  return fuera;
}

/**
 * The sum of the series called `nombre` whose labels include `etiquetas` (other labels may vary), or
 * undefined when there is none.
 */
export function valor(
  texto: string,
  nombre: string,
  etiquetas: Record<string, string> = {},
): number | undefined {
  const elegidas = series(texto).filter(
    (s) => s.nombre === nombre && Object.entries(etiquetas).every(([k, v]) => s.etiquetas[k] === v),
  );
  return elegidas.length ? elegidas.reduce((t, s) => t + s.valor, 0) : undefined;
}
