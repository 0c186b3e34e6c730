import type { Esquema } from '../contrato';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';
import type { CambiosCuenta, FilaCuenta, RepositorioCuentas } from '../db/repositorios/cuentas';
import { iso } from '../presentacion/fechas';

export interface DatosOnboarding {
  nombre?: string;
  razon_social?: string;
  rfc?: string;
  correo?: string;
  telefono?: string | null;
  sitio_web?: string | null;
  acepta_terminos?: boolean;
}

/** What onboarding still lacks, by API field name. */
function faltantes(c: FilaCuenta): string[] {
  const f: string[] = [];
  if (!c.razon_social) f.push('razon_social');
  if (!c.rfc) f.push('rfc');
  if (!c.correo) f.push('correo');
  if (!c.terminos_aceptados_en) f.push('acepta_terminos');
  return f;
}

export function crearServicioCuenta(deps: { cuentas: RepositorioCuentas; ahora?: () => Date }) {
  const ahora = deps.ahora ?? (() => new Date());

  async function fila(cuentaId: string): Promise<FilaCuenta> {
    const c = await deps.cuentas.obtener(cuentaId);
    // A key always belongs to an account; a missing one means the row was removed under us.
    if (!c) throw new ErrorNegocio('autenticacion', 'llave_invalida', 'La llave API no es válida.');
    return c;
  }

  async function liveHabilitado(c: FilaCuenta): Promise<boolean> {
    return faltantes(c).length === 0 && (await deps.cuentas.tieneCsdParaLive(c.id, ahora()));
  }

  async function dto(c: FilaCuenta): Promise<Esquema<'Cuenta'>> {
    const f = faltantes(c);
    return {
      id: c.id,
      objeto: 'cuenta' as const,
      nombre: c.nombre,
      razon_social: c.razon_social,
      rfc: c.rfc,
      correo: c.correo,
      telefono: c.telefono,
      sitio_web: c.sitio_web,
      onboarding: { completo: f.length === 0, faltantes: f },
      live_habilitado: await liveHabilitado(c),
      creado_en: iso(c.creado_en),
      actualizado_en: iso(c.actualizado_en),
    };
  }

  async function aplicar(alcance: Alcance, datos: DatosOnboarding) {
    const { acepta_terminos, ...resto } = datos;
    const cambios: CambiosCuenta = { ...resto };
    if (acepta_terminos === false) {
      throw new ErrorNegocio(
        'regla_de_negocio',
        'terminos_no_aceptados',
        'Para usar el servicio debe aceptar los términos (acepta_terminos: true).',
        'acepta_terminos',
      );
    }
    if (acepta_terminos) cambios.terminos_aceptados_en = ahora();
    await deps.cuentas.actualizar(alcance.cuentaId, cambios, ahora());
    return dto(await fila(alcance.cuentaId));
  }

  return {
    obtener: async (alcance: Alcance) => dto(await fila(alcance.cuentaId)),
    /** POST: the onboarding form; every required field must be present (the OpenAPI schema enforces it). */
    completarOnboarding: aplicar,
    actualizar: aplicar,
    liveHabilitado: async (cuentaId: string) => liveHabilitado(await fila(cuentaId)),
  };
}

export type ServicioCuenta = ReturnType<typeof crearServicioCuenta>;
