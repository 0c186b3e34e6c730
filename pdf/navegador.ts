import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { delimiter, join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/** Niceness of the browser process and its renderers (0 normal, 19 lowest). */
const PRIORIDAD_CHROMIUM = 10;

// The headless shell first: it prints a PDF in-process, while full Chromium's headless mode launches a
// print-compositor process for every document (measured: ~45 vs ~200 ms of CPU per invoice PDF).
const NOMBRES = ['chromium-headless-shell', 'chromium', 'chromium-browser', 'google-chrome'];

/** Debian's chromium-headless-shell, Google's chrome-headless-shell. */
export const esShellSinInterfaz = (ejecutable: string): boolean => /headless[-_]shell$/.test(ejecutable);

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

/**
 * Renices every process of Chromium's process group (puppeteer makes the launched process its leader).
 * The launched process alone is not enough: Debian's /usr/bin wrappers run Chromium as a child instead of
 * exec'ing it. Renderers forked later from the zygotes inherit the value.
 */
function bajarPrioridad(grupo: number, prioridad: number): void {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^[0-9]+$/.test(d));
  } catch {
    pids = [String(grupo)]; // no procfs: the leader at least
  }
  for (const pid of pids) {
    try {
      // Fields after "(comm) ": state ppid pgrp …
      const pgrp = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()?.split(' ')[2]);
      if (pid === String(grupo) || pgrp === grupo) setPriority(Number(pid), prioridad);
    } catch {
      // Gone meanwhile, or not permitted here: that process renders at normal priority.
    }
  }
}

/** One Chromium kept warm for the whole process: launching costs far more than a render. */
export class Navegador {
  private lanzando?: Promise<Browser>;

  constructor(private readonly ejecutable?: string) {}

  async navegador(): Promise<Browser> {
    const visto = this.lanzando;
    if (visto) {
      const b = await visto.catch(() => undefined);
      if (b?.connected) return b;
      // Several callers may find the browser dead at once: only the first relaunches it.
      if (this.lanzando !== visto) return this.navegador();
    }
    const ejecutable = localizarChromium(this.ejecutable);
    this.lanzando = puppeteer
      .launch({
        executablePath: ejecutable,
        args: ARGUMENTOS,
        headless: esShellSinInterfaz(ejecutable) ? 'shell' : true,
        // DevTools over a pipe instead of a WebSocket: when this process dies, even by SIGKILL, the pipe
        // closes and Chromium exits with it instead of living on as an orphan.
        pipe: true,
      })
      .then((b) => {
        // PDFs can wait; stamping cannot: Chromium (and the renderers it forks) yields the CPU first.
        const pid = b.process()?.pid;
        if (pid) bajarPrioridad(pid, PRIORIDAD_CHROMIUM);
        return b;
      });
    return this.lanzando;
  }

  /**
   * Kills a browser that stopped answering so that the next `navegador()` launches a new one. Given the
   * browser the caller saw fail, does nothing if another caller already replaced it.
   */
  async reiniciar(visto?: Browser): Promise<void> {
    const actual = await this.lanzando?.catch(() => undefined);
    if (visto && actual !== visto) return;
    this.lanzando = undefined;
    // close() goes through the DevTools connection, which is exactly what may be hung. Puppeteer starts
    // Chromium as a process group leader, and Debian's wrappers do not exec: kill the whole group.
    const pid = actual?.process()?.pid;
    if (pid) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await actual?.close().catch(() => undefined);
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
