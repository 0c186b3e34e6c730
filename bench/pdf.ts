import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { construirComprobante } from '../cfdi/comprobante/construir';
import { sellarComprobante } from '../cfdi/comprobante/sellar';
import { sellar } from '../cfdi/sello';
import { construirTimbre, insertarTimbre } from '../cfdi/timbre';
import type { Nodo } from '../cfdi/xml/nodo';
import { parsear } from '../cfdi/xml/parsear';
import { descripcionesDesdeCsv } from '../pdf/descripciones';
import { localizarChromium, Navegador } from '../pdf/navegador';
import { PAGINAS_POR_DEFECTO, RenderizadorPdf } from '../pdf/renderizador';
import { htmlRepresentacion } from '../pdf/representacion';
import { csdDePrueba, DIRECTORIO_SAT, facturaDiezConceptos as entradaDiezConceptos } from './muestra';

/**
 * `npm run bench:pdf`: stamped XML → printed-representation HTML → PDF through the warm Chromium, with
 * the renderer's own page pool and as many clients as it has pages. Measured for the real stamped
 * example and for a 10-concept invoice. Last line: pdf_por_segundo=<n> (the real example).
 */
const N = Number(process.env.BENCH_N ?? 300);
const CALENTAMIENTO = 30;
const SAT = DIRECTORIO_SAT;

/** A 10-concept invoice sealed with the SAT's public test CSD and a TFD signed with the same key. */
function facturaDiezConceptos(): Nodo {
  const { llave, certificado } = csdDePrueba();
  const entrada = entradaDiezConceptos(certificado, 50);
  const sellado = sellarComprobante(construirComprobante(entrada).nodo, llave);
  const tfd = construirTimbre(
    {
      uuid: '9B1DEB4D-3B7D-4BAD-9BDD-2B0D7B3DCB6D',
      fechaTimbrado: '2026-11-23T10:00:05',
      rfcProvCertif: 'SPR190613I52',
      selloCfd: sellado.sello,
      noCertificadoSat: '30001000000500003416',
    },
    (cadena) => sellar(cadena, llave),
  );
  return insertarTimbre(sellado.nodo, tfd);
}

/** CPU seconds used so far by the whole machine and by this process with its children (Chromium). */
function cpu(): { maquina: number; nuestra: number } {
  const tick = 100; // USER_HZ on Linux
  const campos = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
  const maquina = campos.slice(0, 8).reduce((a, v, i) => (i === 3 || i === 4 ? a : a + v), 0) / tick;
  const procesos = new Map<number, { padre: number; cpu: number }>();
  for (const pid of readdirSync('/proc').filter((d) => /^[0-9]+$/.test(d))) {
    try {
      // Fields after the command name: state ppid … utime(12) stime(13).
      const resto = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()!.split(' ');
      procesos.set(Number(pid), {
        padre: Number(resto[1]),
        cpu: (Number(resto[11]) + Number(resto[12])) / tick,
      });
    } catch {
      // exited meanwhile
    }
  }
  const esNuestro = (pid: number): boolean => {
    for (let p: number | undefined = pid; p && p > 1; p = procesos.get(p)?.padre)
      if (p === process.pid) return true;
    return false;
  };
  let nuestra = 0;
  for (const [pid, { cpu: s }] of procesos) if (esNuestro(pid)) nuestra += s;
  return { maquina, nuestra };
}

const percentil = (ordenados: number[], p: number) =>
  ordenados[Math.min(ordenados.length - 1, Math.ceil((p / 100) * ordenados.length) - 1)] ?? NaN;

async function medir(
  nombre: string,
  renderizador: RenderizadorPdf,
  clientes: number,
  documento: () => string,
): Promise<number> {
  const ronda = async (n: number, tiempos: number[]) => {
    let siguiente = 0;
    await Promise.all(
      Array.from({ length: clientes }, async () => {
        while (siguiente++ < n) {
          const t0 = performance.now();
          const pdf = await renderizador.renderizar(documento());
          tiempos.push(performance.now() - t0);
          if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-') throw new Error('No es un PDF');
        }
      }),
    );
  };
  await ronda(CALENTAMIENTO, []);
  const tiempos: number[] = [];
  const c0 = cpu();
  const t0 = performance.now();
  await ronda(N, tiempos);
  const segundos = (performance.now() - t0) / 1000;
  const c1 = cpu();
  const nuestra = c1.nuestra - c0.nuestra;
  // Dead Chromium children are not counted in /proc, so "others" can only be overestimated slightly.
  const otros = Math.max(0, c1.maquina - c0.maquina - nuestra) / (segundos * cpus().length);
  tiempos.sort((a, b) => a - b);
  const porSegundo = N / segundos;
  console.log(
    `${nombre.padEnd(30)} ${porSegundo.toFixed(1).padStart(6)} PDF/s` +
      `   p50 ${percentil(tiempos, 50).toFixed(1).padStart(6)} ms   p99 ${percentil(tiempos, 99).toFixed(1).padStart(6)} ms` +
      `   CPU ${((nuestra / N) * 1000).toFixed(1)} ms/PDF   otros procesos ${(otros * 100).toFixed(0)} %`,
  );
  return porSegundo;
}

async function main(): Promise<void> {
  const descripciones = descripcionesDesdeCsv();
  const real = parsear(
    readFileSync(join(SAT, 'examples', 'signed', 'ingreso-real-stamped-pue-iva16.xml'), 'utf8'),
  );
  const diez = facturaDiezConceptos();
  const html = (c: Nodo) => htmlRepresentacion(c, { colorAcento: '#1F4E79', descripciones });

  // The HTML step alone, for scale: it runs in this process, the PDF in Chromium.
  for (let i = 0; i < 50; i++) html(diez); // loads the catalogs and warms the JIT
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) html(diez);
  const msHtml = (performance.now() - t0) / 200;

  const ejecutable = localizarChromium(process.env.CHROMIUM_PATH || undefined);
  const navegador = new Navegador(ejecutable);
  const paginas = Number(process.env.BENCH_PAGINAS ?? PAGINAS_POR_DEFECTO);
  const renderizador = new RenderizadorPdf(navegador, { paginas });
  try {
    console.log(
      `${await navegador.version()} (${ejecutable}), ${cpus().length} CPU, node ${process.version}; ` +
        `${N} PDF por caso tras ${CALENTAMIENTO} de calentamiento, ${paginas} clientes; ` +
        `XML → HTML ${msHtml.toFixed(2)} ms`,
    );
    const porSegundo = await medir('CFDI real (2 conceptos)', renderizador, paginas, () => html(real));
    await medir('factura de 10 conceptos', renderizador, paginas, () => html(diez));
    console.log(`pdf_por_segundo=${porSegundo.toFixed(1)}`);
  } finally {
    await renderizador.cerrar();
    await navegador.cerrar();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
