import type { Browser, CDPSession, Page } from 'puppeteer-core';
import type { Navegador } from './navegador';

export interface OpcionesRenderizador {
  /** Pages rendering at once; each is created once and reused. */
  paginas?: number;
  /** Per render, queueing excluded. */
  tiempoLimiteMs?: number;
}

export class ErrorRenderizado extends Error {
  constructor(
    mensaje: string,
    readonly causa?: unknown,
  ) {
    super(mensaje);
    this.name = 'ErrorRenderizado';
  }
}

/** A reusable tab: the page, its own CDP session and the browser it lives in. */
interface Pestana {
  pagina: Page;
  cdp: CDPSession;
  navegador: Browser;
  frameId: string;
}

// 2 per core measured best on 2 cores: one page prints while the other is being laid out.
const PAGINAS_POR_DEFECTO = 4;
const TIEMPO_LIMITE_POR_DEFECTO = 20_000;

/**
 * HTML → PDF over the warm Chromium of a Navegador, through a small pool of pages that are never closed
 * between renders (creating a page costs more than printing one). A page that fails or times out is
 * thrown away; when Chromium itself dies, the next render relaunches it through the Navegador and a
 * render caught by the crash is retried once on the new browser.
 */
export class RenderizadorPdf {
  private readonly maximo: number;
  private readonly tiempoLimiteMs: number;
  private readonly libres: Pestana[] = [];
  private readonly esperando: Array<(p: Pestana | Error) => void> = [];
  private creadas = 0;
  private cerrado = false;

  constructor(
    private readonly navegador: Navegador,
    opciones: OpcionesRenderizador = {},
  ) {
    this.maximo = Math.max(1, opciones.paginas ?? PAGINAS_POR_DEFECTO);
    this.tiempoLimiteMs = opciones.tiempoLimiteMs ?? TIEMPO_LIMITE_POR_DEFECTO;
  }

  /** Letter-size PDF of a self-contained HTML document (its CSS @page rules decide size and margins). */
  async renderizar(html: string): Promise<Buffer> {
    try {
      return await this.intento(html);
    } catch (e) {
      if (!(e instanceof ErrorRenderizado && e.causa instanceof ErrorNavegadorCaido)) throw e;
      return this.intento(html);
    }
  }

  /** Closes the pool's pages; the Navegador (and its Chromium) belongs to the caller. */
  async cerrar(): Promise<void> {
    this.cerrado = true;
    for (const espera of this.esperando.splice(0)) espera(new ErrorRenderizado('Renderizador cerrado'));
    const paginas = this.libres.splice(0);
    await Promise.all(paginas.map((p) => p.pagina.close().catch(() => undefined)));
  }

  private async intento(html: string): Promise<Buffer> {
    const pestana = await this.tomar();
    let sana = false;
    let temporizador: NodeJS.Timeout | undefined;
    const limite = new Promise<never>((_, rechazar) => {
      temporizador = setTimeout(
        () => rechazar(new ErrorRenderizado(`El PDF no se generó en ${this.tiempoLimiteMs} ms`)),
        this.tiempoLimiteMs,
      );
    });
    try {
      const pdf = await Promise.race([imprimir(pestana, html), limite]);
      sana = true;
      return pdf;
    } catch (e) {
      if (e instanceof ErrorRenderizado) throw e;
      const caido = !pestana.navegador.connected || pestana.pagina.isClosed();
      throw new ErrorRenderizado(
        `No se pudo generar el PDF: ${(e as Error).message}`,
        caido ? new ErrorNavegadorCaido(e) : e,
      );
    } finally {
      clearTimeout(temporizador);
      if (sana) this.devolver(pestana);
      else this.descartar(pestana);
    }
  }

  private async tomar(): Promise<Pestana> {
    if (this.cerrado) throw new ErrorRenderizado('Renderizador cerrado');
    for (;;) {
      const libre = this.libres.pop();
      if (!libre) break;
      if (libre.navegador.connected && !libre.pagina.isClosed()) return libre;
      this.creadas--;
    }
    if (this.creadas < this.maximo) {
      this.creadas++;
      try {
        return await this.abrir();
      } catch (e) {
        this.creadas--;
        throw new ErrorRenderizado(`No se pudo abrir una página de Chromium: ${(e as Error).message}`, e);
      }
    }
    const pestana = await new Promise<Pestana | Error>((resolver) => this.esperando.push(resolver));
    if (pestana instanceof Error) throw pestana;
    return pestana;
  }

  private devolver(pestana: Pestana): void {
    const espera = this.esperando.shift();
    if (espera) espera(pestana);
    else this.libres.push(pestana);
  }

  /** Closes a page that failed; a waiting render gets a fresh page in its place. */
  private descartar(pestana: Pestana): void {
    this.creadas--;
    pestana.pagina.close().catch(() => undefined);
    const espera = this.esperando.shift();
    if (!espera) return;
    this.creadas++;
    this.abrir().then(espera, (e: unknown) => {
      this.creadas--;
      espera(new ErrorRenderizado(`No se pudo abrir una página de Chromium: ${(e as Error).message}`, e));
    });
  }

  private async abrir(): Promise<Pestana> {
    const navegador = await this.navegador.navegador();
    const pagina = await navegador.newPage();
    // The documents carry no scripts; disabling them also closes the door to any that slipped in.
    await pagina.setJavaScriptEnabled(false);
    const cdp = await pagina.createCDPSession();
    const { frameTree } = await cdp.send('Page.getFrameTree');
    return { pagina, cdp, navegador, frameId: frameTree.frame.id };
  }
}

class ErrorNavegadorCaido extends Error {
  constructor(readonly causa: unknown) {
    super('Chromium dejó de responder');
  }
}

/**
 * Straight CDP: one call replaces the document (no navigation, no load wait: the HTML has no external
 * resources, so layout is complete when printing starts) and one call prints it, base64 in the reply
 * rather than a stream read in chunks.
 */
async function imprimir(p: Pestana, html: string): Promise<Buffer> {
  await p.cdp.send('Page.setDocumentContent', { frameId: p.frameId, html });
  const { data } = await p.cdp.send('Page.printToPDF', {
    printBackground: true,
    preferCSSPageSize: true,
    paperWidth: 8.5,
    paperHeight: 11,
    marginTop: 0,
    marginBottom: 0,
    marginLeft: 0,
    marginRight: 0,
    generateTaggedPDF: false,
    generateDocumentOutline: false,
    transferMode: 'ReturnAsBase64',
  });
  return Buffer.from(data, 'base64');
}
