/** Answers a fake gives in order, then its default: how a test scripts a port's behaviour. */
export function crearGuion<T>(predeterminada: () => T) {
  const cola: T[] = [];
  return {
    poner: (...respuestas: T[]) => void cola.push(...respuestas),
    siguiente: (): T => (cola.length ? cola.shift()! : predeterminada()),
  };
}
