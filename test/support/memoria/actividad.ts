import { asyncLocalStorage, type Context } from '@temporalio/activity';

/**
 * @temporalio/testing (MockActivityEnvironment) is not a dependency: this runs activity code with the bare
 * Context it reads (`info.isLocal`, `heartbeat`), through the same AsyncLocalStorage the SDK uses.
 */
export function crearContextoActividad(o: { local?: boolean } = {}) {
  let latidos = 0;
  const contexto = {
    info: { isLocal: o.local ?? false },
    heartbeat: () => void (latidos += 1),
  } as unknown as Context;
  return {
    ejecutar: <T>(f: () => Promise<T>): Promise<T> => asyncLocalStorage.run(contexto, f),
    latidos: () => latidos,
  };
}
