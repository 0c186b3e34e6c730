import type { Nodo } from '../xml/nodo';
import { ambitoDe, NS_TFD, partesNombre } from '../xml/espacios';
import { campos, emitir, enmarcar } from './campos';

const CAMPOS_TFD = campos('Version UUID FechaTimbrado RfcProvCertif Leyenda? SelloCFD NoCertificadoSAT');

/**
 * Cadena original del complemento de certificación digital del SAT, as cadenaoriginal_TFD_1_1.xslt prints
 * it: `||1.1|UUID|FechaTimbrado|RfcProvCertif|[Leyenda|]SelloCFD|NoCertificadoSAT||`.
 * The TFD node may come straight out of a Comprobante, where its prefix is often declared on the root,
 * so only a namespace declared on the node itself is checked.
 */
export function cadenaTfd(tfd: Nodo): string {
  const [prefijo, local] = partesNombre(tfd.nombre);
  const uri = ambitoDe(tfd)[prefijo];
  if (local !== 'TimbreFiscalDigital' || (uri !== undefined && uri !== NS_TFD)) {
    throw new Error(`Se esperaba un tfd:TimbreFiscalDigital (${NS_TFD}) y llegó <${tfd.nombre}>`);
  }
  const salida: string[] = [];
  emitir(salida, tfd, CAMPOS_TFD);
  return enmarcar(salida);
}
