/**
 * Magic values: fault injection chosen by the document itself, so an integrator can exercise every
 * branch with nothing but a request. They go in the `Serie` or `CondicionesDePago` attribute of the
 * sealed CFDI (several can share CondicionesDePago, separated by spaces):
 *
 * | value                      | effect on `stamp` / `quick_stamp`                                          |
 * |----------------------------|-----------------------------------------------------------------------------|
 * | `SANDBOX:LATENCIA=3000`    | answers after 3000 ms more                                                  |
 * | `SANDBOX:ERROR_500`        | HTTP 500 with a SOAP Fault, every time                                      |
 * | `SANDBOX:TIMEOUT`          | never answers (the connection is closed after PAC_SANDBOX_ESPERA_MAXIMA_MS) |
 * | `SANDBOX:PERDIDA`          | stamps and stores, then drops the connection: the "lost answer". Repeating  |
 * |                            | the stamp answers 307 with the original; `stamped` returns it               |
 * | `SANDBOX:RECHAZO=CFDI40145`| rejects with that CodigoError                                               |
 * | `SANDBOX:CON_ACEPTACION`   | its cancellation needs the receiver's answer whatever the amount or age    |
 * | `SANDBOX:PLAZO=2000`       | the receiver's term for its cancellation is 2000 ms                         |
 *
 * Detection is one substring search over the XML (`SANDBOX:`); the attributes are read only when it hits.
 */

export const MARCA = 'SANDBOX:';

export interface Magia {
  latenciaMs?: number;
  error500?: boolean;
  timeout?: boolean;
  perdida?: boolean;
  rechazo?: string;
  conAceptacion?: boolean;
  plazoMs?: number;
}

export const hayMagia = (xml: string): boolean => xml.includes(MARCA);

const PATRON = /SANDBOX:([A-Z_0-9]+)(?:=([A-Za-z0-9]+))?/g;
const MAX_MS = 600_000;

/** The magic values in the given attribute values; unknown names are ignored. */
export function leerMagia(valores: readonly (string | undefined)[]): Magia {
  const m: Magia = {};
  for (const valor of valores) {
    if (!valor?.includes(MARCA)) continue;
    for (const [, nombre, argumento] of valor.matchAll(PATRON)) {
      const numero =
        argumento !== undefined && /^\d{1,9}$/.test(argumento)
          ? Math.min(Number(argumento), MAX_MS)
          : undefined;
      switch (nombre) {
        case 'LATENCIA':
          if (numero !== undefined) m.latenciaMs = numero;
          break;
        case 'ERROR_500':
          m.error500 = true;
          break;
        case 'TIMEOUT':
          m.timeout = true;
          break;
        case 'PERDIDA':
          m.perdida = true;
          break;
        case 'RECHAZO':
          if (argumento) m.rechazo = argumento;
          break;
        case 'CON_ACEPTACION':
          m.conAceptacion = true;
          break;
        case 'PLAZO':
          if (numero !== undefined) m.plazoMs = numero;
          break;
      }
    }
  }
  return m;
}
