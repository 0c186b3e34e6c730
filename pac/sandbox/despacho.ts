import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from '../../log/logger';
import { NS_CAMPOS, NS_DE, type Servicio } from '../finkok/protocolo';
import { faltaSoap, respuestaSoap } from '../soap/sobre';
import type { ConfigSandbox } from './configuracion';
import { dormir, efectoDelModo, type EstadoFallas } from './fallas';
import type { Llamadas } from './llamadas';
import type { ManejadorSoap, Respuesta } from './respuesta';
import type { Retenidas } from './retenidas';
import { leerEntrada, type Operacion } from './solicitud';

const XML = 'text/xml; charset=utf-8';

export interface DepsDespacho {
  config: Pick<ConfigSandbox, 'latenciaMs' | 'credenciales'>;
  manejadores: Readonly<Record<Operacion, ManejadorSoap>>;
  fallas: EstadoFallas;
  retenidas: Retenidas;
  /** Counts every call, faulted ones included (GET /sandbox/llamadas). */
  llamadas?: Llamadas;
  ahora: () => Date;
  /** The PAC's local time, as Finkok writes it in incidencias. */
  fechaLocal: () => string;
  logger: Logger;
}

/**
 * The middleware chain of one SOAP service's path: the runtime fault first (an outage refuses even a
 * request it could not read), then the body, the configured latency, the envelope and the handler.
 */
export function cadenaSoap(servicio: Servicio, d: DepsDespacho): RequestHandler[] {
  /** Carries out a decision on the HTTP exchange (`operacion` names the SOAP answer's elements). */
  const enviar = (req: Request, res: Response, r: Respuesta, operacion = ''): void => {
    switch (r.tipo) {
      case 'soap':
        res
          .status(200)
          .type(XML)
          .send(respuestaSoap(operacion, NS_DE[servicio], NS_CAMPOS, r.campos));
        return;
      case 'falta':
        res.status(500).type(XML).send(faltaSoap(r.codigo, r.mensaje));
        return;
      case 'cortar':
        req.socket.destroy();
        return;
      case 'reiniciar':
        req.socket.resetAndDestroy();
        return;
      case 'retener':
        d.retenidas.retener(req, res);
    }
  };
  const filtroFallas: RequestHandler = (req, res, next) => {
    const efecto = efectoDelModo(d.fallas.tomar(d.ahora()));
    if (efecto) return enviar(req, res, efecto);
    next();
  };
  const atender: RequestHandler = async (req, res) => {
    if (d.config.latenciaMs) await dormir(d.config.latenciaMs);
    const entrada = leerEntrada(servicio, req.body, d.config.credenciales, d.fechaLocal);
    if (entrada.tipo === 'respuesta') {
      return enviar(req, res, entrada.respuesta, entrada.operacion);
    }
    const { operacion, solicitud } = entrada;
    try {
      const r = await d.manejadores[operacion](solicitud);
      enviar(req, res, r, operacion);
    } catch (e) {
      d.logger.error({ err: e, operacion }, 'PAC sandbox: error interno');
      if (!res.headersSent) {
        const mensaje = `Error interno del PAC sandbox: ${(e as Error).message}`;
        enviar(req, res, { tipo: 'falta', codigo: 'Server', mensaje });
      }
    }
  };
  const contar: RequestHandler = d.llamadas?.contar ?? ((_req, _res, next) => next());
  return [contar, filtroFallas, express.text({ type: () => true, limit: '50mb' }), atender];
}
