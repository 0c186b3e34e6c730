import type { Router } from 'express';
import type { Servicios } from '../../../composicion/servicios';
import type { Esquema } from '../../../contrato';
import { puede } from '../../../dominio/usuario';
import { alcanceDe } from '../../alcance';
import { enviar, importe, pagina } from '../diseno';
import { consulta, html, type Html } from '../html';
import { consolaDe, exigir } from '../sesion';
import { fechaParametro, idDe, parametro } from './comun';

type Estado = Esquema<'EstadoDeCuenta'>;

const CUBETAS = [
  ['de_0_a_30', '0–30 días'],
  ['de_31_a_60', '31–60 días'],
  ['de_61_a_90', '61–90 días'],
  ['mas_de_90', 'Más de 90 días'],
] as const;

function totales(e: Estado): Html {
  if (!e.totales.length)
    return html`<p class="tenue">El cliente no tiene facturas timbradas a esa fecha.</p>`;
  return html`<div class="tabla apilable">
    <table>
      <caption>
        Saldo y antigüedad al ${e.fecha}, por moneda
      </caption>
      <thead>
        <tr>
          <th scope="col">Moneda</th>
          <th scope="col" class="num">Facturado</th>
          <th scope="col" class="num">Cobrado</th>
          <th scope="col" class="num">Saldo</th>
          ${CUBETAS.map(([, n]) => html`<th scope="col" class="num">${n}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${e.totales.map(
          (t) =>
            html`<tr>
              <th scope="row" data-etiqueta="Moneda">${t.moneda}</th>
              <td data-etiqueta="Facturado" class="num">${importe(t.facturado, t.moneda)}</td>
              <td data-etiqueta="Cobrado" class="num">${importe(t.cobrado, t.moneda)}</td>
              <td data-etiqueta="Saldo" class="num"><strong>${importe(t.saldo, t.moneda)}</strong></td>
              ${CUBETAS.map(
                ([k, n]) =>
                  html`<td class="num" data-etiqueta="${n}">${importe(t.antiguedad[k], t.moneda)}</td>`,
              )}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function facturas(lista: Estado['facturas'], titulo: string): Html {
  if (!lista.length) return html`<p class="tenue">Ninguna.</p>`;
  return html`<div class="tabla apilable">
    <table>
      <caption>
        ${titulo}
      </caption>
      <thead>
        <tr>
          <th scope="col">Serie-folio</th>
          <th scope="col">Fecha</th>
          <th scope="col">Método</th>
          <th scope="col" class="num">Total</th>
          <th scope="col" class="num">Pagado</th>
          <th scope="col" class="num">Saldo</th>
          <th scope="col" class="num">Días</th>
        </tr>
      </thead>
      <tbody>
        ${lista.map(
          (f) =>
            html`<tr>
              <td data-etiqueta="Serie-folio">
                <a href="/consola/facturas/${f.id}">${f.serie_folio || f.id}</a>${f.estado === 'cancelada'
                  ? html` <span class="etiqueta neutra">Cancelada</span>`
                  : ''}
              </td>
              <td data-etiqueta="Fecha">${f.fecha.slice(0, 10)}</td>
              <td data-etiqueta="Método">${f.metodo_pago ?? '—'}</td>
              <td data-etiqueta="Total" class="num">${importe(f.total, f.moneda)}</td>
              <td data-etiqueta="Pagado" class="num">${importe(f.pagado, f.moneda)}</td>
              <td data-etiqueta="Saldo" class="num">${importe(f.saldo_pendiente, f.moneda)}</td>
              <td data-etiqueta="Días" class="num">${f.dias ?? '—'}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function pagos(lista: Estado['pagos'], facturasDe: Map<string, string | null>): Html {
  if (!lista.length) return html`<p class="tenue">Sin pagos registrados.</p>`;
  return html`<div class="tabla apilable">
    <table>
      <caption>
        Pagos aplicados a sus facturas (complementos de pago)
      </caption>
      <thead>
        <tr>
          <th scope="col">Fecha</th>
          <th scope="col">Factura</th>
          <th scope="col" class="num">Parcialidad</th>
          <th scope="col" class="num">Pagado</th>
          <th scope="col" class="num">Saldo después</th>
          <th scope="col">CFDI de pago</th>
        </tr>
      </thead>
      <tbody>
        ${lista.map(
          (p) =>
            html`<tr>
              <td data-etiqueta="Fecha">${p.fecha_pago.slice(0, 10)}</td>
              <td data-etiqueta="Factura">
                <a href="/consola/facturas/${p.factura}">${facturasDe.get(p.factura) || p.factura}</a>
              </td>
              <td data-etiqueta="Parcialidad" class="num">${p.num_parcialidad}</td>
              <td data-etiqueta="Pagado" class="num">${importe(p.imp_pagado, p.moneda)}</td>
              <td data-etiqueta="Saldo después" class="num">${importe(p.imp_saldo_insoluto, p.moneda)}</td>
              <td data-etiqueta="CFDI de pago">
                ${p.factura_pago
                  ? html`<a href="/consola/facturas/${p.factura_pago}">${p.serie_folio || p.factura_pago}</a>`
                  : '—'}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** A client's statement of account: balance and ageing per currency, open invoices (or all), payments, CSV. */
export function paginasClientes(r: Router, s: Servicios): void {
  r.get('/consola/clientes/:id', async (req, res) => {
    const { marco, sesion } = consolaDe(req);
    const id = idDe(req, 'cli', 'cliente_no_encontrado', 'El cliente');
    const fecha = fechaParametro(req, 'fecha');
    const todas = parametro(req, 'todas') === '1';
    const e = await s.clientes.estadoDeCuenta(alcanceDe(req), id, { fecha });
    const abiertas = e.facturas.filter((f) => f.saldo_pendiente !== null && Number(f.saldo_pendiente) > 0);
    const csv = `/consola/clientes/${id}/estado_de_cuenta.csv${consulta({ fecha })}`;
    enviar(
      res,
      pagina(
        marco,
        `Estado de cuenta de ${e.cliente.nombre}`,
        html`<p>RFC <strong>${e.cliente.rfc}</strong> · <code>${e.cliente.id}</code></p>
          <form method="get" action="/consola/clientes/${id}" class="filtros">
            <div class="campo">
              <label for="fecha">Al día</label>
              <input id="fecha" name="fecha" type="date" value="${e.fecha}" />
            </div>
            ${todas ? html`<input type="hidden" name="todas" value="1" />` : ''}
            <button type="submit">Ver</button>
          </form>
          ${totales(e)}
          ${puede(sesion.usuario.rol, 'exportar')
            ? html`<p class="acciones">
                <a class="boton secundario" href="${csv}" download>Descargar CSV</a>
              </p>`
            : ''}
          <h2>${todas ? 'Todas las facturas' : 'Facturas con saldo'}</h2>
          <p>
            ${todas
              ? html`<a href="/consola/clientes/${id}${consulta({ fecha })}"
                  >Ver solo las que tienen saldo</a
                >`
              : html`${abiertas.length} de ${e.facturas.length} facturas tienen saldo.
                  <a href="/consola/clientes/${id}${consulta({ fecha, todas: '1' })}">Ver todas</a>`}
          </p>
          ${facturas(
            todas ? e.facturas : abiertas,
            todas ? 'Todas las facturas a esa fecha' : 'Facturas con saldo pendiente, con su antigüedad',
          )}
          <h2>Pagos</h2>
          ${pagos(e.pagos, new Map(e.facturas.map((f) => [f.id, f.serie_folio])))}`,
      ),
    );
  });

  r.get('/consola/clientes/:id/estado_de_cuenta.csv', async (req, res) => {
    exigir(req, 'exportar');
    const id = idDe(req, 'cli', 'cliente_no_encontrado', 'El cliente');
    const { archivo, csv } = await s.clientes.estadoDeCuentaCsv(alcanceDe(req), id, {
      fecha: fechaParametro(req, 'fecha'),
    });
    res
      .type('text/csv; charset=utf-8')
      .set('Content-Disposition', `attachment; filename="${archivo}"`)
      .send(csv);
  });
}
