import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { cuentaLista, exigirPilaSana, facturaNueva, pedir } from '../bench/pila-http';
import { cargarConfigSinSecretos } from '../config/config';
import { raizProyecto } from '../config/rutas';
import { crearKnex } from '../db/conexion';
import { esShellSinInterfaz, localizarChromium } from '../pdf/navegador';
import { FILTRO_TIMBRADOS_ATORADOS } from '../temporal/consultas-ops';
import { conectarCliente } from '../temporal/conexion';

/**
 * `npm run capturas:ui [-- carpeta]`, with `make up` running: makes a stamping get stuck (a new account
 * invoices while the sandbox PAC is in a global outage) and screenshots the Temporal UI with headless
 * Chromium: the workflow list under the ops filter (temporal/consultas-ops.ts), the stuck workflow's history,
 * its pending activity (attempts, last failure) and its search attributes. Then ends the outage and waits
 * for the stamping to complete by itself. The README's Ops section describes each picture.
 */

const config = cargarConfigSinSecretos();
const ui = config.temporal.uiUrl.replace(/\/$/, '');
const namespace = config.temporal.namespace;
const ANCHO = 1600;
const ALTO = 1000;
// The UI scrolls inside its own panel (a full-page picture adds nothing): the history page gets a taller
// window so its event list fits below the timeline.
const ALTO_HISTORIA = 1700;
// Attempts of the PAC activity before the pictures: enough to show the backoff, a few seconds with the 2 s start.
const INTENTOS_MINIMOS = 3;
// Safety net: if this script dies before ending the outage, the sandbox recovers by itself.
const DURACION_MAXIMA_FALLA_MS = 10 * 60_000;

/** The sandbox's global fault switch: operator-only (loopback here, or TOKEN_OPERADOR). */
async function fallaGlobal(modo: 'caido' | 'normal'): Promise<void> {
  const r = await fetch(`${config.pac.sandboxUrl}/sandbox/fallas`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(config.tokenOperador ? { authorization: `Bearer ${config.tokenOperador}` } : {}),
    },
    body: JSON.stringify(modo === 'normal' ? { modo } : { modo, duracion_ms: DURACION_MAXIMA_FALLA_MS }),
  });
  if (!r.ok) {
    throw new Error(
      `POST ${config.pac.sandboxUrl}/sandbox/fallas ${modo}: ${r.status} ${await r.text()} (es del operador: ejecute en el equipo del PAC sandbox o defina TOKEN_OPERADOR)`,
    );
  }
}

