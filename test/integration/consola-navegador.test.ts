import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { raizProyecto } from '../../config/rutas';
import { Navegador } from '../../pdf/navegador';
import { fallasPac } from '../support/fallas';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';
import { receptorWebhooks } from '../support/receptor-webhooks';

/**
 * The console as finance and ops use it, in Debian's Chromium: first sign-in and password change, an invoice found
 * by UUID and its story after a PAC outage, a client's statement changing with a payment, a stuck stamping
 * abandoned and a failing delivery retried from the pages, what a role may not do refused by the server, CSRF,
 * lockout, keyboard, labels and a phone's width. CAPTURAS_CONSOLA=1 also writes the README's screenshots.
 * The rules underneath are shown at cheaper tiers (test/unit/consola-*.test.ts, servicios-usuarios, and the
 * repository contract test/repositorios/usuarios).
 */
describe('consola en Chromium', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  let navegador: Navegador;
  let browser: Browser;
  const CAPTURAS = process.env.CAPTURAS_CONSOLA === '1';
  const NUEVA = 'una frase larga de prueba 2026';
  const usuarios: Record<
    'finanzas' | 'operaciones' | 'admin',
    { id: string; correo: string; temporal: string }
  > = {} as never;

  beforeAll(async () => {
    navegador = new Navegador('/usr/bin/chromium');
    [pila, browser] = await Promise.all([
      iniciarPila({
        timbradoEsperaMs: 1500,
        programaEntregasS: [0, 300, 600, 900, 1200],
        graciaDespachoMs: 0,
      }),
      navegador.navegador(),
    ]);
    c = await cuentaLista(pila);
    // Finance's user as an operator makes one (the command prints the one-time password once); the others directly.
    const correoFinanzas = `finanzas.${c.cuentaId.slice(-8)}@empresa.example.mx`;
    const { stdout } = await usuarioCrear(
      '--cuenta',
      c.cuentaId,
      '--correo',
      correoFinanzas,
      '--rol',
      'finanzas',
    );
    const creado = JSON.parse(stdout);
    expect(creado).toMatchObject({ cuenta: c.cuentaId, correo: correoFinanzas, rol: 'finanzas' });
    usuarios.finanzas = { id: creado.id, correo: correoFinanzas, temporal: creado.contrasena_temporal };
    for (const rol of ['operaciones', 'admin'] as const) {
      const correo = `${rol}.${c.cuentaId.slice(-8)}@empresa.example.mx`;
      const { usuario, contrasena } = await pila.servicios.usuarios.crear({
        cuentaId: c.cuentaId,
        correo,
        rol,
      });
      usuarios[rol] = { id: usuario.id, correo, temporal: contrasena };
    }
  }, 60_000);

  afterAll(async () => {
    await fallasPac(pila, 'normal');
    await navegador?.cerrar();
    await pila?.detener();
  });

  const usuarioCrear = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['dist/scripts/usuario-crear.js', ...args], { env: process.env });

  async function nuevaPagina(ancho = 1280): Promise<Page> {
    const ctx = await browser.createBrowserContext();
    const p = await ctx.newPage();
    await p.setViewport({ width: ancho, height: 900 });
    return p;
  }

  /** Signs in by keyboard; the first time, chooses the password the temporary one demands. */
  async function entrar(rol: keyof typeof usuarios, p?: Page, destino = '/consola'): Promise<Page> {
    const page = p ?? (await nuevaPagina());
    const u = usuarios[rol];
    await page.goto(destino === '/consola' ? `${pila.url}/consola/entrar` : `${pila.url}${destino}`);
    await page.type('#correo', u.correo);
    await page.type('#contrasena', u.temporal === '' ? NUEVA : u.temporal);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    if (page.url().endsWith('/consola/contrasena')) {
      expect(await page.$eval('h1', (h) => h.textContent)).toBe('Elija su contraseña');
      await page.type('#actual', u.temporal);
      await page.type('#nueva', NUEVA);
      await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
      expect(await texto(page, '.aviso')).toBe('Su contraseña quedó guardada.');
      u.temporal = '';
    }
    const url = new URL(page.url());
    expect(url.pathname + url.search).toBe(
      destino === '/consola' && url.search ? `/consola${url.search}` : destino,
    );
    return page;
  }

  const texto = (page: Page, sel: string) => page.$eval(sel, (e) => (e as HTMLElement).innerText.trim());

  /** The page's session as a Cookie header, for requests made outside the browser. */
  const cookieDe = async (page: Page) =>
    (await page.browserContext().cookies()).map((k) => `${k.name}=${k.value}`).join('; ');

  /** A console request from outside the page, with its session's cookie and (when asked) its form token. */
  async function publicar(page: Page, ruta: string, campos: Record<string, string>, conCsrf = true) {
    const cookie = await cookieDe(page);
    const csrf = await page.$eval('input[name=_csrf]', (i) => (i as HTMLInputElement).value);
    const body = new URLSearchParams({ ...campos, ...(conCsrf ? { _csrf: csrf } : {}) });
    return fetch(`${pila.url}${ruta}`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    });
  }

  /** Text whose contrast with the background it sits on is under WCAG AA's 4.5:1, on the page shown. */
  const bajoContraste = (page: Page) =>
    page.evaluate(() => {
      const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
      const lum = (c: string) => {
        const [r, g, b] = rgb(c).map((v) => {
          const x = v / 255;
          return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const fondo = (e: Element | null): string => {
        for (; e; e = e.parentElement) {
          const c = getComputedStyle(e).backgroundColor;
          if (rgb(c)[3] !== 0 && c !== 'transparent') return c;
        }
        return 'rgb(255, 255, 255)';
      };
      const conTexto = Array.from(document.querySelectorAll('body *'))
        .filter((e) => Array.from(e.childNodes).some((n) => n.nodeType === 3 && n.textContent!.trim()))
        .filter((e) => (e as HTMLElement).offsetParent !== null);
      const bajos = conTexto
        .map((e) => {
          const [a, b] = [lum(getComputedStyle(e).color), lum(fondo(e))];
          return {
            texto: e.textContent!.trim().slice(0, 30),
            razon: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
          };
        })
        .filter((x) => x.razon < 4.5);
      return { revisados: conTexto.length > 10, bajos };
    });

  async function captura(page: Page, nombre: string) {
    if (!CAPTURAS) return;
    mkdirSync(join(raizProyecto(), 'capturas'), { recursive: true });
    await page.screenshot({ path: join(raizProyecto(), 'capturas', `${nombre}.png`), fullPage: true });
  }

  it('finanzas: primera entrada, busca por UUID la factura timbrada tras una caída del PAC y lee su historia', async () => {
    await fallasPac(pila, 'caido');
    const creada = await c.http.post('/v1/facturas', facturaNueva(c));
    expect(creada.status).toBe(202);
    const id = creada.body.id as string;
    await esperar(async () =>
      (await c.http.get(`/v1/facturas/${id}`)).body.timbrado.intentos >= 2 ? 1 : undefined,
    );
    await fallasPac(pila, 'normal');
    const f = await esperar(async () => {
      const x = (await c.http.get(`/v1/facturas/${id}`)).body;
      return x.estado === 'timbrada' ? x : undefined;
    }, 60_000);

    const page = await entrar('finanzas');
    await page.goto(`${pila.url}/consola/facturas`);
    await page.type('#q', f.uuid.toLowerCase());
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    const filas = await page.$$eval('tbody tr', (t) => t.length);
    expect(filas).toBe(1);
    await Promise.all([page.waitForNavigation(), page.click(`a[href="/consola/facturas/${id}"]`)]);
    const historia = await texto(page, '.linea-tiempo');
    expect(historia).toMatch(/intentos? fallidos? .*el PAC no respondió/i);
    expect(historia).toContain(`Timbrada por el PAC con UUID ${f.uuid}`);
    // Downloads and the Temporal UI's links; finance has no actions on it.
    expect(await page.$$eval('a[download]', (a) => a.map((x) => x.getAttribute('href')))).toEqual([
      `/consola/facturas/${id}/xml`,
      `/consola/facturas/${id}/pdf`,
      `/consola/facturas/${id}/auditoria`,
    ]);
    expect(await page.$eval(`a[href*="workflows/timbrado%3A${id}"]`, (a) => a.textContent)).toContain(
      `timbrado:${id}`,
    );
    await captura(page, 'consola-factura');

    const xml = await fetch(`${pila.url}/consola/facturas/${id}/xml`, {
      headers: {
        cookie: await cookieDe(page),
      },
    });
    expect(xml.status).toBe(200);
    expect(await xml.text()).toContain(f.uuid);

    // What finance may not do is refused by the server, whatever the page shows.
    const accion = await publicar(page, '/consola/acciones', { tipo: 'timbrado', accion: 'abandonar', id });
    expect(accion.status).toBe(403);
    expect(await accion.text()).toContain('Su rol no permite actuar sobre operaciones');
    await page.browserContext().close();
  }, 120_000);

  it('finanzas: el panel grafica lo facturado; el estado de cuenta del cliente cambia con un pago y se exporta en CSV', async () => {
    const ppd = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined }),
    );
    expect(ppd.status).toBe(201);
    const total = ppd.body.total as string;
    const page = await entrar('finanzas');
    // The panel: two charts (named images), their numbers in tables too.
    expect(await page.$$eval('figure.grafica svg[role=img]', (x) => x.length)).toBe(2);
    expect(await texto(page, '.tarjetas')).toMatch(/Facturas timbradas\s*\d+/);
    await captura(page, 'consola-panel');

    const saldo = async () => {
      await page.goto(`${pila.url}/consola/clientes/${c.cli}`);
      return texto(page, 'tbody tr:first-child td:nth-child(4)');
    };
    const antes = await saldo();
    const pago = await c.http.post('/v1/pagos', {
      organizacion: c.org,
      fecha_pago: new Date().toISOString(),
      forma_pago: '03',
      monto: '100.00',
      facturas_pagadas: [{ factura: ppd.body.id, imp_pagado: '100.00' }],
    });
    expect(pago.status).toBe(201);
    const despues = await saldo();
    const pesos = (t: string) => Number(t.replace(/[^\d.]/g, ''));
    expect(Math.round((pesos(antes) - pesos(despues)) * 100)).toBe(10000);
    expect(await page.content()).toContain(
      `$${Number(total).toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
    );
    // The payments' table, the page's last: the instalment with the balance after it.
    const pagosTabla = await page.$$eval('.tabla', (t) => (t.at(-1) as HTMLElement).innerText);
    expect(pagosTabla).toMatch(/\$100\.00 MXN/);
    await captura(page, 'consola-cliente');

    const cookie = await cookieDe(page);
    const csv = await fetch(`${pila.url}/consola/clientes/${c.cli}/estado_de_cuenta.csv`, {
      headers: { cookie },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toMatch(
      /^attachment; filename="estado-de-cuenta-MASO451221PM4-/,
    );
    expect(await csv.text()).toContain(ppd.body.uuid);
    await page.browserContext().close();

    // Ops may read the statement but not export it.
    const ops = await entrar('operaciones');
    const cookieOps = await cookieDe(ops);
    const negado = await fetch(`${pila.url}/consola/clientes/${c.cli}/estado_de_cuenta.csv`, {
      headers: { cookie: cookieOps },
    });
    expect(negado.status).toBe(403);
    await ops.browserContext().close();
  }, 120_000);

  it('operaciones: abandona un timbrado atorado, reintenta una cancelación atorada y una entrega que falla, desde las páginas', async () => {
    const receptor = await receptorWebhooks((n) => (n === 1 ? 500 : 200));
    try {
      const atorada = await c.http.post(
        '/v1/facturas',
        facturaNueva(c, { condiciones_pago: 'SANDBOX:ERROR_500' }),
      );
      expect(atorada.status).toBe(202);
      const wh = await c.http.post('/v1/webhooks', {
        url: receptor.url,
        eventos_suscritos: ['factura.creada'],
      });
      expect(wh.status).toBe(201);
      const borrador = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
      expect(borrador.status).toBe(201);
      const entrega = await esperar(async () => {
        const e = (await c.http.get(`/v1/entregas?estado=pendiente&webhook=${wh.body.id}`)).body.datos[0];
        return e?.intentos.length === 1 ? e : undefined;
      });

      const page = await entrar('operaciones');
      await page.goto(`${pila.url}/consola/pendientes?tipo=timbrado`);
      const fila = `tr:has(a[href="/consola/facturas/${atorada.body.id}"])`;
      await page.waitForSelector(fila);
      expect(await texto(page, `${fila} td:nth-child(6)`)).not.toBe('—');
      await captura(page, 'consola-pendientes');
      await Promise.all([page.waitForNavigation(), page.click(`${fila} button.peligro`)]);
      expect(await texto(page, '.aviso')).toContain('El timbrado se abandonó');
      const fallida = await c.http.get(`/v1/facturas/${atorada.body.id}`);
      expect(fallida.body.timbrado).toMatchObject({
        estado: 'fallido',
        ultimo_error: { codigo: 'timbrado_abandonado' },
      });
      const eventos = await c.http.get(
        `/v1/eventos?factura=${atorada.body.id}&tipo=factura.timbrado_fallido`,
      );
      expect(eventos.body.datos[0].actor).toEqual({ tipo: 'usuario', id: usuarios.operaciones.id });
      expect(eventos.body.datos[0].solicitud).toMatchObject({ llave: null });

      // A cancellation stuck on the PAC, retried from the page once the PAC is back: cancelled now, not at its next retry.
      const timbrada = await c.http.post('/v1/facturas', facturaNueva(c));
      expect(timbrada.status).toBe(201);
      await fallasPac(pila, 'caido');
      expect((await c.http.post(`/v1/facturas/${timbrada.body.id}/cancelar`, { motivo: '02' })).status).toBe(
        202,
      );
      await esperar(async () => {
        const l = (await c.http.get('/v1/pendientes?tipo=cancelacion')).body.datos;
        return l.find(
          (x: { id: string; acciones: unknown[] }) => x.id === timbrada.body.id && x.acciones.length,
        )
          ? true
          : undefined;
      });
      await fallasPac(pila, 'normal');
      await page.goto(`${pila.url}/consola/pendientes?tipo=cancelacion`);
      const filaCancelacion = `tr:has(a[href="/consola/facturas/${timbrada.body.id}"])`;
      expect(await texto(page, `${filaCancelacion} td:nth-child(6)`)).toMatch(
        /El PAC no respondió a la solicitud de cancelación/,
      );
      await Promise.all([page.waitForNavigation(), page.click(`${filaCancelacion} button`)]);
      expect(await texto(page, '.aviso')).toBe('Se pidió reintentar la cancelación ahora.');
      expect((await c.http.get(`/v1/facturas/${timbrada.body.id}`)).body).toMatchObject({
        estado: 'cancelada',
        cancelacion: { estado: 'aceptada' },
      });

      await page.goto(`${pila.url}/consola/webhooks`);
      const boton = await page.waitForSelector(`form:has(input[name=id][value="${entrega.id}"]) button`);
      expect(await page.content()).toContain('HTTP 500');
      await captura(page, 'consola-webhooks');
      await Promise.all([page.waitForNavigation(), boton!.click()]);
      expect(await texto(page, '.aviso')).toContain('la misma entrega');
      const lista = await esperar(async () => {
        const e = (await c.http.get(`/v1/entregas/${entrega.id}`)).body;
        return e.estado === 'entregada' ? e : undefined;
      });
      expect(lista.intentos.map((i: { status_http: number }) => i.status_http)).toEqual([500, 200]);
      expect(receptor.recibidas).toHaveLength(2);
      await page.browserContext().close();
    } finally {
      await receptor.cerrar();
    }
  }, 120_000);

  it('seguridad y accesibilidad: CSRF, bloqueo por correo, cookie, CSP, etiquetas, teclado y ancho de teléfono', async () => {
    // A stamping left pending on a PAC fault: the pending page at a phone's width has its buttons to show.
    const atorada = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { condiciones_pago: 'SANDBOX:ERROR_500' }),
    );
    expect(atorada.status).toBe(202);
    // A shared link to a page survives signing in.
    const enlace = await fetch(`${pila.url}/consola/pendientes?tipo=timbrado`, { redirect: 'manual' });
    expect(enlace.headers.get('location')).toBe(
      '/consola/entrar?volver=%2Fconsola%2Fpendientes%3Ftipo%3Dtimbrado',
    );
    await (await entrar('admin')).browserContext().close(); // the first sign-in chooses the password
    const page = await entrar('admin', undefined, '/consola/pendientes?tipo=timbrado');
    expect(await page.$$eval('tbody button', (b) => b.length)).toBe(2);
    // Odd addresses get a page in Spanish, never a 500: a repeated parameter, a day that does not exist.
    const cookieAdmin = await cookieDe(page);
    const pedir = (ruta: string) => fetch(`${pila.url}${ruta}`, { headers: { cookie: cookieAdmin } });
    expect((await pedir('/consola/facturas?q=1&q=2')).status).toBe(200);
    const fecha = await pedir(`/consola/clientes/${c.cli}?fecha=2026-02-30`);
    expect([fecha.status, await fecha.text()]).toEqual([
      400,
      expect.stringContaining('fecha 2026-02-30 no es una fecha válida.'),
    ]);
    // No token, no action.
    const sinCsrf = await publicar(page, '/consola/modo', { modo: 'test' }, false);
    expect(sinCsrf.status).toBe(403);
    // The session's cookie: HttpOnly, SameSite=Strict, the console's path only.
    const cookie = (await page.browserContext().cookies()).find((k) => k.name === 'consola_sesion')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/consola' });
    const r = await fetch(`${pila.url}/consola/entrar`);
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(r.headers.get('content-security-policy')).not.toContain('script-src');

    // Keyboard: the first Tab reaches the skip link, which moves focus to the content.
    await page.goto(`${pila.url}/consola`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Saltar al contenido');

    // Every page at a phone's width: no sideways scroll, every field named by a label, AA contrast.
    await page.setViewport({ width: 360, height: 780 });
    for (const ruta of [
      '/consola',
      '/consola/facturas',
      `/consola/clientes/${c.cli}`,
      '/consola/pendientes',
      '/consola/webhooks',
    ]) {
      await page.goto(`${pila.url}${ruta}`);
      const medida = await page.evaluate(() => ({
        ancho: document.documentElement.scrollWidth,
        visible: document.documentElement.clientWidth,
        sinEtiqueta: Array.from(document.querySelectorAll('input:not([type=hidden]), select')).filter(
          (e) => !(e.id && document.querySelector(`label[for="${e.id}"]`)),
        ).length,
        // Whatever can be pressed is on the screen, not past a table's right edge.
        fueraDePantalla: Array.from(document.querySelectorAll('button, a.boton')).filter(
          (b) => b.getBoundingClientRect().right > document.documentElement.clientWidth,
        ).length,
      }));
      expect(await bajoContraste(page)).toEqual({ revisados: true, bajos: [] });
      expect({ ruta, ...medida, ancho: medida.ancho <= medida.visible }).toEqual({
        ruta,
        ancho: true,
        visible: medida.visible,
        sinEtiqueta: 0,
        fueraDePantalla: 0,
      });
      if (ruta === '/consola/facturas') await captura(page, 'consola-telefono');
    }

    // The operator command refuses a taken email and an unknown account, writing nothing.
    const repetido = await usuarioCrear(
      '--cuenta',
      c.cuentaId,
      '--correo',
      usuarios.admin.correo,
      '--rol',
      'admin',
    ).catch((e) => e);
    expect([repetido.code, repetido.stderr]).toEqual([1, expect.stringContaining('correo_en_uso')]);
    const sinCuenta = await usuarioCrear(
      '--cuenta',
      'cta_noexiste',
      '--correo',
      'x@y.mx',
      '--rol',
      'admin',
    ).catch((e) => e);
    expect([sinCuenta.code, sinCuenta.stderr]).toEqual([1, expect.stringContaining('no existe')]);

    // Five wrong passwords for one email: the sixth attempt waits, even with the right one.
    const intento = (contrasena: string) =>
      fetch(`${pila.url}/consola/entrar`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ correo: usuarios.finanzas.correo, contrasena }),
        redirect: 'manual',
      });
    for (let i = 0; i < 5; i++) expect((await intento(`incorrecta ${i} de prueba`)).status).toBe(401);
    const bloqueado = await intento(NUEVA);
    expect(bloqueado.status).toBe(429);
    expect(await bloqueado.text()).toContain('Demasiados intentos fallidos');
    await page.browserContext().close();
  }, 60_000);
});
