import type { Esquema } from '../contrato';
import { clave } from '../presentacion/claves';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio, RegistroDuplicado } from '../dominio/errores';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import { personaDeRfc, validarOrganizacion } from '../cfdi/reglas';
import { nuevoId } from '../db/ids';
import type {
  DatosOrganizacion,
  FilaOrganizacion,
  ProgramacionGlobalPendiente,
  RepositorioOrganizaciones,
} from '../db/repositorios/organizaciones';
import { exigirSinViolaciones } from './violaciones';
import { REGIMEN_BIMESTRAL } from '../dominio/factura-global';
import type { Logger } from '../log/logger';
import { iso } from '../presentacion/fechas';

export const COLOR_ACENTO_POR_DEFECTO = '#1F4E79';

export function dtoOrganizacion(f: FilaOrganizacion): Esquema<'Organizacion'> {
  return {
    id: f.id,
    objeto: 'organizacion' as const,
    modo: f.modo,
    rfc: f.rfc,
    nombre: f.nombre,
    regimen_fiscal: clave('RegimenFiscal', f.regimen_fiscal),
    codigo_postal: f.codigo_postal,
    color_acento: f.color_acento,
    // Stored RFCs passed validarRfc, so they always name a persona type.
    persona: personaDeRfc(f.rfc)!,
    certificado_activo: f.cert_id
      ? { id: f.cert_id, no_certificado: f.cert_no_certificado!, valido_hasta: iso(f.cert_valido_hasta!) }
      : null,
    correo: f.correo,
    correo_automatico: f.correo_automatico,
    autofactura_plazo_dias: f.autofactura_plazo_dias,
    factura_global: {
      automatica: f.factura_global_automatica,
      periodicidad: f.factura_global_periodicidad as Esquema<'Periodicidad'>,
    },
    creado_en: iso(f.creado_en),
    actualizado_en: iso(f.actualizado_en),
  };
}

export const noEncontrada = (idORfc: string, parametro = 'id') =>
  new ErrorNegocio(
    'no_encontrado',
    'organizacion_no_encontrada',
    `La organización ${idORfc} no existe.`,
    parametro,
  );

/** Keeps an organization's global-invoice Temporal Schedule in step with its setting (temporal/). */
export interface ProgramadorGlobal {
  sincronizar(p: ProgramacionGlobalPendiente): Promise<void>;
}

/** The request's `factura_global`, as the columns that keep it. */
type AjusteGlobal = { automatica?: boolean; periodicidad?: string };
type Entrada<T> = T & { factura_global?: AjusteGlobal };

function columnasGlobal(g: AjusteGlobal | undefined) {
  if (!g) return {};
  return {
    ...(g.automatica === undefined ? {} : { factura_global_automatica: g.automatica }),
    ...(g.periodicidad === undefined ? {} : { factura_global_periodicidad: g.periodicidad }),
    factura_global_sincronizada: false,
  };
}

