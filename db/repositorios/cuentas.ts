import type { Knex } from 'knex';
import type { Modo } from '../../dominio/alcance';
import { generarLlave } from '../../seguridad/llaves-api';
import { nuevoId } from '../ids';

export interface CuentaCreada {
  cuenta: { id: string; nombre: string; creado_en: string };
  llave: { id: string; prefijo: string; secreto: string; nombre: string; modo: Modo };
}

/** Creates an account with its first test key, in one transaction. The secret leaves only here. */
export async function crearCuentaConLlave(db: Knex, nombre: string): Promise<CuentaCreada> {
  const cuentaId = nuevoId('cta');
  const llaveId = nuevoId('llave');
  const material = generarLlave('test');
  const creado = new Date();
  await db.transaction(async (trx) => {
    await trx('cuentas').insert({ id: cuentaId, nombre, creado_en: creado, actualizado_en: creado });
    await trx('llaves_api').insert({
      id: llaveId,
      cuenta_id: cuentaId,
      modo: 'test',
      nombre: 'Llave inicial de pruebas',
      prefijo: material.prefijo,
      hash: material.hash,
      creado_en: creado,
    });
  });
  return {
    cuenta: { id: cuentaId, nombre, creado_en: creado.toISOString() },
    llave: {
      id: llaveId,
      prefijo: material.prefijo,
      secreto: material.secreto,
      nombre: 'Llave inicial de pruebas',
      modo: 'test',
    },
  };
}

export interface FilaCuenta {
  id: string;
  nombre: string;
  razon_social: string | null;
  rfc: string | null;
  correo: string | null;
  telefono: string | null;
  sitio_web: string | null;
  terminos_aceptados_en: Date | null;
  creado_en: Date;
  actualizado_en: Date;
}

export type CambiosCuenta = Partial<Omit<FilaCuenta, 'id' | 'creado_en' | 'actualizado_en'>>;

export function crearRepositorioCuentas(db: Knex) {
  return {
    async obtener(id: string): Promise<FilaCuenta | undefined> {
      return db('cuentas')
        .select('id', 'nombre', 'razon_social', 'rfc', 'correo', 'telefono', 'sitio_web')
        .select('terminos_aceptados_en', 'creado_en', 'actualizado_en')
        .where({ id })
        .first();
    },

    async actualizar(id: string, cambios: CambiosCuenta, ahora: Date): Promise<void> {
      await db('cuentas')
        .where({ id })
        .update({ ...cambios, actualizado_en: ahora });
    },

    /**
     * The CSD half of the live-mode requirement: an active, unexpired certificate of one of the account's
     * organizations that the SAT's test CA did not issue.
     */
    async tieneCsdParaLive(id: string, ahora: Date): Promise<boolean> {
      const fila = await db('certificados')
        .where({ cuenta_id: id, activo: true, de_prueba: false })
        .where('valido_desde', '<=', ahora)
        .where('valido_hasta', '>', ahora)
        .first('id');
      return Boolean(fila);
    },
  };
}

export type RepositorioCuentas = ReturnType<typeof crearRepositorioCuentas>;
