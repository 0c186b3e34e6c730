import type { Router } from 'express';
import type { Servicios } from '../../../composicion/servicios';
import type { Esquema } from '../../../contrato';
import { puede } from '../../../dominio/usuario';
import { alcanceDe } from '../../alcance';
import { aviso, campoCsrf, cuando, cuandoCompleto, enviar, importe, pagina } from '../diseno';
import { consulta, html, type Html } from '../html';
import { consolaDe, exigir } from '../sesion';
import { avisoDe, estadoFactura, fechaParametro, idDe, paginaDe, parametro, serieFolio } from './comun';

type Factura = Esquema<'Factura'>;
type Paso = Esquema<'PasoHistoria'>;

export interface OpcionesConsola {
  /** The Temporal Web UI and namespace, for the links to an invoice's workflows. */
  temporalUi: string;
  namespace: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC = /^[A-ZÑ&]{3,4}\d{6}[A-Z0-9]{3}$/i;
const ESTADOS = ['borrador', 'timbrada', 'cancelada'] as const;
/** The API's states as a person looks for them: a draft is also what is stamping or failed to. */
const NOMBRE_ESTADO: Record<(typeof ESTADOS)[number], string> = {
  borrador: 'Borrador, timbrando o fallida',
  timbrada: 'Timbrada',
  cancelada: 'Cancelada',
};

/** What the one search box holds: a UUID, a client (id or RFC) or a serie-folio. */
export function interpretarBusqueda(q: string): { uuid?: string; cliente?: string; folio?: string } {
  const t = q.trim();
  if (!t) return {};
  if (UUID.test(t)) return { uuid: t };
  if (t.startsWith('cli_') || RFC.test(t)) return { cliente: t };
  return { folio: t };
}

/** A local date (central Mexico) as the instant its day starts, for the creation-date filters. */
const inicioDelDia = (d: string) => new Date(`${d}T06:00:00.000Z`).toISOString();
const diaSiguiente = (d: string) =>
  new Date(new Date(`${d}T06:00:00.000Z`).getTime() + 86_400_000).toISOString();

const CLASE_PASO: Partial<Record<Paso['tipo'], string>> = {
  intentos_pac: 'error',
  intentos_preparacion: 'error',
  timbrado_fallido: 'error',
  timbrado_abandonado: 'error',
  correo_fallido: 'error',
  cancelacion_fallida: 'error',
  webhook_fallando: 'error',
  webhook_fallido: 'error',
  flujo_detenido: 'error',
  intentos_cancelacion: 'espera',
  timbrado_en_espera: 'espera',
  cancelacion_en_espera: 'espera',
  correo_pendiente: 'espera',
};

function lineaDeTiempo(pasos: Paso[]): Html {
  if (!pasos.length) return html`<p class="tenue">Sin pasos registrados.</p>`;
  return html`<ol class="linea-tiempo">
    ${pasos.map(
      (p) =>
        html`<li class="${CLASE_PASO[p.tipo] ?? ''}">
          <time datetime="${p.en}">${cuandoCompleto(p.en)}</time>${p.texto}
        </li>`,
    )}
  </ol>`;
}

export function paginasFacturas(r: Router, s: Servicios, op: OpcionesConsola): void {
  const enlaceTemporal = (consultaVisibilidad: string) =>
    `${op.temporalUi.replace(/\/$/, '')}/namespaces/${encodeURIComponent(op.namespace)}/workflows?query=${encodeURIComponent(consultaVisibilidad)}`;
  const enlaceFlujo = (id: string) =>
    `${op.temporalUi.replace(/\/$/, '')}/namespaces/${encodeURIComponent(op.namespace)}/workflows/${encodeURIComponent(id)}`;

  r.get('/consola/facturas', async (req, res) => {
    const { marco } = consolaDe(req);
    const texto = parametro(req, 'q').slice(0, 64);
    const estado = ESTADOS.find((e) => e === parametro(req, 'estado'));
    const desde = fechaParametro(req, 'desde');
    const hasta = fechaParametro(req, 'hasta');
    if (texto.startsWith('fac_'))
      return res.redirect(303, `/consola/facturas/${encodeURIComponent(texto.trim())}`);
    const t = await s.facturas.listar(
      alcanceDe(req),
      {
        ...interpretarBusqueda(texto),
        estado,
        creada_desde: desde && inicioDelDia(desde),
        creada_antes: hasta && diaSiguiente(hasta),
      },
      paginaDe(req, ['fac']),
    );
    const filtros = { q: texto || undefined, estado, desde, hasta };
    const siguiente = t.hayMas
      ? `/consola/facturas${consulta({ ...filtros, despues: t.datos.at(-1)!.id })}`
      : null;
    enviar(
      res,
      pagina(
        marco,
        'Facturas',
        html`<form method="get" action="/consola/facturas" class="filtros" role="search">
            <div class="campo ancho">
              <label for="q">Buscar <small>UUID, serie-folio, RFC o id de cliente</small></label>
              <input id="q" name="q" value="${texto}" maxlength="64" />
            </div>
            <div class="campo">
              <label for="estado">Estado</label>
              <select id="estado" name="estado">
                <option value="">Todos</option>
                ${ESTADOS.map(
                  (e) =>
                    html`<option value="${e}" ${estado === e ? html` selected` : ''}>
                      ${NOMBRE_ESTADO[e]}
                    </option>`,
                )}
              </select>
            </div>
            <div class="campo">
              <label for="desde">Creada desde</label
              ><input id="desde" name="desde" type="date" value="${desde ?? ''}" />
            </div>
            <div class="campo">
              <label for="hasta">hasta</label
              ><input id="hasta" name="hasta" type="date" value="${hasta ?? ''}" />
            </div>
            <button type="submit">Buscar</button>
          </form>
          ${tablaFacturas(t.datos, 'Facturas encontradas, de la más nueva a la más antigua')}
          ${siguiente ? html`<p class="paginacion"><a href="${siguiente}">Siguiente página →</a></p>` : ''}`,
      ),
    );
  });

  r.get('/consola/facturas/:id', async (req, res) => {
    const { marco, sesion } = consolaDe(req);
    const id = idDe(req, 'fac', 'factura_no_encontrada', 'La factura');
    const a = alcanceDe(req);
    const f = await s.facturas.obtener(a, id);
    const h = await s.historia.historia(a, id);
    const operar = puede(sesion.usuario.rol, 'operar');
    const acciones: Html[] = [];
    const boton = (ruta: string, texto: string, clase = '') =>
      html`<form method="post" action="/consola/facturas/${id}/${ruta}">
        ${campoCsrf(marco)}<button type="submit" class="${clase}">${texto}</button>
      </form>`;
    if (operar && f.timbrado.estado === 'pendiente') {
      acciones.push(boton('timbrado/reintentar', 'Reintentar timbrado ahora'));
      acciones.push(boton('timbrado/abandonar', 'Abandonar timbrado', 'peligro'));
    }
    if (operar && f.cancelacion && ['solicitada', 'en_proceso'].includes(f.cancelacion.estado))
      acciones.push(boton('cancelacion/reintentar', 'Reintentar cancelación ahora'));
    const timbrada = !!f.uuid;
    const flujos = [
      [`timbrado:${id}`, 'Timbrado'],
      ...(f.cancelacion ? [[`cancelacion:${id}`, 'Cancelación']] : []),
      ...(f.pago ? [[`pago:${f.pago}`, 'Registro del pago']] : []),
    ];
    enviar(
      res,
      pagina(
        marco,
        `Factura ${serieFolio(f)}`,
        html`${aviso(avisoDe(req))}
          <dl class="datos">
            <dt>Estado</dt>
            <dd>${estadoFactura(f)}</dd>
            <dt>Id</dt>
            <dd><code>${f.id}</code></dd>
            <dt>UUID</dt>
            <dd class="uuid">${f.uuid ?? '—'}</dd>
            <dt>Tipo</dt>
            <dd>${f.tipo}${f.metodo_pago ? ` · ${f.metodo_pago}` : ''}</dd>
            <dt>Cliente</dt>
            <dd>
              ${f.cliente.id
                ? html`<a href="/consola/clientes/${f.cliente.id}">${f.cliente.nombre}</a>`
                : f.cliente.nombre} <span class="tenue">${f.cliente.rfc}</span>
            </dd>
            <dt>Total</dt>
            <dd>${importe(f.total, f.moneda)}</dd>
            ${f.metodo_pago === 'PPD'
              ? html`<dt>Saldo insoluto</dt>
                  <dd>${importe(f.saldo_insoluto, f.moneda)}</dd>`
              : ''}
            <dt>Timbrada</dt>
            <dd>${f.fecha_timbrado?.replace('T', ' ') ?? '—'}</dd>
            ${f.timbrado.ultimo_error
              ? html`<dt>Último error</dt>
                  <dd>${f.timbrado.ultimo_error.codigo}: ${f.timbrado.ultimo_error.mensaje}</dd>`
              : ''}
          </dl>
          ${acciones.length ? html`<div class="acciones">${acciones}</div>` : ''}
          <h2>Descargas</h2>
          <ul>
            ${timbrada
              ? html`<li><a href="/consola/facturas/${id}/xml" download>XML timbrado</a></li>
                  <li><a href="/consola/facturas/${id}/pdf" download>PDF</a></li>`
              : ''}
            <li><a href="/consola/facturas/${id}/auditoria" download>Paquete de auditoría (ZIP)</a></li>
          </ul>
          <h2>Historia</h2>
          ${h.temporal.leido
            ? ''
            : aviso(
                `No se pudieron leer los intentos de Temporal (${h.temporal.error ?? 'sin detalle'}): se muestra lo que registra la base de datos.`,
                'error',
              )}
          ${lineaDeTiempo(h.pasos)}
          <h2>Workflows en Temporal</h2>
          <ul>
            ${flujos.map(
              ([fid, n]) =>
                html`<li>
                  <a href="${enlaceFlujo(fid!)}" rel="noopener">${n}: <code>${fid}</code></a>
                </li>`,
            )}
            <li>
              <a href="${enlaceTemporal(`FacturaId="${id}" OR FacturasPagadas="${id}"`)}" rel="noopener"
                >Todos los workflows de la factura</a
              >
            </li>
          </ul>`,
      ),
    );
  });

  // An invoice's actions, each the service call of its API route; back to the invoice with a fixed notice.
  const acciones = [
    ['timbrado/reintentar', 'reintento', s.facturas.reintentarTimbrado],
    ['timbrado/abandonar', 'abandono', s.facturas.abandonarTimbrado],
    ['cancelacion/reintentar', 'cancelacion', s.facturas.reintentarCancelacion],
  ] as const;
  for (const [ruta, aviso, hacer] of acciones) {
    r.post(`/consola/facturas/:id/${ruta}`, async (req, res) => {
      exigir(req, 'operar');
      const id = idDe(req, 'fac', 'factura_no_encontrada', 'La factura');
      await hacer(alcanceDe(req), id);
      res.redirect(303, `/consola/facturas/${id}?aviso=${aviso}`);
    });
  }

  r.get('/consola/facturas/:id/xml', async (req, res) => {
    const id = idDe(req, 'fac', 'factura_no_encontrada', 'La factura');
    const xml = await s.facturas.xml(alcanceDe(req), id);
    res
      .type('application/xml')
      .set('Content-Disposition', `attachment; filename="${id}.xml"`)
      .send(Buffer.from(xml, 'utf8'));
  });
  r.get('/consola/facturas/:id/pdf', async (req, res) => {
    const id = idDe(req, 'fac', 'factura_no_encontrada', 'La factura');
    const pdf = await s.facturas.pdf(alcanceDe(req), id);
    res.type('application/pdf').set('Content-Disposition', `attachment; filename="${id}.pdf"`).send(pdf);
  });
  r.get('/consola/facturas/:id/auditoria', async (req, res) => {
    const id = idDe(req, 'fac', 'factura_no_encontrada', 'La factura');
    const { zip } = await s.auditoria.paquete(alcanceDe(req), id);
    res
      .type('application/zip')
      .set('Content-Disposition', `attachment; filename="auditoria-${id}.zip"`)
      .send(zip);
  });
}

/** The invoices' table, shared by the search and a client's statement. */
export function tablaFacturas(facturas: Factura[], titulo: string): Html {
  if (!facturas.length) return html`<p class="tenue">No hay facturas con esos criterios.</p>`;
  const ahora = new Date();
  return html`<div class="tabla apilable">
    <table>
      <caption>
        ${titulo}
      </caption>
      <thead>
        <tr>
          <th scope="col">Serie-folio</th>
          <th scope="col">Cliente</th>
          <th scope="col">Estado</th>
          <th scope="col" class="num">Total</th>
          <th scope="col" class="opcional">UUID</th>
          <th scope="col" class="opcional">Creada</th>
        </tr>
      </thead>
      <tbody>
        ${facturas.map(
          (f) =>
            html`<tr>
              <td><a href="/consola/facturas/${f.id}">${serieFolio(f)}</a></td>
              <td data-etiqueta="Cliente">
                ${f.cliente.nombre}<br /><span class="tenue">${f.cliente.rfc}</span>
              </td>
              <td data-etiqueta="Estado">${estadoFactura(f)}</td>
              <td class="num" data-etiqueta="Total">${importe(f.total, f.moneda)}</td>
              <td class="uuid opcional">${f.uuid ?? '—'}</td>
              <td class="opcional">${cuando(f.creado_en, ahora)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
