/** One page of a keyset walk, newest first: at most `limite` items after the id `despuesDe`. */
export interface Pagina {
  limite: number;
  despuesDe?: string;
}

/** What a list returns: the items of the page and whether more follow. */
export interface Tramo<T> {
  datos: T[];
  hayMas: boolean;
}

export const mapearTramo = <F, T>(t: Tramo<F>, f: (fila: F) => T): Tramo<T> => ({
  datos: t.datos.map(f),
  hayMas: t.hayMas,
});