export function crearServicioOrganizaciones(deps: {
  organizaciones: RepositorioOrganizaciones;
  catalogos: ConsultaCatalogos;
  /** Absent where no schedule is kept (unit tests): the start reconciler does it then. */
  programador?: ProgramadorGlobal;
  logger?: Pick<Logger, 'warn'>;
  ahora?: () => Date;
}) {
  const ahora = deps.ahora ?? (() => new Date());
  const repo = deps.organizaciones;

  /** Bimestral only for régimen 621 (CFDI40132): checked against the setting as it will be. */
  function exigirPeriodicidad(f: Pick<FilaOrganizacion, 'regimen_fiscal' | 'factura_global_periodicidad'>) {
    if (f.factura_global_periodicidad === '05' && f.regimen_fiscal !== REGIMEN_BIMESTRAL) {
      throw new ErrorNegocio(
        'regla_de_negocio',
        'periodicidad_regimen',
        `La periodicidad 05 (bimestral) solo aplica al régimen ${REGIMEN_BIMESTRAL}; la organización tributa en el ${f.regimen_fiscal}.`,
        'factura_global.periodicidad',
      );
    }
  }

  /**
   * After the commit: the schedule follows the setting now, or the start reconciler brings it in step within a
   * minute (Temporal unreachable). A change made meanwhile stays pending for the next pass.
   */
  async function sincronizar(a: Alcance, f: FilaOrganizacion): Promise<void> {
    if (f.factura_global_sincronizada || !deps.programador) return;
    try {
      await deps.programador.sincronizar({
        id: f.id,
        cuenta_id: a.cuentaId,
        modo: f.modo,
        automatica: f.factura_global_automatica,
        periodicidad: f.factura_global_periodicidad,
        codigo_postal: f.codigo_postal,
        actualizado_en: f.actualizado_en,
      });
      await repo.marcarSincronizada(a, f.id, f.actualizado_en);
    } catch (e) {
      deps.logger?.warn({ err: e, organizacion: f.id }, 'programación de la factura global pendiente');
    }
  }

  async function fila(a: Alcance, idORfc: string, parametro = 'id'): Promise<FilaOrganizacion> {
    const f = await repo.obtener(a, idORfc);
    if (!f) throw noEncontrada(idORfc, parametro);
    return f;
  }

  return {
    /** For other services: resolves an organization given by id or RFC, in the caller's scope. */
    resolver: fila,

    /** The id behind an optional `organizacion` list filter (id or RFC); unknown → 404 naming the filter. */
    async idDeFiltro(a: Alcance, organizacion: string | undefined): Promise<string | undefined> {
      return organizacion ? (await fila(a, organizacion, 'organizacion')).id : undefined;
    },

    async crear(
      a: Alcance,
      entrada: Entrada<Omit<DatosOrganizacion, 'color_acento'> & { color_acento?: string }>,
    ) {
      const { factura_global, ...datos } = entrada;
      const completo = {
        ...datos,
        color_acento: (datos.color_acento ?? COLOR_ACENTO_POR_DEFECTO).toUpperCase(),
        ...columnasGlobal(factura_global),
      };
      exigirSinViolaciones(validarOrganizacion(completo, deps.catalogos));
      exigirPeriodicidad({ factura_global_periodicidad: '04', ...completo });
      const id = nuevoId('org');
      try {
        await repo.insertar(a, id, completo, ahora());
      } catch (e) {
        if (!(e instanceof RegistroDuplicado)) throw e;
        throw new ErrorNegocio(
          'conflicto',
          'organizacion_duplicada',
          `Ya existe una organización con el RFC ${datos.rfc} en este modo.`,
          'rfc',
        );
      }
      await sincronizar(a, await fila(a, id));
      return dtoOrganizacion(await fila(a, id));
    },

    obtener: async (a: Alcance, idORfc: string) => dtoOrganizacion(await fila(a, idORfc)),

    listar: async (a: Alcance, pagina: Pagina) => mapearTramo(await repo.listar(a, pagina), dtoOrganizacion),

    async actualizar(a: Alcance, idORfc: string, entrada: Entrada<Partial<Omit<DatosOrganizacion, 'rfc'>>>) {
      const { factura_global, ...cambios } = entrada;
      const actual = await fila(a, idORfc);
      const normalizados = {
        ...(cambios.color_acento
          ? { ...cambios, color_acento: cambios.color_acento.toUpperCase() }
          : cambios),
        ...columnasGlobal(factura_global),
      };
      exigirSinViolaciones(validarOrganizacion({ ...actual, ...normalizados }, deps.catalogos));
      exigirPeriodicidad({ ...actual, ...normalizados });
      await repo.actualizar(a, actual.id, normalizados, ahora());
      await sincronizar(a, await fila(a, actual.id));
      return dtoOrganizacion(await fila(a, actual.id));
    },
  };
}

export type ServicioOrganizaciones = ReturnType<typeof crearServicioOrganizaciones>;
