import type { Browser, CDPSession, Page } from 'puppeteer-core';
import type { Navegador } from './navegador';

export interface OpcionesRenderizador {
  /** Pages rendering at once; each is created once and reused. */
  paginas?: number;
  /** Per render, time waiting for a free page excluded. */
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

/** A reusable tab: the page, its own CDP session, and a way to hear of its death during one render. */
interface Pestana {
  pagina: Page;
  cdp: CDPSession;
  navegador: Browser;
  frameId: string;
  /**
   * A promise that rejects if the page dies, for one render; `soltar` when the render ends. (Racing every
   * render against one long-lived promise kept each render's PDF reachable until the page closed.)
   */
  vigilar(): { muerte: Promise<never>; soltar(): void };
  /** Removes the listener left on the browser. */
  soltar: () => void;
  usos: number;
}

// Measured on 2 cores: 2 pages already keep both busy (one is laid out while the other prints);
// 4 absorbs the round trips at no cost.
export const PAGINAS_POR_DEFECTO = 4;
const TIEMPO_LIMITE_POR_DEFECTO = 20_000;
// A page is replaced now and then so whatever a long-lived renderer accumulates is let go.
const USOS_POR_PAGINA = 1000;
// Timeouts in a row with no success in between: Chromium is wedged rather than slow, relaunch it.
const TIEMPOS_AGOTADOS_PARA_REINICIAR = 3;

/**
 * HTML → PDF over the warm Chromium of a Navegador, through a small pool of pages that are never closed
 * between renders (opening a page costs more than printing one). A page that fails or times out is
 * thrown away. When Chromium dies, the next page comes from a relaunched one (Navegador relaunches a
 * disconnected browser) and the render caught by the crash is retried once.
 */
export class RenderizadorPdf {
  private readonly maximo: number;
  private readonly tiempoLimiteMs: number;
  private readonly libres: Pestana[] = [];
  private readonly esperando: Array<(p: Pestana | Error) => void> = [];
  private abiertas = 0;
  private tiemposAgotados = 0;
  private cerrado = false;

  constructor(
    private readonly navegador: Navegador,
    opciones: OpcionesRenderizador = {},
  ) {
    this.maximo = Math.max(1, opciones.paginas ?? PAGINAS_POR_DEFECTO);
    this.tiempoLimiteMs = opciones.tiempoLimiteMs ?? TIEMPO_LIMITE_POR_DEFECTO;
  }

  /** PDF of a self-contained HTML document; its CSS @page rule decides paper size and margins. */
  async renderizar(html: string): Promise<Buffer> {
    try {
      return await this.intento(html);
    } catch (e) {
      if (!(e instanceof ErrorRenderizado && e.causa instanceof ErrorPaginaCaida) || this.cerrado) throw e;
      return this.intento(html);
    }
  }

  /** Closes the pool's pages; the Navegador (and its Chromium) belongs to the caller. */
  async cerrar(): Promise<void> {
    this.cerrado = true;
    for (const espera of this.esperando.splice(0)) espera(new ErrorRenderizado('Renderizador cerrado'));
    const pestanas = this.libres.splice(0);
    this.abiertas -= pestanas.length;
    for (const p of pestanas) p.soltar();
    await Promise.all(pestanas.map((p) => p.pagina.close().catch(() => undefined)));
  }

  private async intento(html: string): Promise<Buffer> {
    const pestana = await this.tomar();
    let temporizador: NodeJS.Timeout | undefined;
    const limite = new Promise<never>((_, rechazar) => {
      temporizador = setTimeout(() => rechazar(new TiempoAgotado()), this.tiempoLimiteMs);
    });
    const vigilancia = pestana.vigilar();
    try {
      const pdf = await Promise.race([imprimir(pestana, html), vigilancia.muerte, limite]);
      this.tiemposAgotados = 0;
      this.devolver(pestana);
      return pdf;
    } catch (e) {
      this.descartar(pestana);
      if (e instanceof TiempoAgotado) {
        if (++this.tiemposAgotados >= TIEMPOS_AGOTADOS_PARA_REINICIAR) {
          this.tiemposAgotados = 0;
          void this.navegador.reiniciar(pestana.navegador);
        }
        throw new ErrorRenderizado(`El PDF no se generó en ${this.tiempoLimiteMs} ms`, e);
      }
      const caida =
        e instanceof ErrorPaginaCaida || !pestana.navegador.connected || pestana.pagina.isClosed();
      throw new ErrorRenderizado(
        `No se pudo generar el PDF: ${(e as Error).message}`,
        caida && !(e instanceof ErrorPaginaCaida) ? new ErrorPaginaCaida((e as Error).message) : e,
      );
    } finally {
      vigilancia.soltar();
      clearTimeout(temporizador);
    }
  }

