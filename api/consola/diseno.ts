import Decimal from 'decimal.js';
import type { Modo } from '../../dominio/alcance';
import { NOMBRE_ROL, type Rol } from '../../dominio/usuario';
import { fechaHora, hora } from '../../presentacion/textos';
import type { Response } from 'express';
import { html, type Html } from './html';

/** What every signed-in page shows of its user: who, which mode, and the form token. */
export interface Marco {
  correo: string;
  rol: Rol;
  modo: Modo;
  csrf: string;
  ruta: string;
}

const SECCIONES = [
  ['/consola', 'Panel'],
  ['/consola/facturas', 'Facturas'],
  ['/consola/pendientes', 'Pendientes'],
  ['/consola/webhooks', 'Webhooks'],
] as const;

/** The hidden field every POST form carries (checked before any action). */
export const campoCsrf = (m: Pick<Marco, 'csrf'>) =>
  html`<input type="hidden" name="_csrf" value="${m.csrf}" />`;

/** A notice after an action (Post/Redirect/Get): only fixed sentences, never text from the address bar. */
export function aviso(texto: string | undefined, tipo: 'ok' | 'error' = 'ok'): Html | '' {
  if (!texto) return '';
  return html`<p class="aviso aviso-${tipo}" role="${tipo === 'error' ? 'alert' : 'status'}">${texto}</p>`;
}

function documento(titulo: string, cuerpo: Html, clase = ''): Html {
  return html`<!doctype html>
    <html lang="es">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${titulo} · Consola CFDI</title>
        <link rel="stylesheet" href="/consola/consola.css" />
      </head>
      <body class="${clase}">
        ${cuerpo}
      </body>
    </html>`;
}

/** A page of a signed-in user: skip link, header with sections, mode switch and sign-out, then the content. */
export function pagina(m: Marco, titulo: string, contenido: Html): Html {
  // The panel is only itself; the other sections own their sub-pages (a client's statement belongs to none).
  const actual = SECCIONES.find(
    ([r]) => m.ruta === r || (r !== '/consola' && m.ruta.startsWith(`${r}/`)),
  )?.[0];
  return documento(
    titulo,
    html`<a class="saltar" href="#principal">Saltar al contenido</a>
      <header class="encabezado modo-${m.modo}">
        <a class="marca" href="/consola">Consola CFDI</a>
        <nav aria-label="Secciones">
          <ul>
            ${SECCIONES.map(
              ([r, n]) =>
                html`<li><a href="${r}" ${actual === r ? html` aria-current="page"` : ''}>${n}</a></li>`,
            )}
          </ul>
        </nav>
        <div class="sesion">
          <form method="post" action="/consola/modo" class="modo">
            ${campoCsrf(m)}
            <label for="modo-sel">Modo</label>
            <select id="modo-sel" name="modo">
              <option value="test" ${m.modo === 'test' ? html` selected` : ''}>Pruebas (test)</option>
              <option value="live" ${m.modo === 'live' ? html` selected` : ''}>Producción (live)</option>
            </select>
            <button type="submit">Cambiar</button>
          </form>
          <span class="usuario">${m.correo} · ${NOMBRE_ROL[m.rol]}</span>
          <form method="post" action="/consola/salir">
            ${campoCsrf(m)}<button type="submit" class="secundario">Salir</button>
          </form>
        </div>
      </header>
      ${m.modo === 'test' ? html`<p class="franja-test">Modo de pruebas: datos sin efecto fiscal.</p>` : ''}
      <main id="principal" tabindex="-1">
        <h1>${titulo}</h1>
        ${contenido}
      </main>`,
  );
}

/** A page's answer: its HTML with its status. */
export const enviar = (res: Response, contenido: Html, status = 200) =>
  res.status(status).type('html').send(contenido.texto);

/** A page without a session (sign-in, errors before one). */
export function paginaSuelta(titulo: string, contenido: Html): Html {
  return documento(
    titulo,
    html`<main id="principal" class="suelta">
      <h1>${titulo}</h1>
      ${contenido}
    </main>`,
    'suelta',
  );
}

const FORMATO = new Intl.NumberFormat('es-MX', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** `$1,234.50 MXN`: amounts are decimal strings; shown with two decimals, never through a float sum. */
export function importe(valor: string | null | undefined, moneda = 'MXN'): string {
  if (valor === null || valor === undefined) return '—';
  const d = new Decimal(valor).toDecimalPlaces(2);
  // Intl takes a number: exact for the two-decimal amounts shown (below 2^53 cents).
  return `$${FORMATO.format(d.toNumber())} ${moneda}`;
}

/** A time as the pages show it: central Mexico's clock, short when it is today. */
export const cuando = (d: Date | string | null | undefined, ahora = new Date()) =>
  d ? hora(new Date(d), null, ahora) : '—';

export const cuandoCompleto = (d: Date | string | null | undefined) =>
  d ? fechaHora(new Date(d), null) : '—';

/** `3 min`, `2 h 5 min`, `4 d 3 h`: how long something has waited. */
export function duracion(segundos: number): string {
  const m = Math.floor(segundos / 60);
  if (m < 1) return `${segundos} s`;
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
