import { esId } from '../../../db/ids';
import type { Request, Router } from 'express';
import type { Servicios } from '../../../composicion/servicios';
import type { Esquema } from '../../../contrato';
import { ErrorNegocio } from '../../../dominio/errores';
import { puede } from '../../../dominio/usuario';
import { alcanceDe } from '../../alcance';
import { aviso, campoCsrf, cuando, duracion, enviar, type Marco, pagina } from '../diseno';
import { consulta, html, type Html } from '../html';
import { campo, consolaDe, exigir } from '../sesion';
import { avisoDe, paginaDe, parametro } from './comun';

type Pendiente = Esquema<'Pendiente'>;
type Entrega = Esquema<'Entrega'>;
type Webhook = Esquema<'Webhook'>;

const TIPOS: Record<Pendiente['tipo'], string> = {
  timbrado: 'Timbrado',
  cancelacion: 'Cancelación',
  pago: 'Pago',
  correo: 'Correo',
  entrega: 'Entrega de webhook',
  reexpedicion: 'Reexpedición de global',
};

const PASOS: Record<Pendiente['paso'], string> = {
  preparacion: 'sellado y validación',
  pac: 'envío al PAC',
  solicitud: 'solicitud al PAC',
  respuesta_receptor: 'espera al receptor',
  registro: 'registro del pago',
  envio: 'envío',
  espera_reintento: 'espera de reintento',
  timbrado_comprador: 'timbrado del comprador',
  reexpedicion: 'reexpedición',
};

/**
 * The actions the console takes on a pending operation, each the same service call as the API route its
 * `acciones` names; nothing else is accepted from a form.
 */
const ACCIONES: Record<string, (s: Servicios, req: Request, id: string) => Promise<unknown>> = {
  'timbrado:reintentar': (s, req, id) => s.facturas.reintentarTimbrado(alcanceDe(req), id),
  'timbrado:abandonar': (s, req, id) => s.facturas.abandonarTimbrado(alcanceDe(req), id),
  'cancelacion:reintentar': (s, req, id) => s.facturas.reintentarCancelacion(alcanceDe(req), id),
  'entrega:reintentar': (s, req, id) => s.webhooks.reintentarEntrega(alcanceDe(req), id),
};
const AVISO_ACCION: Record<string, string> = {
  'timbrado:reintentar': 'reintento',
  'timbrado:abandonar': 'abandono',
  'cancelacion:reintentar': 'cancelacion',
  'entrega:reintentar': 'entrega',
};

function enlaceRecurso(p: Pendiente): Html {
  const r = p.recursos;
  if (r.factura) return html`<a href="/consola/facturas/${r.factura}"><code>${r.factura}</code></a>`;
  if (r.entrega) return html`<a href="/consola/webhooks#entregas"><code>${r.entrega}</code></a>`;
  return html`<code>${p.id}</code>`;
}

function botones(
  m: Marco,
  operar: boolean,
  tipo: string,
  id: string,
  acciones: { accion: string; descripcion: string }[],
  volver: string,
) {
  const propias = acciones.filter((a) => ACCIONES[`${tipo}:${a.accion}`]);
  if (!operar || !propias.length) return html`<span class="tenue">—</span>`;
  return html`<div class="acciones">
    ${propias.map(
      (a) =>
        html`<form method="post" action="/consola/acciones">
          ${campoCsrf(m)} <input type="hidden" name="tipo" value="${tipo}" /><input
            type="hidden"
            name="id"
            value="${id}"
          />
          <input type="hidden" name="accion" value="${a.accion}" /><input
            type="hidden"
            name="volver"
            value="${volver}"
          />
          <button type="submit" class="${a.accion === 'abandonar' ? 'peligro' : ''}" title="${a.descripcion}">
            ${a.accion === 'abandonar' ? 'Abandonar' : 'Reintentar ahora'}
          </button>
        </form>`,
    )}
  </div>`;
}

const ultimoIntento = (e: Entrega) => e.intentos.at(-1);

