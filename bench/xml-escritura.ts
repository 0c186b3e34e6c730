import { create, createCB } from 'xmlbuilder2';
import type { XMLBuilder, XMLBuilderCB } from 'xmlbuilder2/lib/interfaces';
import { construirComprobante } from '../cfdi/comprobante/construir';
import { sellarComprobante } from '../cfdi/comprobante/sellar';
import type { Nodo } from '../cfdi/xml/nodo';
import { serializar } from '../cfdi/xml/serializar';
import { csdDePrueba, facturaDiezConceptos } from './muestra';

/**
 * `npm run build && node dist/bench/xml-escritura.js`: writing the XML of a sealed 10-concept invoice
 * (with its 2 KB Certificado) with cfdi/xml/serializar against xmlbuilder2's two writers, the DOM one
 * (`create` … `end`) and the streaming one (`createCB`). All three must write the same bytes, or the
 * comparison would be unfair; the figure is the median of 7 rounds, each BENCH_N documents.
 */

const { llave, certificado } = csdDePrueba();
const sellado = sellarComprobante(
  construirComprobante(facturaDiezConceptos(certificado, 7)).nodo,
  llave,
).nodo;

function conDom(n: Nodo): string {
  const agregar = (padre: XMLBuilder, hijo: Nodo): void => {
    const e = padre.ele(hijo.nombre, hijo.atributos);
    for (const h of hijo.hijos) agregar(e, h);
  };
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  agregar(doc, n);
  return doc.end({ prettyPrint: false });
}

function conFlujo(n: Nodo): string {
  const trozos: string[] = [];
  const escritor = createCB({ data: (t: string) => trozos.push(t), prettyPrint: false });
  const agregar = (w: XMLBuilderCB, hijo: Nodo): void => {
    w.ele(hijo.nombre, hijo.atributos);
    for (const h of hijo.hijos) agregar(w, h);
    w.up();
  };
  escritor.dec({ version: '1.0', encoding: 'UTF-8' });
  agregar(escritor, n);
  escritor.end();
  return trozos.join('');
}

const esperado = serializar(sellado);
for (const [nombre, escribir] of [
  ['DOM', conDom],
  ['flujo', conFlujo],
] as const) {
  if (escribir(sellado) !== esperado) throw new Error(`xmlbuilder2 (${nombre}) escribe otros bytes`);
}

const N = Number(process.env.BENCH_N ?? 2000);

/** Microseconds per document: median of the rounds, after one warm-up round. */
function microsegundos(escribir: (n: Nodo) => string): number {
  const rondas: number[] = [];
  for (let r = 0; r <= 7; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) escribir(sellado);
    if (r > 0) rondas.push(Number(process.hrtime.bigint() - t0) / 1e3 / N);
  }
  return rondas.sort((a, b) => a - b)[3] as number;
}

console.log(`node ${process.version}, ${esperado.length} bytes por documento, ${N} documentos por ronda`);
const propio = microsegundos(serializar);
for (const [nombre, us] of [
  ['cfdi/xml/serializar', propio],
  ['xmlbuilder2 DOM (create…end)', microsegundos(conDom)],
  ['xmlbuilder2 flujo (createCB)', microsegundos(conFlujo)],
] as const) {
  console.log(`${nombre.padEnd(30)} ${us.toFixed(1).padStart(8)} µs/doc  ×${(us / propio).toFixed(1)}`);
}
