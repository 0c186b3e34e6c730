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
  RepositorioOrganizaciones,
} from '../db/repositorios/organizaciones';
import { exigirSinViolaciones } from './violaciones';
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

export function crearServicioOrganizaciones(deps: {
  organizaciones: RepositorioOrganizaciones;
  catalogos: ConsultaCatalogos;
  ahora?: () => Date;
}) {
  const ahora = deps.ahora ?? (() => new Date());
  const repo = deps.organizaciones;

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

    async crear(a: Alcance, datos: Omit<DatosOrganizacion, 'color_acento'> & { color_acento?: string }) {
      const completo = {
        ...datos,
        color_acento: (datos.color_acento ?? COLOR_ACENTO_POR_DEFECTO).toUpperCase(),
      };
      exigirSinViolaciones(validarOrganizacion(completo, deps.catalogos));
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
      return dtoOrganizacion(await fila(a, id));
    },

    obtener: async (a: Alcance, idORfc: string) => dtoOrganizacion(await fila(a, idORfc)),

    listar: async (a: Alcance, pagina: Pagina) => mapearTramo(await repo.listar(a, pagina), dtoOrganizacion),

    async actualizar(a: Alcance, idORfc: string, cambios: Partial<Omit<DatosOrganizacion, 'rfc'>>) {
      const actual = await fila(a, idORfc);
      const normalizados = cambios.color_acento
        ? { ...cambios, color_acento: cambios.color_acento.toUpperCase() }
        : cambios;
      exigirSinViolaciones(validarOrganizacion({ ...actual, ...normalizados }, deps.catalogos));
      await repo.actualizar(a, actual.id, normalizados, ahora());
      return dtoOrganizacion(await fila(a, actual.id));
    },
  };
}

export type ServicioOrganizaciones = ReturnType<typeof crearServicioOrganizaciones>;