async function esperar<T>(que: string, ms: number, fn: () => Promise<T | undefined>): Promise<T> {
  const limite = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > limite) throw new Error(`tiempo agotado (${ms / 1000} s) esperando ${que}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A stuck stamping: an invoice of a new account created during the outage, its PAC activity retrying. */
async function timbradoAtorado(
  cliente: Client,
): Promise<{ factura: string; workflowId: string; runId: string }> {
  const db = crearKnex(config.databaseUrl);
  const { llave, org } = await cuentaLista(db, `Capturas UI ${new Date().toISOString()}`).finally(() =>
    db.destroy(),
  );
  // The API waits TIMBRADO_ESPERA_MS for the PAC, then answers 202: the stamping goes on in Temporal.
  const r = await pedir('POST', '/v1/facturas', llave, facturaNueva(org));
  if (r.status !== 202)
    throw new Error(`POST /v1/facturas: se esperaba 202, llegó ${r.status} ${JSON.stringify(r.body)}`);
  const factura = r.body.id as string;
  const workflowId = `timbrado:${factura}`;
  const handle = cliente.workflow.getHandle(workflowId);
  const runId = await esperar(`${INTENTOS_MINIMOS} intentos del PAC en ${workflowId}`, 120_000, async () => {
    const d = await handle.describe();
    const pendiente = d.raw.pendingActivities?.find(
      (a) => (a.attempt ?? 0) >= INTENTOS_MINIMOS && a.lastFailure,
    );
    return pendiente ? d.runId : undefined;
  });
  // The list reads visibility, which lags the workflow a little.
  const consulta = `${FILTRO_TIMBRADOS_ATORADOS} AND WorkflowId="${workflowId}"`;
  await esperar('el workflow en la lista filtrada', 30_000, async () => {
    for await (const _w of cliente.workflow.list({ query: consulta })) return true;
    return undefined;
  });
  return { factura, workflowId, runId };
}

/** Opens `url` and waits until the page shows every text of `textos` (the UI loads its data after the page). */
async function abrir(pagina: Page, url: string, textos: string[]): Promise<void> {
  await pagina.goto(url, { waitUntil: 'domcontentloaded' });
  await pagina.waitForFunction(
    (t: string[]) => t.every((x) => document.body.innerText.toLowerCase().includes(x.toLowerCase())),
    { timeout: 30_000, polling: 250 },
    textos,
  );
  // Let the fonts and any row animation settle before the picture.
  await pagina.evaluate(() => document.fonts.ready.then(() => undefined));
  await quieta(pagina);
}

/** Until no finite CSS animation or transition runs (a panel opening): the picture then shows where it ends. */
async function quieta(pagina: Page): Promise<void> {
  await pagina.waitForFunction(
    () =>
      document
        .getAnimations()
        .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
    { timeout: 5000, polling: 'raf' },
  );
}

/**
 * Clicks a control of the UI that only makes the picture clearer; one missing in another UI version is
 * skipped, not fatal. `luego` waits for what the click shows.
 */
async function clicOpcional(pagina: Page, selector: string, luego?: () => Promise<unknown>): Promise<void> {
  const control = await pagina.$(selector);
  if (!control) {
    console.error(`capturas:ui: la interfaz no tiene ${selector}; se omite`);
    return;
  }
  await control.click();
  await luego?.().catch(() => console.error(`capturas:ui: ${selector} no mostró lo esperado; se sigue`));
  await quieta(pagina);
}

async function capturar(
  navegador: Browser,
  carpeta: string,
  w: { workflowId: string; runId: string },
): Promise<string[]> {
  const pagina = await navegador.newPage();
  await pagina.setViewport({ width: ANCHO, height: ALTO });
  const archivos: string[] = [];
  const foto = async (nombre: `${string}.png`) => {
    const ruta = join(carpeta, nombre) as `${string}.png`;
    await pagina.screenshot({ path: ruta });
    archivos.push(ruta);
  };
  const base = `${ui}/namespaces/${encodeURIComponent(namespace)}/workflows`;

  await abrir(pagina, `${base}?query=${encodeURIComponent(FILTRO_TIMBRADOS_ATORADOS)}`, [w.workflowId]);
  // The filter as typed rather than as chips, and the table's columns instead of the saved views.
  await clicOpcional(pagina, '[data-testid="toggle-manual-query"]', () =>
    pagina.waitForFunction(
      (f: string) =>
        Array.from(document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')).some(
          (e) => e.value === f,
        ),
      { timeout: 5000 },
      FILTRO_TIMBRADOS_ATORADOS,
    ),
  );
  await clicOpcional(pagina, 'button[aria-label="Collapse saved views"]');
  await foto('1-lista-filtro-ops.png');

  const flujo = `${base}/${encodeURIComponent(w.workflowId)}/${encodeURIComponent(w.runId)}`;
  await pagina.setViewport({ width: ANCHO, height: ALTO_HISTORIA });
  // The header comes first; the input, the timeline and the event table only once the history is read.
  await abrir(pagina, `${flujo}/history`, [
    w.workflowId,
    'facturaId',
    'Workflow Execution Started',
    'Pending Activity',
  ]);
  await foto('2-workflow-atorado.png');
  await pagina.setViewport({ width: ANCHO, height: ALTO });

  await abrir(pagina, `${flujo}/pending-activities`, ['Attempt', 'Last Failure']);
  await foto('3-actividad-pendiente.png');

  await abrir(pagina, `${flujo}/search-attributes`, ['EstadoFactura', 'timbrando']);
  await foto('4-atributos-busqueda.png');
  await pagina.close();
  return archivos;
}

async function main() {
  const { positionals } = parseArgs({ allowPositionals: true });
  const carpeta = resolve(raizProyecto(), positionals[0] ?? 'capturas');
  mkdirSync(carpeta, { recursive: true });
  await exigirPilaSana();
  const ui200 = await fetch(ui).then(
    (r) => r.ok,
    () => false,
  );
  if (!ui200) throw new Error(`la interfaz de Temporal no responde en ${ui}: ejecute make up primero`);

  const cliente = await conectarCliente({ address: config.temporal.address, namespace });
  const ejecutable = localizarChromium(config.chromiumPath);
  let navegador: Browser | undefined;
  let caida = false;
  const terminarCaida = async () => {
    if (!caida) return;
    caida = false;
    await fallaGlobal('normal');
  };
  process.once('SIGINT', () => void terminarCaida().finally(() => process.exit(130)));
  try {
    await fallaGlobal('caido');
    caida = true;
    const w = await timbradoAtorado(cliente);
    navegador = await puppeteer.launch({
      executablePath: ejecutable,
      headless: esShellSinInterfaz(ejecutable) ? 'shell' : true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
    });
    const archivos = await capturar(navegador, carpeta, w);
    await terminarCaida();
    // The next retry (30 s apart at most) stamps it: no stuck stamping is left behind for the next run.
    const resultado = await Promise.race([
      cliente.workflow.getHandle(w.workflowId).result() as Promise<string>,
      new Promise<string>((r) => setTimeout(() => r('sin terminar tras 90 s'), 90_000).unref()),
    ]);
    console.log(JSON.stringify({ factura: w.factura, workflow: w.workflowId, resultado, archivos }, null, 2));
  } finally {
    await terminarCaida();
    await navegador?.close();
    await cliente.connection.close();
  }
}

main().catch((e) => {
  console.error(`capturas:ui: ${(e as Error).message}`);
  process.exit(1);
});
