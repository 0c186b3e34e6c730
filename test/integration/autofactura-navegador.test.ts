import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Browser, Page } from 'puppeteer-core';
import type { Esquema } from '../../contrato';
import { raizProyecto } from '../../config/rutas';
import { crearLogger } from '../../log/logger';
import { Navegador } from '../../pdf/navegador';
import { clienteHttp } from '../support/cliente-http';
import { validarRespuesta } from '../support/contrato';
import { cuentaLista, esperar } from '../support/facturas';
import { arrancarMailpit, type MailpitPrueba } from '../support/mailpit';
import { iniciarPila, type Pila } from '../support/pila';

type Recibo = Esquema<'Recibo'>;

/**
 * The self-invoicing portal in a real browser (Debian's Chromium through puppeteer-core), as a buyer uses it:
 * the QR's address, the receipt, the form by keyboard with the server checking as they type, the stamped CFDI
 * downloaded and emailed (Mailpit); a wrong key, an RFC in the wrong format, a use the regime does not allow, a
 * double submit, a phone's width. CAPTURAS_AUTOFACTURA=1 also writes the README's screenshots to capturas/.
 */
describe('portal de autofacturación en Chromium', () => {
  let mailpit: MailpitPrueba;
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  let navegador: Navegador;
  let browser: Browser;
  const registro: string[] = [];
  const claves: string[] = [];
  const descargas = mkdtempSync(join(tmpdir(), 'autofactura-descargas-'));
  const CORREO = `maria.${randomBytes(3).toString('hex')}@comprador.example.mx`;
  const COMPRADOR = {
    rfc: 'MASO451221PM4',
    nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
    regimen_fiscal: '612',
    domicilio_fiscal: '80290',
    uso_cfdi: 'G03',
  };

  beforeAll(async () => {
    const logger = crearLogger(
      'prueba',
      'info',
      new Writable({
        write(trozo, _c, listo) {
          registro.push(String(trozo));
          listo();
        },
      }),
    );
    [mailpit, navegador] = [await arrancarMailpit(), new Navegador('/usr/bin/chromium')];
    [pila, browser] = await Promise.all([
      iniciarPila({
        logger,
        correo: { smtpUrl: mailpit.smtpUrl },
        // X-Forwarded-For from loopback names a client: the 429 check below uses an address of its own.
        proxiesConfiables: ['loopback'],
        autofactura: { porDireccion: { porSegundo: 20, rafaga: 200 }, clavesFallidas: 3 },
      }),
      navegador.navegador(),
    ]);
    // The organization's logo, drawn by the browser itself: a PNG as an integrator would upload it.
    const dibujar = async () => {
      const dibujo = await browser.newPage();
      await dibujo.setContent(
        '<div id="l" style="width:96px;height:96px;border-radius:18px;background:#0b6e4f;color:#fff;font:700 40px sans-serif;display:flex;align-items:center;justify-content:center">EK</div>',
      );
      const imagen = await (await dibujo.$('#l'))!.screenshot({ type: 'png', omitBackground: true });
      await dibujo.close();
      return new Uint8Array(imagen);
    };
    let png: Uint8Array<ArrayBuffer>;
    [c, png] = await Promise.all([cuentaLista(pila), dibujar()]);
    const subida = await fetch(`${pila.url}/v1/organizaciones/${c.org}/logo`, {
      method: 'PUT',
      headers: {
        authorization: `Basic ${Buffer.from(`${c.secreto}:`).toString('base64')}`,
        'content-type': 'image/png',
      },
      body: png,
    });
    expect(subida.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await navegador?.cerrar();
    await pila?.detener();
    await mailpit?.detener();
    rmSync(descargas, { recursive: true, force: true });
  });

  /** A receipt whose concept no other file stamps (the sandbox PAC must never see two identical CFDIs). */
  async function nuevoRecibo(): Promise<Recibo> {
    const r = await c.http.post('/v1/recibos', {
      organizacion: c.org,
      forma_pago: '04',
      folio: `T-${randomBytes(3).toString('hex').toUpperCase()}`,
      sucursal: 'Centro',
      conceptos: [
        { producto: c.prod, cantidad: '1.5' },
        {
          cantidad: '2',
          clave_prod_serv: '50192100',
          clave_unidad: 'H87',
          descripcion: `Torta de milanesa ${randomBytes(2).toString('hex')}`,
          valor_unitario: '45.50',
          objeto_imp: '02',
          impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
        },
      ],
    });
    expect(r.status).toBe(201);
    claves.push(r.body.clave);
    return r.body as Recibo;
  }

  /** The QR's address on this stack (AUTOFACTURA_URL_BASE names the public origin). */
  const urlDe = (r: Recibo) => `${pila.url}/autofactura?clave=${encodeURIComponent(r.clave!)}`;

  async function pagina(ancho = 1280, alto = 800): Promise<Page> {
    const p = await browser.newPage();
    await p.setViewport({ width: ancho, height: alto });
    const fallas: string[] = [];
    p.on('pageerror', (e) => fallas.push(String(e)));
    // A CSP violation or a script error would show here; none is expected. Chromium also reports each 4xx
    // answer the page reads on purpose (a wrong key, a check as the buyer types): those are not failures.
    p.on('console', (m) => {
      if (
        m.type() === 'error' &&
        !/^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())
      )
        fallas.push(m.text());
    });
    // Every JSON answer the page gets is what openapi.yaml promises, as for the API's other clients.
    p.on('response', (r) => {
      const url = new URL(r.url());
      if (!url.pathname.startsWith('/autofactura/') || !(r.headers()['content-type'] ?? '').includes('json'))
        return;
      r.json().then(
        (cuerpo) => {
          try {
            validarRespuesta(r.request().method(), url.pathname, r.status(), cuerpo);
          } catch (e) {
            fallas.push((e as Error).message);
          }
        },
        () => undefined,
      );
    });
    (p as unknown as { fallas: string[] }).fallas = fallas;
    return p;
  }
  const fallasDe = (p: Page) => (p as unknown as { fallas: string[] }).fallas;

  const visible = (p: Page, id: string) =>
    p.waitForFunction((x) => !document.getElementById(x)!.closest('[hidden]'), { timeout: 15_000 }, id);
  const texto = (p: Page, id: string) => p.$eval(`#${id}`, (e) => e.textContent!.trim());
  const activo = (p: Page) => p.evaluate(() => document.activeElement?.id ?? '');
  /** The message shown under a field, once it is there (and matches `patron`, when given). */
  const errorDe = (p: Page, id: string, patron = '') =>
    p
      .waitForFunction(
        (x, pat) => {
          const e = document.getElementById(`error-${x}`)!;
          return !e.hidden && new RegExp(pat).test(e.textContent!) && e.textContent;
        },
        { timeout: 15_000 },
        id,
        patron,
      )
      .then((h) => h.jsonValue() as Promise<string>);

  /** Tab (or Shift+Tab) until `id` has the focus, in the page's own order; fails if it never comes. */
  async function tabHasta(p: Page, id: string, atras = false): Promise<void> {
    for (let i = 0; i < 15; i++) {
      if ((await activo(p)) === id) return;
      if (atras) await p.keyboard.down('Shift');
      await p.keyboard.press('Tab');
      if (atras) await p.keyboard.up('Shift');
    }
    throw new Error(`el foco nunca llegó a #${id} (está en #${await activo(p)})`);
  }

  /** A closed <select> by keyboard: arrows until the option whose value is `valor`. */
  async function elegir(p: Page, id: string, valor: string, atras = false): Promise<void> {
    await tabHasta(p, id, atras);
    await p.keyboard.press('Home');
    for (let i = 0; i < 40 && (await p.$eval(`#${id}`, (s) => (s as HTMLSelectElement).value)) !== valor; i++)
      await p.keyboard.press('ArrowDown');
    expect(await p.$eval(`#${id}`, (s) => (s as HTMLSelectElement).value)).toBe(valor);
  }

  const opciones = (p: Page, id: string) =>
    p.$$eval(`#${id} option`, (os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));

  /** The buyer's data typed field by field, moving with Tab only. */
  async function llenar(p: Page, d: typeof COMPRADOR & { correo?: string }) {
    await tabHasta(p, 'rfc');
    await p.keyboard.type(d.rfc.toLowerCase());
    expect(await p.$eval('#rfc', (e) => (e as HTMLInputElement).value)).toBe(d.rfc);
    await p.keyboard.press('Tab');
    expect(await activo(p)).toBe('nombre');
    await p.keyboard.type(d.nombre);
    // The regimes offered follow the RFC's persona type, from the server.
    await p.waitForFunction(() => !document.querySelector('#regimen_fiscal option[value="601"]'));
    await elegir(p, 'regimen_fiscal', d.regimen_fiscal);
    await p.keyboard.press('Tab');
    expect(await activo(p)).toBe('domicilio_fiscal');
    await p.keyboard.type(d.domicilio_fiscal);
    // The uses offered follow the regime: CN01 (payroll) only with 605.
    await p.waitForFunction(
      (r) => {
        const cn01 = !!document.querySelector('#uso_cfdi option[value="CN01"]');
        return r === '605' ? cn01 : !cn01;
      },
      {},
      d.regimen_fiscal,
    );
    await elegir(p, 'uso_cfdi', d.uso_cfdi);
    if (d.correo) {
      await p.keyboard.press('Tab');
      expect(await activo(p)).toBe('correo');
      await p.keyboard.type(d.correo);
    }
  }

  async function esperarArchivo(extension: string): Promise<string> {
    return esperar(async () => {
      const listo = readdirSync(descargas).find((n) => n.endsWith(`.${extension}`));
      return listo ? join(descargas, listo) : undefined;
    }, 20_000);
  }

  const capturas = process.env.CAPTURAS_AUTOFACTURA === '1';
  const captura = async (p: Page, nombre: string) => {
    if (!capturas) return;
    const dir = join(raizProyecto(), 'capturas');
    mkdirSync(dir, { recursive: true });
    await p.screenshot({ path: join(dir, nombre) as `${string}.png`, fullPage: true });
  };

  it('del QR a la factura timbrada solo con teclado: recibo, datos revisados al escribir, XML, PDF y correo', async () => {
    const recibo = await nuevoRecibo();
    const p = await pagina();
    const cdp = await browser.target().createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: descargas });

    const r = await p.goto(urlDe(recibo));
    expect(r!.headers()).toMatchObject({
      'content-security-policy': expect.stringContaining("script-src 'self'"),
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    });
    await visible(p, 'paso-datos');
    // The key left the address bar (and this history entry) as soon as the page read it.
    expect(await p.evaluate(() => window.location.href)).toBe(`${pila.url}/autofactura`);
    expect(await activo(p)).toBe('titulo-recibo');
    expect(await texto(p, 'nombre-emisor')).toBe('ESCUELA KEMPER URGATE');
    expect(
      await p.$eval('#logo', (i) => [(i as HTMLImageElement).naturalWidth > 0, i.getAttribute('alt')]),
    ).toEqual([true, 'Logotipo de ESCUELA KEMPER URGATE']);
    expect(await texto(p, 'r-folio')).toBe(recibo.folio);
    expect(await p.$$eval('#r-conceptos tr', (f) => f.length)).toBe(2);
    expect(await p.$eval('#r-totales .total dd', (e) => e.textContent)).toBe(
      `$${recibo.total.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`,
    );
    expect(await texto(p, 'estado')).toContain('Recibo de ESCUELA KEMPER URGATE');
    await llenar(p, { ...COMPRADOR, correo: CORREO });
    // Enter in the last field submits; the button is disabled while the invoice is made.
    await p.keyboard.press('Enter');
    await visible(p, 'paso-factura');
    expect(await activo(p)).toBe('titulo-factura');
    const uuid = await texto(p, 'f-uuid');
    expect(uuid).toMatch(/^[0-9A-F-]{36}$/i);
    expect(await texto(p, 'f-receptor')).toBe(`${COMPRADOR.nombre} (RFC ${COMPRADOR.rfc})`);
    expect(await texto(p, 'f-correo')).toContain(CORREO);
    const factura = (await c.http.get(`/v1/recibos/${recibo.id}`)).body.factura as string;
    expect((await c.http.get(`/v1/facturas/${factura}`)).body).toMatchObject({ uuid, estado: 'timbrada' });
    await captura(p, 'autofactura-escritorio.png');

    // Downloads, by keyboard: the XML is the stamped CFDI byte for byte, the PDF a PDF.
    await tabHasta(p, 'descargar-xml');
    await p.keyboard.press('Enter');
    const xml = readFileSync(await esperarArchivo('xml'), 'utf8');
    expect(xml).toBe((await c.http.get(`/v1/facturas/${factura}/xml`)).body);
    expect(xml).toContain(`UUID="${uuid}"`);
    await p.keyboard.press('Tab');
    expect(await activo(p)).toBe('descargar-pdf');
    await p.keyboard.press('Enter');
    const pdf = readFileSync(await esperarArchivo('pdf'));
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(await texto(p, 'estado')).toMatch(/^Se descargó .+\.pdf\.$/);

    // The email, with the CFDI attached.
    const [m] = await mailpit.esperarMensajes(1, {
      filtro: (x) => x.To.some((t) => t.Address === CORREO),
      ms: 20_000,
    });
    const mensaje = await mailpit.mensaje(m!.ID);
    const adjunto = mensaje.Attachments.find((a) => a.FileName.endsWith('.xml'))!;
    expect(adjunto.FileName).toContain(uuid);
    expect((await mailpit.adjunto(m!.ID, adjunto.PartID)).toString('utf8')).toBe(xml);
    expect(fallasDe(p)).toEqual([]);
    await p.close();
  }, 60_000);

  it('una clave equivocada: el mismo mensaje que una inexistente, junto al campo, anunciado; el recibo no aparece', async () => {
    const p = await pagina();
    await p.goto(`${pila.url}/autofactura`);
    expect(await activo(p)).toBe('clave');
    await p.keyboard.type('7k3m q9xd 2hva rt5b');
    await p.keyboard.press('Enter');
    const mensaje = await errorDe(p, 'clave');
    expect(mensaje).toMatch(/^No encontramos un recibo vigente con esa clave/);
    expect(
      await p.$eval('#clave', (e) => [e.getAttribute('aria-invalid'), e.getAttribute('aria-describedby')]),
    ).toEqual(['true', 'ayuda-clave error-clave']);
    expect(await texto(p, 'estado')).toBe(mensaje);
    expect(await p.$eval('#paso-recibo', (e) => (e as HTMLElement).hidden)).toBe(true);
    expect(fallasDe(p)).toEqual([]);
    await p.close();
  });

  /** The page the next two scenarios share: a buyer who mistypes, is corrected, then submits twice. */
  let formulario: { p: Page; recibo: Recibo };

  it('RFC con formato equivocado y uso que el régimen no admite: los mensajes de la API mientras escribe', async () => {
    const recibo = await nuevoRecibo();
    const p = await pagina();
    formulario = { p, recibo };
    await p.goto(urlDe(recibo));
    await visible(p, 'paso-datos');
    await tabHasta(p, 'rfc');
    // A month 13 in the RFC's date: the message shows after a pause, no submit, tied to the field.
    await p.keyboard.type('MASO451321PM4');
    expect(await errorDe(p, 'rfc')).toBe(
      'La fecha del RFC (451321) no es una fecha válida (formato AAMMDD).',
    );
    expect(await p.$eval('#rfc', (e) => e.getAttribute('aria-describedby'))).toBe('ayuda-rfc error-rfc');
    for (let i = 0; i < 13; i++) await p.keyboard.press('Backspace');
    await p.keyboard.type('MAS0451221PM4');
    expect(await errorDe(p, 'rfc', '^El campo rfc')).toBe(
      'El campo rfc no tiene el formato de un RFC: 3 letras (persona moral) o 4 (persona física), la fecha AAMMDD y 3 caracteres de homoclave, en mayúsculas.',
    );
    for (let i = 0; i < 13; i++) await p.keyboard.press('Backspace');
    await p.keyboard.type(COMPRADOR.rfc);
    await p.waitForFunction(() => document.getElementById('error-rfc')!.hidden);

    // 605 (salaries) does not offer G03; choosing 605 after G03 keeps it, marked, with the API's message.
    await p.keyboard.press('Tab');
    await p.keyboard.type(COMPRADOR.nombre);
    await elegir(p, 'regimen_fiscal', '612');
    await p.keyboard.press('Tab');
    await p.keyboard.type(COMPRADOR.domicilio_fiscal);
    await p.waitForFunction(() => !document.querySelector('#uso_cfdi option[value="CN01"]'));
    await elegir(p, 'uso_cfdi', 'G03');
    await elegir(p, 'regimen_fiscal', '605', true);
    const mensaje = await errorDe(p, 'uso_cfdi');
    expect(mensaje).toMatch(
      /^El uso de CFDI G03 \(Gastos en general\.\) no es compatible con el régimen fiscal 605/,
    );
    const api = await clienteHttp(pila.url).post('/autofactura/facturar', {
      clave: recibo.clave,
      ...COMPRADOR,
      regimen_fiscal: '605',
    });
    expect([api.status, api.body.error.codigo, api.body.error.mensaje]).toEqual([
      422,
      'uso_cfdi_incompatible',
      mensaje,
    ]);
    expect(await opciones(p, 'uso_cfdi')).toEqual(expect.arrayContaining(['CN01', 'D01', 'S01']));
    expect(await p.$eval('#uso_cfdi option[value="G03"]', (o) => o.textContent)).toBe('G03 (no permitido)');
    expect(await p.$eval('#uso_cfdi', (e) => e.getAttribute('aria-invalid'))).toBe('true');
    expect(fallasDe(p)).toEqual([]);
  }, 30_000);

  it('doble envío: el botón se deshabilita; y dos envíos simultáneos dan una sola factura', async () => {
    const { p, recibo } = formulario;
    const facturas = async () =>
      (await c.http.get(`/v1/facturas?organizacion=${c.org}&paginacion.limite=100`)).body.datos
        .length as number;
    const antes = await facturas();
    // The buyer goes back to their regime: G03 is allowed again.
    await elegir(p, 'regimen_fiscal', '612');
    await p.waitForFunction(() => document.getElementById('error-uso_cfdi')!.hidden);
    const otro = await nuevoRecibo();
    const envios: string[] = [];
    p.on('request', (q) => {
      if (q.url().endsWith('/autofactura/facturar') && q.postData()?.includes(recibo.clave!))
        envios.push(q.method());
    });
    // Enter twice on the button, then a click: one request.
    await tabHasta(p, 'facturar');
    await Promise.all([p.keyboard.press('Enter'), p.keyboard.press('Enter')]);
    expect(await p.$eval('#facturar', (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    await p.click('#facturar').catch(() => undefined);
    // Meanwhile, the server's own guarantee whatever a page does: two requests at once for another receipt.
    const simultaneos = p.evaluate(
      async (datos) => {
        const pedir = () =>
          fetch('/autofactura/facturar', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(datos),
          }).then(async (r) => [r.status, (await r.json()).uuid]);
        return Promise.all([pedir(), pedir()]);
      },
      { clave: otro.clave, ...COMPRADOR },
    );
    await visible(p, 'paso-factura');
    const estados = await simultaneos;
    expect(envios).toEqual(['POST']);
    expect(estados.map((e) => e[0]).sort()).toEqual([200, 201]);
    expect(estados[0]![1]).toBe(estados[1]![1]);
    // One invoice per receipt: the page's and the two requests'.
    expect(await facturas()).toBe(antes + 2);
    expect(fallasDe(p)).toEqual([]);
    await p.close();
  }, 30_000);

  it('a lo ancho de un teléfono (360 y 390 px) no hay desplazamiento horizontal', async () => {
    const recibo = await nuevoRecibo();
    const p = await pagina(360, 740);
    await p.goto(urlDe(recibo));
    await visible(p, 'paso-datos');
    const sinDesborde = () =>
      p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 0.5);
    expect(await sinDesborde()).toBe(true);
    await tabHasta(p, 'rfc');
    await p.keyboard.type('MAS0451221PM4');
    await errorDe(p, 'rfc');
    expect(await sinDesborde()).toBe(true);
    await p.setViewport({ width: 390, height: 844 });
    expect(await sinDesborde()).toBe(true);
    await captura(p, 'autofactura-telefono.png');
    expect(fallasDe(p)).toEqual([]);
    await p.close();
  });

  it('sin navegador: claves fallidas por dirección dan 429 con Retry-After, también a una clave válida', async () => {
    const recibo = await nuevoRecibo();
    const desde = (ip: string) => ({ 'X-Forwarded-For': ip });
    const http = clienteHttp(pila.url);
    for (const clave of ['no-es-clave', '0000-0000-0000-0000', 'ZZZZ-ZZZZ-ZZZZ-ZZZZ']) {
      const r = await http.post('/autofactura/recibo', { clave }, desde('203.0.113.9'));
      expect([r.status, r.body.error.codigo]).toEqual([404, 'clave_no_valida']);
    }
    const bloqueada = await http.post('/autofactura/recibo', { clave: recibo.clave }, desde('203.0.113.9'));
    expect([bloqueada.status, bloqueada.body.error.codigo]).toEqual([429, 'demasiadas_claves_invalidas']);
    expect(Number(bloqueada.headers.get('retry-after'))).toBeGreaterThan(0);
    const otra = await http.post('/autofactura/recibo', { clave: recibo.clave }, desde('203.0.113.10'));
    expect([otra.status, otra.body.estado]).toEqual([200, 'abierto']);
  });

  it('ninguna clave quedó en el registro de la API ni en las historias de Temporal', async () => {
    expect(claves.length).toBeGreaterThan(3);
    const todo = registro.join('');
    expect(todo).toContain('"ruta":"/autofactura"');
    for (const clave of claves) {
      expect(todo).not.toContain(clave);
      expect(todo).not.toContain(clave.replace(/-/g, ''));
    }
    const timbrados = await pila.cliente.workflow.list({ query: `TaskQueue = "${pila.taskQueue}"` });
    let historias = 0;
    // Payloads are bytes: read as text, as the key would be if any input or result carried it.
    const comoTexto = (_k: string, v: unknown) =>
      v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v;
    for await (const w of timbrados) {
      const historia = await pila.cliente.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      const h = JSON.stringify(historia, comoTexto);
      historias += 1;
      for (const clave of claves) expect(h).not.toContain(clave);
    }
    expect(historias).toBeGreaterThan(2);
  });

  it('las capturas del README existen cuando se piden', () => {
    if (!capturas) return;
    for (const n of ['autofactura-escritorio.png', 'autofactura-telefono.png'])
      expect(existsSync(join(raizProyecto(), 'capturas', n))).toBe(true);
  });
});