function tablaEntregas(m: Marco, operar: boolean, entregas: Entrega[], titulo: string): Html {
  if (!entregas.length) return html`<p class="tenue">Ninguna.</p>`;
  const ahora = new Date();
  return html`<div class="tabla apilable">
    <table>
      <caption>
        ${titulo}
      </caption>
      <thead>
        <tr>
          <th scope="col">Entrega</th>
          <th scope="col">Evento</th>
          <th scope="col">Intentos</th>
          <th scope="col">Último resultado</th>
          <th scope="col">Próximo intento</th>
          <th scope="col">Acción</th>
        </tr>
      </thead>
      <tbody>
        ${entregas.map((e) => {
          const u = ultimoIntento(e);
          const accion = !operar
            ? html`<span class="tenue">—</span>`
            : e.estado === 'pendiente'
              ? html`<form method="post" action="/consola/acciones">
                  ${campoCsrf(m)}<input type="hidden" name="tipo" value="entrega" /><input
                    type="hidden"
                    name="id"
                    value="${e.id}"
                  /><input type="hidden" name="accion" value="reintentar" /><input
                    type="hidden"
                    name="volver"
                    value="webhooks"
                  /><button type="submit">Reintentar ahora</button>
                </form>`
              : html`<form method="post" action="/consola/webhooks/reenviar">
                  ${campoCsrf(m)}<input type="hidden" name="webhook" value="${e.webhook}" /><input
                    type="hidden"
                    name="evento"
                    value="${e.evento}"
                  /><button type="submit">Reenviar</button>
                </form>`;
          return html`<tr>
            <td data-etiqueta="Entrega"><code>${e.id}</code><br /><span class="tenue">${e.estado}</span></td>
            <td data-etiqueta="Evento">${e.tipo_evento}<br /><code>${e.evento}</code></td>
            <td data-etiqueta="Intentos" class="num">${e.intentos.length}</td>
            <td data-etiqueta="Último resultado">
              ${u
                ? html`${u.status_http ? `HTTP ${u.status_http}` : (u.error?.codigo ?? '—')} ·
                    ${cuando(u.iniciado_en, ahora)}<br /><span class="tenue">${u.error?.mensaje ?? ''}</span>`
                : '—'}
            </td>
            <td data-etiqueta="Próximo intento">${cuando(e.proximo_intento_en, ahora)}</td>
            <td data-etiqueta="Acción">${accion}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

/** An endpoint's health from its deliveries, as the API reports it in `salud`. */
function saludWebhook(w: Webhook): Html {
  const { salud } = w;
  const tasa =
    salud.tasa_exito === null ? 'sin intentos' : `${(Number(salud.tasa_exito) * 100).toFixed(1)} %`;
  const estado = salud.fallando_desde
    ? html`<span class="etiqueta error">Fallando desde ${cuando(salud.fallando_desde)}</span>`
    : salud.intentos_24h
      ? html`<span class="etiqueta ok">Sano</span>`
      : html`<span class="etiqueta neutra">Sin actividad en 24 h</span>`;
  const error = salud.ultimo_error;
  return html`${estado}<br />Éxito en 24 h: ${tasa} (${salud.exitosos_24h} de ${salud.intentos_24h}
    intentos)${error
      ? html`<br /><span class="tenue"
            >Último error ${cuando(error.en)}:
            ${error.status_http ? `HTTP ${error.status_http} · ` : ''}${error.mensaje}</span
          >`
      : ''}${salud.ultimo_exito_en
      ? html`<br /><span class="tenue">Última entrega exitosa ${cuando(salud.ultimo_exito_en)}</span>`
      : ''}`;
}

export function paginasOperacion(r: Router, s: Servicios): void {
  r.get('/consola/pendientes', async (req, res) => {
    const { marco, sesion } = consolaDe(req);
    const operar = puede(sesion.usuario.rol, 'operar');
    const tipo = (Object.keys(TIPOS) as Pendiente['tipo'][]).find((t) => t === parametro(req, 'tipo'));
    const t = await s.pendientes.listar(
      alcanceDe(req),
      { tipo },
      paginaDe(req, ['fac', 'pago', 'cor', 'ent', 'rec']),
    );
    const siguiente = t.hayMas
      ? `/consola/pendientes${consulta({ tipo, despues: t.datos.at(-1)!.id })}`
      : null;
    const filas = t.datos as Pendiente[];
    enviar(
      res,
      pagina(
        marco,
        'Operaciones pendientes',
        html`${aviso(avisoDe(req))}
          <p>
            Todo lo que aún no termina, de la más reciente a la más antigua: timbrados, cancelaciones, pagos,
            correos, entregas de webhooks y reexpediciones de globales.
          </p>
          <form method="get" action="/consola/pendientes" class="filtros">
            <div class="campo">
              <label for="tipo">Tipo</label
              ><select id="tipo" name="tipo">
                <option value="">Todos</option>
                ${Object.entries(TIPOS).map(
                  ([k, v]) => html`<option value="${k}" ${tipo === k ? html` selected` : ''}>${v}</option>`,
                )}
              </select>
            </div>
            <button type="submit">Filtrar</button>
          </form>
          ${filas.length
            ? html`<div class="tabla apilable">
                <table>
                  <caption>
                    ${filas.length === 1 ? '1 operación' : `${filas.length} operaciones`} en esta página
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Tipo</th>
                      <th scope="col">Recurso</th>
                      <th scope="col">Espera</th>
                      <th scope="col">Paso</th>
                      <th scope="col" class="num">Intentos</th>
                      <th scope="col">Última causa</th>
                      <th scope="col">Acciones</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${filas.map(
                      (p) =>
                        html`<tr>
                          <td data-etiqueta="Tipo">${TIPOS[p.tipo]}</td>
                          <td data-etiqueta="Recurso">${enlaceRecurso(p)}</td>
                          <td data-etiqueta="Espera">${duracion(p.antiguedad_s)}</td>
                          <td data-etiqueta="Paso">${PASOS[p.paso]}</td>
                          <td data-etiqueta="Intentos" class="num">${p.intentos ?? '—'}</td>
                          <td data-etiqueta="Última causa">
                            ${p.ultima_causa ? p.ultima_causa.mensaje : html`<span class="tenue">—</span>`}
                          </td>
                          <td data-etiqueta="Acciones">
                            ${botones(marco, operar, p.tipo, p.id, p.acciones, 'pendientes')}
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
            : html`<p class="aviso aviso-ok" role="status">No hay operaciones pendientes.</p>`}
          ${siguiente ? html`<p class="paginacion"><a href="${siguiente}">Siguiente página →</a></p>` : ''}`,
      ),
    );
  });

  r.post('/consola/acciones', async (req, res) => {
    exigir(req, 'operar');
    const [tipo, accion, id] = [campo(req, 'tipo'), campo(req, 'accion'), campo(req, 'id')];
    const clave = `${tipo}:${accion}`;
    const hacer = ACCIONES[clave];
    if (!hacer)
      throw new ErrorNegocio('solicitud_invalida', 'accion_invalida', 'Esa acción no existe.', 'accion');
    if (!esId(id, ['fac', 'ent']))
      throw new ErrorNegocio(
        'no_encontrado',
        'recurso_no_encontrado',
        `${id.slice(0, 40) || 'El recurso'} no existe.`,
        'id',
      );
    await hacer(s, req, id);
    const volver = campo(req, 'volver') === 'webhooks' ? '/consola/webhooks' : '/consola/pendientes';
    res.redirect(303, `${volver}?aviso=${AVISO_ACCION[clave]}`);
  });

  r.get('/consola/webhooks', async (req, res) => {
    const { marco, sesion } = consolaDe(req);
    const operar = puede(sesion.usuario.rol, 'operar');
    const a = alcanceDe(req);
    const [webhooks, fallidas, pendientes] = await Promise.all([
      s.webhooks.listar(a, { limite: 100 }),
      s.webhooks.listarEntregas(a, { estado: 'fallida' }, { limite: 50 }),
      s.webhooks.listarEntregas(a, { estado: 'pendiente' }, { limite: 50 }),
    ]);
    const fallando = (pendientes.datos as Entrega[]).filter((e) => e.intentos.length > 0);
    enviar(
      res,
      pagina(
        marco,
        'Webhooks',
        html`${aviso(avisoDe(req))}
          <h2>Destinos</h2>
          ${webhooks.datos.length
            ? html`<div class="tabla apilable">
                <table>
                  <caption>
                    Destinos de la cuenta en este modo
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">URL</th>
                      <th scope="col">Activo</th>
                      <th scope="col">Salud</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${(webhooks.datos as Webhook[]).map(
                      (w) =>
                        html`<tr>
                          <td data-etiqueta="URL">
                            <code>${w.url}</code><br /><span class="tenue">${w.id}</span>
                          </td>
                          <td data-etiqueta="Activo">${w.activo ? 'Sí' : 'No'}</td>
                          <td data-etiqueta="Salud">${saludWebhook(w)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
            : html`<p class="tenue">La cuenta no tiene webhooks en este modo.</p>`}
          <h2 id="entregas">Entregas reintentándose</h2>
          ${tablaEntregas(marco, operar, fallando, 'Entregas pendientes que ya fallaron al menos una vez')}
          <h2>Entregas fallidas</h2>
          ${tablaEntregas(
            marco,
            operar,
            fallidas.datos as Entrega[],
            'Entregas que agotaron sus intentos (las 50 más recientes)',
          )}`,
      ),
    );
  });

  r.post('/consola/webhooks/reenviar', async (req, res) => {
    exigir(req, 'operar');
    const [webhook, evento] = [campo(req, 'webhook'), campo(req, 'evento')];
    if (!esId(webhook, ['wh']) || !esId(evento, ['evt']))
      throw new ErrorNegocio('solicitud_invalida', 'accion_invalida', 'Esa acción no existe.', 'evento');
    await s.webhooks.reenviar(alcanceDe(req), webhook, evento);
    res.redirect(303, '/consola/webhooks?aviso=reenvio');
  });
}
