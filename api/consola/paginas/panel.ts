import type { Router } from 'express';
import Decimal from 'decimal.js';
import type { Servicios } from '../../../composicion/servicios';
import type { Esquema } from '../../../contrato';
import { sumarDias } from '../../../dominio/cobranza';
import { hoyEnMexico } from '../../../servicios/fechas';
import { alcanceDe } from '../../alcance';
import { aviso, enviar, importe, pagina } from '../diseno';
import { graficaBarras } from '../grafica';
import { html } from '../html';
import { consolaDe } from '../sesion';
import { avisoDe, parametro } from './comun';

type Webhook = Esquema<'Webhook'>;

const MESES = ['ene', 'feb', 'mar', 'abr', 'may', 'jun', 'jul', 'ago', 'sep', 'oct', 'nov', 'dic'];

/** `27/11` for a day, `nov 26` for a month: short enough for an axis. */
export const etiquetaPeriodo = (p: string) =>
  p.length === 10
    ? `${p.slice(8, 10)}/${p.slice(5, 7)}`
    : `${MESES[Number(p.slice(5, 7)) - 1]} ${p.slice(2, 4)}`;

/** Whole pesos on the axis: `$12k`, `$1.5M`. */
function pesosCortos(v: number): string {
  if (v >= 1e6) return `$${+(v / 1e6).toFixed(1)}M`;
  if (v >= 1e3) return `$${+(v / 1e3).toFixed(1)}k`;
  return `$${Math.round(v)}`;
}

export function paginaPanel(r: Router, s: Servicios): void {
  r.get('/consola', async (req, res) => {
    const { marco } = consolaDe(req);
    const a = alcanceDe(req);
    const porMes = parametro(req, 'agrupacion') === 'mes';
    const hoy = hoyEnMexico(new Date());
    // The last 30 days by day, or the last 12 months (this one included) by month.
    const desde = porMes ? `${sumarDias(`${hoy.slice(0, 7)}-01`, -335).slice(0, 7)}-01` : sumarDias(hoy, -29);
    const [resumen, pendientes, webhooks] = await Promise.all([
      s.resumen.facturacion(a, { desde, hasta: hoy, agrupacion: porMes ? 'mes' : 'dia' }),
      s.pendientes.contar(a),
      s.webhooks.listar(a, { limite: 100 }),
    ]);
    const fallando = (webhooks.datos as Webhook[]).filter((w) => w.salud.fallando_desde).length;
    const etiquetas = resumen.periodos.map((p) => etiquetaPeriodo(p.periodo));
    const numero = (v: string) => new Decimal(v).toNumber();
    const t = resumen.totales;
    const lapso = porMes ? 'los últimos 12 meses' : 'los últimos 30 días';
    enviar(
      res,
      pagina(
        marco,
        'Panel',
        html`${aviso(avisoDe(req))}
          <p>
            Facturación de ${lapso} en ${resumen.moneda} (facturas de ingreso por fecha de timbrado; las
            canceladas aparte; cobrado: PUE al timbrar y pagos PPD por su fecha).
            ${porMes
              ? html`<a href="/consola">Ver por día (30 días)</a>`
              : html`<a href="/consola?agrupacion=mes">Ver por mes (12 meses)</a>`}
          </p>
          <div class="tarjetas">
            <div class="tarjeta">Facturas timbradas<span class="cifra">${t.facturas_timbradas}</span></div>
            <div class="tarjeta">
              Facturado<span class="cifra">${importe(t.importe_facturado, resumen.moneda)}</span>
            </div>
            <div class="tarjeta">
              Cobrado<span class="cifra">${importe(t.importe_cobrado, resumen.moneda)}</span>
            </div>
            <div class="tarjeta">
              <a href="/consola/pendientes">Operaciones pendientes</a
              ><span class="cifra${pendientes.total ? ' alerta' : ''}"
                >${pendientes.total}${pendientes.hayMas ? '+' : ''}</span
              >
            </div>
            <div class="tarjeta">
              <a href="/consola/webhooks">Webhooks fallando</a
              ><span class="cifra${fallando ? ' alerta' : ''}">${fallando}</span>
            </div>
          </div>
          ${graficaBarras({
            id: 'importes',
            titulo: `Facturado y cobrado por ${porMes ? 'mes' : 'día'} (${resumen.moneda})`,
            etiquetas,
            series: [
              {
                nombre: 'Facturado',
                color: '#0b5cad',
                valores: resumen.periodos.map((p) => numero(p.importe_facturado)),
              },
              {
                nombre: 'Cobrado',
                color: '#1d6b35',
                valores: resumen.periodos.map((p) => numero(p.importe_cobrado)),
              },
            ],
            formato: pesosCortos,
            formatoDatos: (v) => importe(v.toFixed(2), resumen.moneda),
          })}
          ${graficaBarras({
            id: 'timbradas',
            titulo: `Facturas timbradas por ${porMes ? 'mes' : 'día'}`,
            etiquetas,
            series: [
              {
                nombre: 'Timbradas',
                color: '#5b3d99',
                valores: resumen.periodos.map((p) => p.facturas_timbradas),
              },
              {
                nombre: 'Canceladas',
                color: '#a4161a',
                valores: resumen.periodos.map((p) => p.facturas_canceladas),
              },
            ],
            // Counts: only whole gridlines get a label.
            formato: (v) => (Number.isInteger(v) ? String(v) : ''),
            formatoDatos: (v) => String(v),
          })}`,
      ),
    );
  });
}
