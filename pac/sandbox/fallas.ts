import express, { type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import type { Logger } from '../../log/logger';
import { MODOS_FALLA, type ModoFalla } from './configuracion';
import type { Magia } from './magia';
import type { Respuesta } from './respuesta';
import type { Rechazo } from './timbrado';

/**
 * Fault injection: the outage switched at runtime (POST /sandbox/fallas, PAC_SANDBOX_FALLA) and the faults
 * a document asks for with magic values (magia.ts). The decisions are pure; the dispatcher and the stamp
 * handler carry them out.
 */

export const dormir = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface CambioFallas {
  modo: ModoFalla;
  /** When the mode returns to normal by itself; null: until told otherwise. */
  hasta: Date | null;
  /** How many SOAP calls the mode still hits before it returns to normal by itself (absent: no limit). */
  veces?: number;
}

/** The runtime mode. It is read on every SOAP call, which is when an expired mode goes back to normal. */
export class EstadoFallas implements CambioFallas {
  public veces?: number;

  constructor(
    public modo: ModoFalla,
    public hasta: Date | null = null,
  ) {}

  actual(ahora: Date): ModoFalla {
    if (this.hasta && ahora >= this.hasta) this.cambiar({ modo: 'normal', hasta: null });
    return this.modo;
  }

  /** The mode a SOAP call meets; a call hit by a counted mode uses up one of its `veces`. */
  tomar(ahora: Date): ModoFalla {
    const modo = this.actual(ahora);
    if (modo !== 'normal' && this.veces !== undefined && --this.veces <= 0) {
      this.cambiar({ modo: 'normal', hasta: null });
    }
    return modo;
  }

  cambiar(c: CambioFallas): void {
    this.modo = c.modo;
    this.hasta = c.hasta;
    this.veces = c.modo === 'normal' ? undefined : c.veces;
  }
}

const esquemaCambio = z.object({
  modo: z.enum(MODOS_FALLA),
  hasta: z.iso.datetime({ offset: true }).optional(),
  duracion_ms: z.number().int().positive().max(86_400_000).optional(),
  veces: z.number().int().positive().max(10_000).optional(),
});

/**
 * The body of POST /sandbox/fallas: `hasta` wins over `duracion_ms`, `veces` ends the mode after that many
 * SOAP calls (whichever comes first), and `normal` never ends.
 */
export function leerCambioFallas(
  cuerpo: unknown,
  ahora: Date,
): { ok: true; cambio: CambioFallas } | { ok: false; detalle: string[] } {
  const r = esquemaCambio.safeParse(cuerpo);
  if (!r.success) return { ok: false, detalle: r.error.issues.map((i) => i.message) };
  const { modo, hasta, duracion_ms: duracion, veces } = r.data;
  let fin: Date | null = null;
  if (modo !== 'normal') {
    if (hasta) fin = new Date(hasta);
    else if (duracion) fin = new Date(ahora.getTime() + duracion);
  }
  return { ok: true, cambio: { modo, hasta: fin, ...(veces && modo !== 'normal' ? { veces } : {}) } };
}

/** What every SOAP call meets under the runtime mode; null lets it through. */
export function efectoDelModo(modo: ModoFalla): Respuesta | null {
  if (modo === 'caido') return { tipo: 'cortar' };
  if (modo === 'reinicio') return { tipo: 'reiniciar' };
  if (modo === 'sin_respuesta') return { tipo: 'retener' };
  if (modo === 'error_500') {
    return { tipo: 'falta', codigo: 'Server', mensaje: 'Servicio no disponible (falla simulada: error_500)' };
  }
  return null;
}

/** What a document's magic does before it is looked at; SANDBOX:ERROR_500 wins over SANDBOX:TIMEOUT. */
export function efectoDeMagia(m: Magia): Respuesta | null {
  if (m.error500)
    return { tipo: 'falta', codigo: 'Server', mensaje: 'Error interno simulado (SANDBOX:ERROR_500)' };
  if (m.timeout) return { tipo: 'retener' };
  return null;
}

/** SANDBOX:RECHAZO=code: the rejection asked for, checked after the repeat (a 307 still comes first). */
export function rechazoSimulado(m: Magia): Rechazo | null {
  if (!m.rechazo) return null;
  return { codigo: m.rechazo, mensaje: `Rechazo simulado por el PAC sandbox (SANDBOX:RECHAZO=${m.rechazo})` };
}

const comoJson = (e: CambioFallas) => ({
  modo: e.modo,
  hasta: e.hasta?.toISOString() ?? null,
  ...(e.veces !== undefined ? { veces: e.veces } : {}),
});

/**
 * GET and POST /sandbox/fallas: the operator's controls of the runtime mode. The mode hits every SOAP call,
 * whoever sends it, so `guardia` (the operator's) goes before every method.
 */
export function rutasFallas(
  estado: EstadoFallas,
  ahora: () => Date,
  logger: Logger,
  guardia: RequestHandler,
): Router {
  const rutas = express.Router();
  rutas.all('/sandbox/fallas', guardia);
  rutas.get('/sandbox/fallas', (_req, res) => {
    estado.actual(ahora());
    res.json(comoJson(estado));
  });
  rutas.post('/sandbox/fallas', express.json(), (req, res) => {
    const r = leerCambioFallas(req.body, ahora());
    if (!r.ok) {
      res.status(400).json({ error: 'cuerpo inválido', detalle: r.detalle });
      return;
    }
    estado.cambiar(r.cambio);
    logger.info(
      { modo: estado.modo, hasta: estado.hasta, veces: estado.veces },
      'PAC sandbox: modo de falla',
    );
    res.json(comoJson(estado));
  });
  return rutas;
}
