import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio, RegistroDuplicado } from '../dominio/errores';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import { validarCsd } from '../cfdi/csd';
import { nuevoId } from '../db/ids';
import type { FilaCertificado, RepositorioCertificados } from '../db/repositorios/certificados';
import type { Boveda } from '../seguridad/boveda';
import type { ServicioOrganizaciones } from './organizaciones';
import type { Violacion } from '../cfdi/reglas/tipos';
import { errorDeViolaciones } from './violaciones';
import { iso } from '../presentacion/fechas';
import { dtoCertificado as dto, mensajeCertificadoVencido } from '../presentacion/certificado';

export interface CsdSubido {
  organizacion: string;
  cer: Buffer;
  llave: Buffer;
  contrasena: string;
}

/**
 * Refuses, before anything is written or reaches the PAC, what could not be sealed: an organization without an
 * active CSD, or whose active CSD expired (the stamping checks again, for a change in between).
 */
export type VerificadorCsd = (a: Alcance, organizacionId: string, parametro: string) => Promise<void>;

export function crearVerificadorCsd(deps: {
  certificados: Pick<RepositorioCertificados, 'activo'>;
  ahora?: () => Date;
}): VerificadorCsd {
  const ahora = deps.ahora ?? (() => new Date());
  return async (a, organizacionId, parametro) => {
    const c = await deps.certificados.activo(a, organizacionId);
    if (!c) {
      throw new ErrorNegocio(
        'regla_de_negocio',
        'sin_certificado_activo',
        `La organización ${organizacionId} no tiene un certificado (CSD) activo y no puede sellar: súbalo con ` +
          'POST /v1/certificados (una factura con auto_timbrar: false se guarda como borrador sin él).',
        parametro,
      );
    }
    if (new Date(c.valido_hasta).getTime() <= ahora().getTime()) {
      throw errorCertificadoVencido(c, parametro);
    }
  };
}

const errorCertificadoVencido = (c: FilaCertificado, parametro: string) =>
  new ErrorNegocio('regla_de_negocio', 'certificado_vencido', mensajeCertificadoVencido(c), parametro);

export function crearServicioCertificados(deps: {
  certificados: RepositorioCertificados;
  organizaciones: ServicioOrganizaciones;
  boveda: Boveda;
  ahora?: () => Date;
}) {
  const ahora = deps.ahora ?? (() => new Date());
  const repo = deps.certificados;

  async function fila(a: Alcance, id: string): Promise<FilaCertificado> {
    const f = await repo.obtener(a, id);
    if (!f)
      throw new ErrorNegocio(
        'no_encontrado',
        'certificado_no_encontrado',
        `El certificado ${id} no existe.`,
        'id',
      );
    return f;
  }

  return {
    /** Validates the CSD for the organization and mode, seals key and password, and makes it the active one. */
    async crear(a: Alcance, s: CsdSubido) {
      const org = await deps.organizaciones.resolver(a, s.organizacion, 'organizacion');
      const r = validarCsd({
        cer: s.cer,
        llave: s.llave,
        contrasena: s.contrasena,
        rfcEsperado: org.rfc,
        ahora: ahora(),
        modo: a.modo,
      });
      if (!r.ok) throw errorDeViolaciones(r.violaciones as [Violacion, ...Violacion[]]);
      const id = nuevoId('cert');
      const sellado = deps.boveda.sellar(
        { cuentaId: a.cuentaId, modo: a.modo, registroId: id },
        { llave: s.llave, contrasena: Buffer.from(s.contrasena, 'utf8') },
      );
      const c = r.certificado;
      try {
        await repo.insertarActivo(
          a,
          {
            id,
            organizacion_id: org.id,
            no_certificado: c.noCertificado,
            rfc: c.rfc || org.rfc,
            nombre_titular: c.nombre,
            valido_desde: c.validoDesde,
            valido_hasta: c.validoHasta,
            de_prueba: c.emisorEsPrueba,
            // Always DER, whatever encoding was uploaded.
            cer: Buffer.from(c.certificadoBase64, 'base64'),
            llave_cifrada: sellado.campos.llave!,
            contrasena_cifrada: sellado.campos.contrasena!,
            dek_cifrada: sellado.dekCifrada,
            version_clave: sellado.version,
          },
          ahora(),
        );
      } catch (e) {
        if (!(e instanceof RegistroDuplicado)) throw e;
        throw new ErrorNegocio(
          'conflicto',
          'certificado_duplicado',
          `El certificado ${c.noCertificado} ya está cargado en la organización ${org.rfc}.`,
          'cer',
        );
      }
      return dto(await fila(a, id));
    },

    obtener: async (a: Alcance, id: string) => dto(await fila(a, id)),

    async listar(a: Alcance, filtros: { organizacion?: string }, pagina: Pagina) {
      const organizacionId = await deps.organizaciones.idDeFiltro(a, filtros.organizacion);
      return mapearTramo(await repo.listar(a, { organizacionId }, pagina), dto);
    },

    async cambiarActivo(a: Alcance, id: string, activo: boolean) {
      const f = await fila(a, id);
      if (activo && new Date(f.valido_hasta).getTime() <= ahora().getTime()) {
        throw new ErrorNegocio(
          'regla_de_negocio',
          'certificado_vencido',
          `El certificado ${f.no_certificado} venció el ${iso(f.valido_hasta).slice(0, 10)}: no puede activarse.`,
          'activo',
        );
      }
      await repo.cambiarActivo(a, f, activo, ahora());
      return dto(await fila(a, id));
    },
  };
}

export type ServicioCertificados = ReturnType<typeof crearServicioCertificados>;
