import { Paginador } from '../paginacion';
import type {
  Cuenta as TipoCuenta,
  CuentaCambios,
  CuentaOnboarding,
  FiltrosLista,
  LlaveApi,
  LlaveApiCreada,
  LlaveApiNueva,
} from '../tipos';
import type { OpcionesSolicitud } from '../transporte';
import { Grupo, seg } from './comun';

export class Cuenta extends Grupo {
  obtener(opciones?: OpcionesSolicitud): Promise<TipoCuenta> {
    return this.obtenerJson('/v1/cuenta', opciones);
  }
  /** The onboarding that live mode needs (`POST /v1/cuenta`). */
  completar(datos: CuentaOnboarding, opciones?: OpcionesSolicitud): Promise<TipoCuenta> {
    return this.crearJson('/v1/cuenta', datos, opciones);
  }
  actualizar(cambios: CuentaCambios, opciones?: OpcionesSolicitud): Promise<TipoCuenta> {
    return this.cambiarJson('/v1/cuenta', cambios, opciones);
  }
}

export class Llaves extends Grupo {
  /** A new key; its `secreto` is shown only in this answer (and in a replay with the same idempotency key). */
  crear(datos: LlaveApiNueva, opciones?: OpcionesSolicitud): Promise<LlaveApiCreada> {
    return this.crearJson('/v1/llaves_api', datos, opciones);
  }
  listar(filtros: FiltrosLista<'listarLlavesApi'> = {}, opciones?: OpcionesSolicitud): Paginador<LlaveApi> {
    return new Paginador(this.t, '/v1/llaves_api', filtros, opciones);
  }
  /** Revokes a key at once (`DELETE /v1/llaves_api/{id}`). */
  revocar(id: string, opciones?: OpcionesSolicitud): Promise<LlaveApi> {
    return this.eliminarJson(`/v1/llaves_api/${seg(id)}`, opciones);
  }
}
