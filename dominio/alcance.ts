/** Test mode stamps with the sandbox PAC; live mode with the real one. Every business row has one. */
export type Modo = 'test' | 'live';

/** The API request a piece of work comes from: its id (`X-Request-Id`) and the key that made it. */
export interface Origen {
  solicitudId: string;
  llaveId: string;
}

/** Who is asking: every query of a business resource is scoped by account and mode. */
export interface Alcance {
  cuentaId: string;
  modo: Modo;
  /** The API key behind the request, or `sistema` for work the service does on its own. */
  llaveId: string;
  /**
   * The request behind the work: the one being served or, in the worker, the one that started the operation
   * (its workflow input carries it). Absent when no request started it (schedules, the start reconciler).
   */
  origen?: Origen;
}

export const LLAVE_SISTEMA = 'sistema';

/**
 * The scope of work done by the service itself (workflows, schedules): same account and mode, no key, and the
 * request that started the operation when its workflow input names one.
 */
export const alcanceSistema = (d: { cuentaId: string; modo: Modo; origen?: Origen }): Alcance => ({
  cuentaId: d.cuentaId,
  modo: d.modo,
  llaveId: LLAVE_SISTEMA,
  origen: d.origen,
});
