import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { urlVerificacionDe } from '../../cfdi/qr';
import { extraerTimbre } from '../../cfdi/timbre';
import type { Nodo } from '../../cfdi/xml/nodo';
import { parsear } from '../../cfdi/xml/parsear';
import { descripcionesDesdeCsv } from '../../pdf/descripciones';
import { Navegador } from '../../pdf/navegador';
import { ErrorRenderizado, RenderizadorPdf } from '../../pdf/renderizador';
import { htmlRepresentacion, LEYENDA } from '../../pdf/representacion';
import { directorioSat } from '../../config/rutas';

const EJEMPLOS = join(directorioSat(), 'examples', 'signed');
const STAMPED = ['ingreso-real-stamped-pue-iva16.xml', 'ingreso-sandbox-stamped-descuento.xml'];
const descripciones = descripcionesDesdeCsv();

let dir: string;
let navegador: Navegador;
let renderizador: RenderizadorPdf;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cfdi-pdf-'));
  navegador = new Navegador(process.env.CHROMIUM_PATH);
  renderizador = new RenderizadorPdf(navegador);
});

afterAll(async () => {
  await renderizador.cerrar();
  await navegador.cerrar();
  rmSync(dir, { recursive: true, force: true });
});

const html = (comprobante: string | Nodo, colorAcento = '#1F4E79') =>
  htmlRepresentacion(comprobante, { colorAcento, descripciones });

function guardar(nombre: string, pdf: Buffer): string {
  const ruta = join(dir, `${nombre}.pdf`);
  writeFileSync(ruta, pdf);
  return ruta;
}

/** Page 1 at 150 dpi, as a scanner or a phone would see it, through zbar. */
function leerQr(rutaPdf: string): string {
  const base = rutaPdf.replace(/\.pdf$/, '');
  execFileSync('pdftoppm', ['-png', '-r', '150', '-f', '1', '-l', '1', '-singlefile', rutaPdf, base]);
  return execFileSync('zbarimg', ['--raw', '-q', `${base}.png`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'], // zbar complains about D-Bus on stderr
  }).trim();
}

const textoPdf = (rutaPdf: string) => execFileSync('pdftotext', [rutaPdf, '-'], { encoding: 'utf8' });

async function matarChromium(n: Navegador): Promise<void> {
  // The whole process group: Debian's wrapper scripts do not exec, so the child is Chromium itself.
  const pid = (await n.navegador()).process()!.pid!;
  process.kill(-pid, 'SIGKILL');
}

describe.each(STAMPED)('PDF de %s', (archivo) => {
  const xml = readFileSync(join(EJEMPLOS, archivo), 'utf8');
  const comprobante = parsear(xml);
  const uuid = extraerTimbre(comprobante)!.atributos['UUID']!;
  let ruta: string;

  beforeAll(async () => {
    const pdf = await renderizador.renderizar(html(xml));
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.length).toBeGreaterThan(10_000);
    expect(pdf.length).toBeLessThan(1_000_000);
    ruta = guardar(archivo, pdf);
  });

  it('el QR de la página 1 decodifica exactamente a la URL de verificación', () => {
    expect(leerQr(ruta)).toBe(urlVerificacionDe(comprobante));
  });

  it('el texto del PDF tiene el folio fiscal, la leyenda y los sellos', () => {
    const texto = textoPdf(ruta);
    expect(texto).toContain(uuid);
    expect(texto).toContain(LEYENDA);
    expect(texto).toContain('Sello digital del CFDI');
    expect(texto).toContain('Cadena original del complemento de certificación digital del SAT');
  });

  it('tamaño carta, en una página', () => {
    const info = execFileSync('pdfinfo', [ruta], { encoding: 'utf8' });
    expect(info).toMatch(/Page size:\s+612 x 792 pts \(letter\)/);
    expect(info).toMatch(/Pages:\s+1\n/);
  });
});

