import type { KeyObject } from 'node:crypto';
import { cadenaOriginal } from '../cadena';
import { sellar } from '../sello';
import type { Nodo } from '../xml/nodo';
import { serializar } from '../xml/serializar';
import { conSello } from './construir';

export interface ComprobanteSellado {
  nodo: Nodo;
  cadena: string;
  sello: string;
  xml: string;
}

/** Cadena original from the same tree the XML is written from, RSA-SHA256 seal, then the final XML. */
export function sellarComprobante(sinSello: Nodo, llave: KeyObject): ComprobanteSellado {
  const cadena = cadenaOriginal(sinSello);
  const sello = sellar(cadena, llave);
  const nodo = conSello(sinSello, sello);
  return { nodo, cadena, sello, xml: serializar(nodo) };
}
