import type { Router } from 'express';
import type { Servicios } from '../../../composicion/servicios';
import type { Esquema } from '../../../contrato';
import { alcanceDe } from '../../alcance';
import { aviso, pagina } from '../diseno';
import { html } from '../html';
import { enviar } from '../rutas';
import { consolaDe } from '../sesion';
import { avisoDe } from './comun';

type Webhook = Esquema<'Webhook'>;

export function paginaPanel(r: Router, s: Servicios): void {
  r.get('/consola', async (req, res) => {
    const { marco } = consolaDe(req);
    const a = alcanceDe(req);
    const [pendientes, webhooks] = await Promise.all([
      s.pendientes.contar(a),
      s.webhooks.listar(a, { limite: 100 }),
    ]);
    const fallando = (webhooks.datos as Webhook[]).filter((w) => w.salud.fallando_desde).length;
    const nPendientes = `${pendientes.total}${pendientes.hayMas ? '+' : ''}`;
    enviar(
      res,
      pagina(
        marco,
        'Panel',
        html`${aviso(avisoDe(req))}
          <div class="tarjetas">
            <div class="tarjeta">
              <a href="/consola/pendientes">Operaciones pendientes</a
              ><span class="cifra${pendientes.total ? ' alerta' : ''}">${nPendientes}</span>
            </div>
            <div class="tarjeta">
              <a href="/consola/webhooks">Webhooks fallando</a
              ><span class="cifra${fallando ? ' alerta' : ''}">${fallando}</span>
            </div>
          </div>`,
      ),
    );
  });
}