describe('RenderizadorPdf', () => {
  it('20 documentos a la vez, cada uno con su propio contenido', async () => {
    const base = parsear(readFileSync(join(EJEMPLOS, STAMPED[0]!), 'utf8'));
    const folios = Array.from({ length: 20 }, (_, i) => `PDF${1000 + i}`);
    const pdfs = await Promise.all(
      folios.map((folio, i) =>
        renderizador.renderizar(
          html({ ...base, atributos: { ...base.atributos, Folio: folio } }, i % 2 ? '#AA3300' : '#1F4E79'),
        ),
      ),
    );
    pdfs.forEach((pdf, i) => {
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      // Pages are reused: each PDF must hold its own document, not a neighbour's.
      const texto = textoPdf(guardar(`concurrente-${i}`, pdf));
      expect(texto).toContain(`O-${folios[i]}`);
      for (const otro of folios) if (otro !== folios[i]) expect(texto).not.toContain(`O-${otro}`);
    });
  });

  it('se recupera cuando Chromium muere: relanza y reintenta', async () => {
    const nav = new Navegador(process.env.CHROMIUM_PATH);
    const r = new RenderizadorPdf(nav, { paginas: 2 });
    const documento = html(readFileSync(join(EJEMPLOS, STAMPED[1]!), 'utf8'));
    try {
      await r.renderizar(documento);
      const antes = await nav.navegador();
      await matarChromium(nav);
      const pdfs = await Promise.all([r.renderizar(documento), r.renderizar(documento)]);
      for (const pdf of pdfs) expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(await nav.navegador()).not.toBe(antes);
    } finally {
      await r.cerrar();
      await nav.cerrar();
    }
  });

  it('tiempo agotado: error claro, y tras varios seguidos relanza Chromium', async () => {
    const nav = new Navegador(process.env.CHROMIUM_PATH);
    const r = new RenderizadorPdf(nav, { paginas: 1, tiempoLimiteMs: 1 });
    const documento = html(readFileSync(join(EJEMPLOS, STAMPED[0]!), 'utf8'));
    try {
      const antes = await nav.navegador();
      for (let i = 0; i < 3; i++) {
        await expect(r.renderizar(documento)).rejects.toThrow(/El PDF no se generó en 1 ms/);
      }
      await expect(r.renderizar(documento)).rejects.toBeInstanceOf(ErrorRenderizado);
      expect(antes.connected).toBe(false);
    } finally {
      await r.cerrar();
      await nav.cerrar();
    }
  });

  it('no retiene los PDF que ya entregó (una página vive 1000 renders)', async () => {
    // The soak of issue 13 saw the worker grow by one PDF per render: every render raced a promise that lived
    // as long as its page, which kept each result reachable until the page was replaced.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const r = new RenderizadorPdf(navegador, { paginas: 1 });
    const documento = html(readFileSync(join(EJEMPLOS, STAMPED[0]!), 'utf8'));
    const entregados: WeakRef<Buffer>[] = [];
    try {
      for (let i = 0; i < 60; i++) entregados.push(new WeakRef(await r.renderizar(documento)));
      // Measured while the page is still open: closing it would let go of everything anyway.
      await new Promise((listo) => setImmediate(listo));
      gc();
      expect(entregados.filter((w) => w.deref() !== undefined).length).toBeLessThanOrEqual(1);
    } finally {
      await r.cerrar();
    }
  });

  it('cerrado no acepta más trabajo', async () => {
    const r = new RenderizadorPdf(navegador);
    await r.cerrar();
    await expect(r.renderizar('<html></html>')).rejects.toThrow(/Renderizador cerrado/);
  });
});

describe('Chromium no sobrevive a su proceso', () => {
  it('a process killed with SIGKILL takes its Chromium with it (no orphans after a crash)', async () => {
    // A real Node process (the compiled Navegador) renders once, then dies without any cleanup.
    const script = `
      const { Navegador } = require('./dist/pdf/navegador.js');
      new Navegador(process.env.CHROMIUM_PATH).navegador().then(async (b) => {
        const p = await b.newPage();
        await p.setContent('<p>hola</p>');
        await p.pdf();
        console.log(b.process().pid);
      });
      setInterval(() => {}, 1000);`;
    const hijo = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve, reject) => {
      hijo.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      hijo.once('exit', (c) => reject(new Error(`el proceso terminó antes de renderizar (${c})`)));
    });
    // Its whole process group (puppeteer makes Chromium a group leader; Debian's wrapper forks the binary).
    const vivo = (p: number) => {
      try {
        process.kill(-p, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(vivo(pid)).toBe(true);
    hijo.kill('SIGKILL');
    const limite = Date.now() + 10_000;
    while (vivo(pid) && Date.now() < limite) await new Promise((r) => setTimeout(r, 100));
    expect(vivo(pid)).toBe(false);
  }, 60_000);
});
