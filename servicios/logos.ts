import { createHash } from 'node:crypto';
import type { Esquema } from '../contrato';
import type { FilaLogo, RepositorioLogos, TipoLogo } from '../db/repositorios/logos';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio, noEncontrado } from '../dominio/errores';
import { iso } from '../presentacion/fechas';
import type { ServicioOrganizaciones } from './organizaciones';

/** The largest logo accepted: the portal sends it inline with every receipt it shows. */
export const LOGO_MAXIMO_BYTES = 256 * 1024;

/** The first bytes of each accepted format: the declared type must agree with what the bytes are. */
const FIRMAS: [TipoLogo, number[]][] = [
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
];

/** What the bytes are, by their magic number; undefined when neither PNG nor JPEG. */
export function tipoPorFirma(datos: Uint8Array): TipoLogo | undefined {
  return FIRMAS.find(([, firma]) => firma.every((b, i) => datos[i] === b))?.[0];
}

const esTipoLogo = (t: string): t is TipoLogo => t === 'image/png' || t === 'image/jpeg';

const NOMBRES: Record<TipoLogo, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG' };

export const dtoLogo = (organizacionId: string, a: Pick<Alcance, 'modo'>, f: Omit<FilaLogo, 'datos'>) =>
  ({
    objeto: 'logo',
    organizacion: organizacionId,
    modo: a.modo,
    tipo: f.tipo,
    bytes: f.bytes,
    sha256: f.sha256,
    actualizado_en: iso(f.actualizado_en),
  }) satisfies Esquema<'LogoOrganizacion'>;

export function crearServicioLogos(deps: {
  logos: RepositorioLogos;
  organizaciones: Pick<ServicioOrganizaciones, 'resolver'>;
  ahora?: () => Date;
}) {
  const ahora = deps.ahora ?? (() => new Date());
  const invalido = (mensaje: string) =>
    new ErrorNegocio('regla_de_negocio', 'logo_invalido', mensaje, 'cuerpo');

  return {
    /** PUT …/logo: `tipo` is the request's Content-Type (the contract admits only PNG and JPEG). */
    async subir(a: Alcance, idORfc: string, tipo: string, datos: Buffer) {
      const org = await deps.organizaciones.resolver(a, idORfc);
      if (!esTipoLogo(tipo)) {
        throw invalido(`El logo debe enviarse como image/png o image/jpeg, no como ${tipo}.`);
      }
      if (datos.length === 0)
        throw invalido('El logo está vacío: envíe la imagen en el cuerpo de la solicitud.');
      if (datos.length > LOGO_MAXIMO_BYTES) {
        throw new ErrorNegocio(
          'regla_de_negocio',
          'logo_demasiado_grande',
          `El logo pesa ${datos.length} bytes; el máximo es ${LOGO_MAXIMO_BYTES} (256 KB).`,
          'cuerpo',
        );
      }
      const real = tipoPorFirma(datos);
      if (real !== tipo) {
        throw invalido(
          real
            ? `El contenido es una imagen ${NOMBRES[real]}, pero se declaró ${tipo}: envíela con Content-Type ${real}.`
            : `El contenido no es una imagen ${NOMBRES[tipo]}: sus primeros bytes no son los de ese formato.`,
        );
      }
      const fila = {
        organizacion_id: org.id,
        tipo,
        datos,
        sha256: createHash('sha256').update(datos).digest('hex'),
        actualizado_en: ahora(),
      };
      await deps.logos.guardar(a, fila);
      return dtoLogo(org.id, a, { ...fila, bytes: datos.length });
    },

    async obtener(a: Alcance, idORfc: string): Promise<FilaLogo> {
      const org = await deps.organizaciones.resolver(a, idORfc);
      const logo = await deps.logos.obtener(a, org.id);
      if (!logo) throw sinLogo(org.id);
      return logo;
    },

    async eliminar(a: Alcance, idORfc: string) {
      const org = await deps.organizaciones.resolver(a, idORfc);
      if (!(await deps.logos.eliminar(a, org.id))) throw sinLogo(org.id);
      return { id: org.id, objeto: 'logo', eliminado: true } satisfies Esquema<'Eliminado'>;
    },
  };
}

const sinLogo = (organizacionId: string) =>
  noEncontrado('logo_no_encontrado', `La organización ${organizacionId} no tiene logo.`);

export type ServicioLogos = ReturnType<typeof crearServicioLogos>;
