import { cadenaOriginal } from '../cfdi/cadena';
import { construirComprobante } from '../cfdi/comprobante/construir';
import { sellarComprobante } from '../cfdi/comprobante/sellar';
import { sellar } from '../cfdi/sello';
import { csdDePrueba, facturaDiezConceptos } from './muestra';

/**
 * `npm run bench:cfdi`: build + cadena original + RSA-SHA256 seal + XML of a 10-concept invoice, on one
 * core (this process, one thread), with the SAT's public test CSD. Last line: cfdi_sellados_por_segundo=<n>.
 */
const { llave, certificado: cert } = csdDePrueba();
const entrada = (i: number) => facturaDiezConceptos(cert, i);

function medir(nombre: string, n: number, paso: (i: number) => void): number {
  for (let i = 0; i < Math.min(200, n); i++) paso(i);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) paso(i);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const porSegundo = n / s;
  console.log(
    `${nombre.padEnd(34)} ${(1e6 / porSegundo).toFixed(1).padStart(8)} µs/doc ${porSegundo.toFixed(0).padStart(8)} /s`,
  );
  return porSegundo;
}

const N = Number(process.env.BENCH_N ?? 4000);
const construido = construirComprobante(entrada(1)).nodo;
const cadena = cadenaOriginal(construido);
console.log(`node ${process.version}, ${N} documentos de 10 conceptos, un hilo`);
medir('construir (importes + árbol)', N, (i) => construirComprobante(entrada(i)));
medir('cadena original', N, () => cadenaOriginal(construido));
medir('sello RSA-SHA256 (node:crypto)', N, () => sellar(cadena, llave));
const total = medir('construir + cadena + sello + XML', N, (i) =>
  sellarComprobante(construirComprobante(entrada(i)).nodo, llave),
);
console.log(`cfdi_sellados_por_segundo=${total.toFixed(0)}`);
