import express, { type RequestHandler, type Router } from 'express';

/** Calls of one SOAP operation: how many arrived (faulted ones included) and how many are still open. */
export interface CuentaLlamadas {
  recibidas: number;
  en_curso: number;
}

/**
 * The SOAP calls the sandbox has seen, per operation (the SOAPAction header), read at GET /sandbox/llamadas:
 * fault-injection tests see how many calls a fault cost and whether a call is open at the PAC right now.
 */
export class Llamadas {
  private readonly cuentas = new Map<string, CuentaLlamadas>();

  /** First in a SOAP path's chain, so calls an injected fault refuses are counted too. */
  readonly contar: RequestHandler = (req, res, next) => {
    const operacion = String(req.headers['soapaction'] ?? '').replace(/"/g, '') || 'desconocida';
    const c = this.cuentas.get(operacion) ?? { recibidas: 0, en_curso: 0 };
    this.cuentas.set(operacion, c);
    c.recibidas++;
    c.en_curso++;
    res.once('close', () => c.en_curso--);
    next();
  };

  leer(): Record<string, CuentaLlamadas> {
    return Object.fromEntries([...this.cuentas].map(([op, c]) => [op, { ...c }]));
  }
}

export function rutasLlamadas(llamadas: Llamadas): Router {
  const rutas = express.Router();
  rutas.get('/sandbox/llamadas', (_req, res) => {
    res.json(llamadas.leer());
  });
  return rutas;
}
