import type { Esquema } from '../contrato';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';
import type { Modo } from '../dominio/alcance';
import { generarLlave } from '../seguridad/llaves-api';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import { nuevoId } from '../db/ids';
import type { FilaLlave, RepositorioLlaves } from '../db/repositorios/llaves';
import type { ServicioCuenta } from './cuenta';
import { iso, isoONulo } from '../presentacion/fechas';

function dto(f: FilaLlave): Esquema<'LlaveApi'> {
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

export const errorModoNoPermitido = () =>
  new ErrorNegocio(
    'permiso',
    'modo_no_permitido',
    'Una llave test solo crea y administra llaves test. La primera llave live la emite el operador del servicio una vez habilitado el modo live (GET /v1/cuenta muestra live_habilitado); con una llave live se crean las demás.',
    'modo',
  );

/** A test key manages only test keys; a live key manages the account's keys of both modes. */
export const modosAdministrables = (modo: Modo): readonly Modo[] =>
  modo === 'live' ? ['test', 'live'] : ['test'];

export function crearServicioLlaves(deps: {
  llaves: RepositorioLlaves;
  cuenta: ServicioCuenta;
  ahora?: () => Date;
}) {
  const ahora = deps.ahora ?? (() => new Date());

  async function obtener(alcance: Alcance, id: string) {
    const f = await deps.llaves.obtener(alcance.cuentaId, id, modosAdministrables(alcance.modo));
    // A key of a mode the caller may not manage answers like a missing one.
    if (!f) throw new ErrorNegocio('no_encontrado', 'llave_no_encontrada', `La llave ${id} no existe.`, 'id');
    return f;
  }

  /** The secret leaves the service only here, once. */
  async function emitir(cuentaId: string, datos: { nombre: string; modo: Modo }) {
    if (datos.modo === 'live' && !(await deps.cuenta.liveHabilitado(cuentaId))) throw errorLiveBloqueado();
    const material = generarLlave(datos.modo);
    const fila = {
      id: nuevoId('llave'),
      cuenta_id: cuentaId,
      modo: datos.modo,
      nombre: datos.nombre,
      prefijo: material.prefijo,
      creado_en: ahora(),
    };
    await deps.llaves.insertar({ ...fila, hash: material.hash });
    return { ...dto({ ...fila, revocada_en: null, ultimo_uso_en: null }), secreto: material.secreto };
  }

  return {
    async crear(alcance: Alcance, datos: { nombre: string; modo: Modo }) {
      // Checked before the live lock: a test key never gets a live key, whatever the account's state.
      if (!modosAdministrables(alcance.modo).includes(datos.modo)) throw errorModoNoPermitido();
      return emitir(alcance.cuentaId, datos);
    },

    /**
     * The operator's command (`npm run llave:crear`), outside any API key: how an account gets its first
     * live key. The live lock still applies.
     */
    crearPorOperador: emitir,

    listar: async (alcance: Alcance, pagina: Pagina) =>
      mapearTramo(await deps.llaves.listar(alcance.cuentaId, modosAdministrables(alcance.modo), pagina), dto),

    async revocar(alcance: Alcance, id: string) {
      await obtener(alcance, id);
      await deps.llaves.revocar(alcance.cuentaId, id, modosAdministrables(alcance.modo), ahora());
      return dto(await obtener(alcance, id));
    },
  };
}

export type ServicioLlaves = ReturnType<typeof crearServicioLlaves>;
