/** A bounded map that forgets the least recently used entry first (Map keeps insertion order). */
export class CacheLru<V> {
  private readonly entradas = new Map<string, V>();

  constructor(private readonly maximo: number) {
    if (!Number.isInteger(maximo) || maximo < 1) throw new Error('el máximo debe ser un entero positivo');
  }

  get tamano(): number {
    return this.entradas.size;
  }

  /** The cached value, or the one `crear` makes (kept unless it throws). */
  obtener(clave: string, crear: () => V): V {
    const v = this.entradas.get(clave);
    if (v !== undefined) {
      // Moved to the end: most recently used.
      this.entradas.delete(clave);
      this.entradas.set(clave, v);
      return v;
    }
    const nuevo = crear();
    this.entradas.set(clave, nuevo);
    if (this.entradas.size > this.maximo) this.entradas.delete(this.entradas.keys().next().value!);
    return nuevo;
  }
}
