/** Namespace URIs of the documents the core writes and reads. */
export const NS_CFDI40 = 'http://www.sat.gob.mx/cfd/4';
export const NS_PAGOS20 = 'http://www.sat.gob.mx/Pagos20';
export const NS_TFD = 'http://www.sat.gob.mx/TimbreFiscalDigital';
export const NS_XSI = 'http://www.w3.org/2001/XMLSchema-instance';

/** Prefix → namespace URI in scope at some element ('' is the default namespace). */
export type Ambito = Readonly<Record<string, string>>;

// Null-prototype maps: a prefix such as `constructor` must not resolve to an Object.prototype member.
export const AMBITO_VACIO: Ambito = Object.freeze(Object.create(null) as Record<string, string>);

const copia = (a: Ambito): Record<string, string> =>
  Object.assign(Object.create(null) as Record<string, string>, a);

/**
 * The scope inside `nodo`, given the scope of its parent: its own `xmlns`/`xmlns:p` attributes on top.
 * Returns the parent's object unchanged when the node declares nothing (the common case).
 */
export function ambitoDe(nodo: { atributos: Record<string, string> }, padre: Ambito = AMBITO_VACIO): Ambito {
  let propio: Record<string, string> | undefined;
  for (const nombre in nodo.atributos) {
    if (nombre.charCodeAt(0) !== 0x78 || !nombre.startsWith('xmlns')) continue;
    if (nombre.length === 5) (propio ??= copia(padre))[''] = nodo.atributos[nombre] as string;
    else if (nombre.charCodeAt(5) === 0x3a)
      (propio ??= copia(padre))[nombre.slice(6)] = nodo.atributos[nombre] as string;
  }
  return propio ?? padre;
}

/** Splits `p:Local` into its prefix ('' when unprefixed) and local name. */
export function partesNombre(nombre: string): [prefijo: string, local: string] {
  const dos = nombre.indexOf(':');
  return dos < 0 ? ['', nombre] : [nombre.slice(0, dos), nombre.slice(dos + 1)];
}

/** `p:Local`, or `Local` alone for the default namespace: the inverse of partesNombre. */
export const conPrefijo = (prefijo: string, local: string): string =>
  prefijo === '' ? local : `${prefijo}:${local}`;
