import type { OpcionesSolicitud, Transporte } from '../transporte';

/** A path segment from an id or RFC. */
export const seg = (id: string): string => encodeURIComponent(id);

/** What every resource group holds. */
export abstract class Grupo {
  constructor(protected readonly t: Transporte) {}

  protected obtenerJson<T>(ruta: string, opciones?: OpcionesSolicitud): Promise<T> {
    return this.t.json<T>({ metodo: 'GET', ruta, opciones });
  }

  protected crearJson<T>(ruta: string, json: unknown, opciones?: OpcionesSolicitud): Promise<T> {
    return this.t.json<T>({ metodo: 'POST', ruta, json, opciones });
  }

  protected cambiarJson<T>(ruta: string, json: unknown, opciones?: OpcionesSolicitud): Promise<T> {
    return this.t.json<T>({ metodo: 'PATCH', ruta, json, opciones });
  }

  protected eliminarJson<T>(ruta: string, opciones?: OpcionesSolicitud): Promise<T> {
    return this.t.json<T>({ metodo: 'DELETE', ruta, opciones });
  }
}
