import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

const NOMBRES = ['chromium', 'chromium-browser', 'google-chrome'];

// The machine's network is closed: without these flags Chromium keeps trying to reach Google's hosts.
const ARGUMENTOS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Finds the Chromium executable: the configured path, else the first known name on PATH. */
export function localizarChromium(configurado?: string, path = process.env.PATH ?? ''): string {
  const candidatos = configurado
    ? [configurado]
    : path.split(delimiter).flatMap((dir) => NOMBRES.map((n) => join(dir, n)));
  for (const c of candidatos) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // next candidate
    }
  }
  throw new Error(
    configurado
      ? `CHROMIUM_PATH=${configurado} no es un ejecutable`
      : 'No se encontró Chromium: instale el paquete de Debian "chromium" (apt-get install chromium)',
  );
}

/** One Chromium kept warm for the whole process: launching costs far more than a render. */
export class Navegador {
  private lanzando?: Promise<Browser>;

  constructor(private readonly ejecutable?: string) {}

  async navegador(): Promise<Browser> {
    if (this.lanzando) {
      const b = await this.lanzando.catch(() => undefined);
      if (b?.connected) return b;
    }
    this.lanzando = puppeteer.launch({
      executablePath: localizarChromium(this.ejecutable),
      args: ARGUMENTOS,
      headless: true,
    });
    return this.lanzando;
  }

  async version(): Promise<string> {
    return (await this.navegador()).version();
  }

  async cerrar(): Promise<void> {
    const b = await this.lanzando?.catch(() => undefined);
    this.lanzando = undefined;
    await b?.close();
  }
}
