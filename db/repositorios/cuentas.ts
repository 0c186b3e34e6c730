import type { Knex } from 'knex';
import { generarLlave, type Modo } from '../../api/llaves/material';
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
