/** Test mode stamps with the sandbox PAC; live mode with the real one. Every business row has one. */
export type Modo = 'test' | 'live';

/** Who is asking: every query of a business resource is scoped by account and mode. */
export interface Alcance {
  cuentaId: string;
  modo: Modo;
  /** The API key behind the request, or `sistema` for work the service does on its own. */
  llaveId: string;
}

export const LLAVE_SISTEMA = 'sistema';

/** The scope of work started by the service itself (workflows, schedules): same account and mode, no key. */
export const alcanceSistema = (d: { cuentaId: string; modo: Modo }): Alcance => ({
  cuentaId: d.cuentaId,
  modo: d.modo,
  llaveId: LLAVE_SISTEMA,
});
