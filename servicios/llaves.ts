import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';
import type { Modo } from '../dominio/alcance';
import { generarLlave } from '../seguridad/llaves-api';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import { nuevoId } from '../db/ids';
import type { FilaLlave, RepositorioLlaves } from '../db/repositorios/llaves';
import type { ServicioCuenta } from './cuenta';
import { iso, isoONulo } from '../presentacion/fechas';

function dto(f: FilaLlave) {
  return {
    id: f.id,
    objeto: 'llave_api' as const,
    nombre: f.nombre,
    modo: f.modo,
    prefijo: f.prefijo,
    creado_en: iso(f.creado_en),
    revocada_en: isoONulo(f.revocada_en),
    ultimo_uso_en: isoONulo(f.ultimo_uso_en),
  };
}

export const errorLiveBloqueado = () =>
  new ErrorNegocio(
    'permiso',
    'modo_live_bloqueado',
    'El modo live se habilita al completar el onboarding (POST /v1/cuenta) y tener un CSD válido y activo en una organización.',
    'modo',
  );

export function crearServicioLlaves(deps: {
  llaves: RepositorioLlaves;
  cuenta: ServicioCuenta;
  ahora?: () => Date;
}) {
  const ahora = deps.ahora ?? (() => new Date());

  async function obtener(alcance: Alcance, id: string) {
    const f = await deps.llaves.obtener(alcance.cuentaId, id);
    if (!f) throw new ErrorNegocio('no_encontrado', 'llave_no_encontrada', `La llave ${id} no existe.`, 'id');
    return f;
  }

  return {
    /** The secret leaves the service only here, once. */
    async crear(alcance: Alcance, datos: { nombre: string; modo: Modo }) {
      if (datos.modo === 'live' && !(await deps.cuenta.liveHabilitado(alcance.cuentaId)))
        throw errorLiveBloqueado();
      const material = generarLlave(datos.modo);
      const fila = {
        id: nuevoId('llave'),
        cuenta_id: alcance.cuentaId,
        modo: datos.modo,
        nombre: datos.nombre,
        prefijo: material.prefijo,
        creado_en: ahora(),
      };
      await deps.llaves.insertar({ ...fila, hash: material.hash });
      return { ...dto({ ...fila, revocada_en: null, ultimo_uso_en: null }), secreto: material.secreto };
    },

    listar: async (alcance: Alcance, pagina: Pagina) =>
      mapearTramo(await deps.llaves.listar(alcance.cuentaId, pagina), dto),

    async revocar(alcance: Alcance, id: string) {
      await obtener(alcance, id);
      await deps.llaves.revocar(alcance.cuentaId, id, ahora());
      return dto(await obtener(alcance, id));
    },
  };
}

export type ServicioLlaves = ReturnType<typeof crearServicioLlaves>;
