import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import type { Pagina, Tramo } from '../../dominio/paginacion';
import { paginar } from '../paginacion';
import { conexion, type Transaccion } from '../transacciones';
import { columnasAlcance, conAlcance, sinDuplicar } from './con-alcance';

/** What the API shows of a certificate: metadata only. */
export interface FilaCertificado {
  id: string;
  modo: Modo;
  organizacion_id: string;
  no_certificado: string;
  rfc: string;
  nombre_titular: string;
  valido_desde: Date;
  valido_hasta: Date;
  de_prueba: boolean | number;
  activo: boolean | number;
  creado_en: Date;
  actualizado_en: Date;
}

/** The sealed secrets, read only by the code that signs. */
export interface SecretosCertificado {
  cer: Buffer;
  llave_cifrada: Buffer;
  contrasena_cifrada: Buffer;
  dek_cifrada: Buffer;
  version_clave: number;
}

const METADATOS = [
  'id',
  'modo',
  'organizacion_id',
  'no_certificado',
  'rfc',
  'nombre_titular',
  'valido_desde',
  'valido_hasta',
  'de_prueba',
  'activo',
  'creado_en',
  'actualizado_en',
];

export function crearRepositorioCertificados(db: Knex) {
  const metadatos = (a: Alcance) => conAlcance(db, 'certificados', a).select(METADATOS);

  /** One active certificate per organization: activating one deactivates the others, atomically. */
  async function activar(trx: Knex.Transaction, a: Alcance, organizacionId: string, id: string, ahora: Date) {
    await conAlcance(trx, 'certificados', a)
      .where({ organizacion_id: organizacionId, activo: true })
      .whereNot({ id })
      .update({ activo: false, actualizado_en: ahora });
    await conAlcance(trx, 'certificados', a).where({ id }).update({ activo: true, actualizado_en: ahora });
  }

  return {
    listar(
      a: Alcance,
      filtros: { organizacionId?: string },
      pagina: Pagina,
    ): Promise<Tramo<FilaCertificado>> {
      const c = metadatos(a);
      if (filtros.organizacionId) c.where('organizacion_id', filtros.organizacionId);
      return paginar(c, pagina);
    },
    async obtener(a: Alcance, id: string): Promise<FilaCertificado | undefined> {
      return metadatos(a).where({ id }).first();
    },
    async insertarActivo(
      a: Alcance,
      fila: Omit<FilaCertificado, 'modo' | 'activo' | 'creado_en' | 'actualizado_en'> & SecretosCertificado,
      ahora: Date,
    ): Promise<void> {
      await sinDuplicar(() =>
        db.transaction(async (trx) => {
          await trx('certificados').insert({
            ...fila,
            ...columnasAlcance(a),
            activo: false,
            creado_en: ahora,
            actualizado_en: ahora,
          });
          await activar(trx, a, fila.organizacion_id, fila.id, ahora);
        }),
      );
    },
    async cambiarActivo(a: Alcance, fila: FilaCertificado, activo: boolean, ahora: Date): Promise<void> {
      await db.transaction(async (trx) => {
        if (activo) await activar(trx, a, fila.organizacion_id, fila.id, ahora);
        else
          await conAlcance(trx, 'certificados', a)
            .where({ id: fila.id })
            .update({ activo: false, actualizado_en: ahora });
      });
    },
    /** The organization's active certificate, metadata only. */
    async activo(a: Alcance, organizacionId: string): Promise<FilaCertificado | undefined> {
      return metadatos(a).where({ organizacion_id: organizacionId, activo: true }).first();
    },
    /** The signing material of the organization's active certificate (still sealed). */
    async activoConSecretos(
      a: Alcance,
      organizacionId: string,
    ): Promise<(FilaCertificado & SecretosCertificado) | undefined> {
      return conAlcance(db, 'certificados', a)
        .where({ organizacion_id: organizacionId, activo: true })
        .select([...METADATOS, 'cer', 'llave_cifrada', 'contrasena_cifrada', 'dek_cifrada', 'version_clave'])
        .first();
    },
    /**
     * Active certificates across every account that are due the expiry notice `tipo` and have not had it:
     * `por_vencer` while still valid and expiring before `limite`, `vencido` once expired.
     */
    async sinAviso(
      tipo: TipoAvisoCertificado,
      ahora: Date,
      limite: Date,
      cuantos: number,
    ): Promise<(FilaCertificado & { cuenta_id: string })[]> {
      const c = db('certificados as c')
        .leftJoin('avisos_certificados as v', function () {
          this.on('v.certificado_id', 'c.id').andOnVal('v.tipo', tipo);
        })
        .select([...METADATOS.map((m) => `c.${m}`), 'c.cuenta_id'])
        .where('c.activo', true)
        .whereNull('v.certificado_id')
        .orderBy('c.valido_hasta')
        .limit(cuantos);
      if (tipo === 'certificado.vencido') c.where('c.valido_hasta', '<=', ahora);
      else c.where('c.valido_hasta', '>', ahora).andWhere('c.valido_hasta', '<=', limite);
      return c;
    },
    /** The notice is given once: a second one for the same certificate and type is `RegistroDuplicado`. */
    async registrarAviso(
      tx: Transaccion,
      certificadoId: string,
      tipo: TipoAvisoCertificado,
      eventoId: string,
    ): Promise<void> {
      await sinDuplicar(() =>
        conexion(
          db,
          tx,
        )('avisos_certificados').insert({ certificado_id: certificadoId, tipo, evento_id: eventoId }),
      );
    },
  };
}

export type TipoAvisoCertificado = 'certificado.por_vencer' | 'certificado.vencido';

export type RepositorioCertificados = ReturnType<typeof crearRepositorioCertificados>;
