/** Something prepared once on first use and shared afterwards (the SAT certificate, the catalogs). */
export type Recurso<T> = () => Promise<T>;

/** A failed preparation is forgotten, so the next request tries again instead of failing forever. */
export function perezoso<T>(crear: () => Promise<T>): Recurso<T> {
  let valor: Promise<T> | undefined;
  return () =>
    (valor ??= crear().catch((e: unknown) => {
      valor = undefined;
      throw e;
    }));
}