  private async tomar(): Promise<Pestana> {
    if (this.cerrado) throw new ErrorRenderizado('Renderizador cerrado');
    for (let p = this.libres.pop(); p; p = this.libres.pop()) {
      if (p.navegador.connected && !p.pagina.isClosed()) return p;
      this.abiertas--;
      p.soltar();
    }
    if (this.abiertas < this.maximo) return this.abrirContada();
    const pestana = await new Promise<Pestana | Error>((resolver) => this.esperando.push(resolver));
    if (pestana instanceof Error) throw pestana;
    return pestana;
  }

  private devolver(pestana: Pestana): void {
    if (++pestana.usos >= USOS_POR_PAGINA || this.cerrado) return this.descartar(pestana);
    const espera = this.esperando.shift();
    if (espera) espera(pestana);
    else this.libres.push(pestana);
  }

  /** Closes a page; a render waiting for one gets a fresh page in its place. */
  private descartar(pestana: Pestana): void {
    this.abiertas--;
    pestana.soltar();
    pestana.pagina.close().catch(() => undefined);
    const espera = this.esperando.shift();
    if (espera) this.abrirContada().then(espera, espera);
  }

  private async abrirContada(): Promise<Pestana> {
    this.abiertas++;
    try {
      return await this.abrir();
    } catch (e) {
      this.abiertas--;
      throw new ErrorRenderizado(`No se pudo abrir una página de Chromium: ${(e as Error).message}`, e);
    }
  }

  private async abrir(): Promise<Pestana> {
    const navegador = await this.navegador.navegador();
    let pagina: Page;
    try {
      pagina = await navegador.newPage();
    } catch (e) {
      // A browser that died before its disconnection was noticed: retriable like any crash.
      if (!navegador.connected) throw new ErrorPaginaCaida((e as Error).message);
      throw e;
    }
    // A death is kept (a page may die between renders) and told to the render under way, if any.
    let caida: ErrorPaginaCaida | undefined;
    const avisos = new Set<(e: ErrorPaginaCaida) => void>();
    const morir = (e: ErrorPaginaCaida) => {
      caida ??= e;
      for (const avisar of avisos) avisar(e);
      avisos.clear();
    };
    pagina.once('error', (e) => morir(new ErrorPaginaCaida(e.message)));
    pagina.once('close', () => morir(new ErrorPaginaCaida('página cerrada')));
    const alDesconectar = () => morir(new ErrorPaginaCaida('Chromium se desconectó'));
    navegador.once('disconnected', alDesconectar);
    const soltar = () => void navegador.off('disconnected', alDesconectar);
    const vigilar = () => {
      let avisar: (e: ErrorPaginaCaida) => void = () => undefined;
      const muerte = new Promise<never>((_, rechazar) => {
        avisar = rechazar;
      });
      muerte.catch(() => undefined); // observed by the race only
      if (caida) avisar(caida);
      else avisos.add(avisar);
      return { muerte, soltar: () => void avisos.delete(avisar) };
    };
    try {
      // The documents carry no scripts; disabling them also shuts out any that slipped in.
      await pagina.setJavaScriptEnabled(false);
      const cdp = await pagina.createCDPSession();
      const { frameTree } = await cdp.send('Page.getFrameTree');
      return { pagina, cdp, navegador, frameId: frameTree.frame.id, vigilar, soltar, usos: 0 };
    } catch (e) {
      soltar();
      await pagina.close().catch(() => undefined);
      throw e;
    }
  }
}

class ErrorPaginaCaida extends Error {
  constructor(detalle: string) {
    super(`La página de Chromium dejó de funcionar: ${detalle}`);
  }
}

class TiempoAgotado extends Error {}

/**
 * Two CDP calls: one replaces the document (no navigation and no load wait are needed, the HTML has no
 * external resources), one prints it with the base64 in the reply instead of a stream read in chunks.
 */
async function imprimir(p: Pestana, html: string): Promise<Buffer> {
  await p.cdp.send('Page.setDocumentContent', { frameId: p.frameId, html });
  const { data } = await p.cdp.send('Page.printToPDF', {
    printBackground: true,
    preferCSSPageSize: true,
    // Letter, used only if a document lacks an @page size.
    paperWidth: 8.5,
    paperHeight: 11,
    marginTop: 0,
    marginBottom: 0,
    marginLeft: 0,
    marginRight: 0,
    // Tagging and outline cost time and add nothing to an invoice.
    generateTaggedPDF: false,
    generateDocumentOutline: false,
    transferMode: 'ReturnAsBase64',
  });
  return Buffer.from(data, 'base64');
}
