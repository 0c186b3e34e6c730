import type { Esquema } from '../../contrato';
import type { Knex } from 'knex';
import { nuevoId } from '../../db/ids';
import { crearCuentaConLlave } from '../../db/repositorios/cuentas';
import { generarLlave } from '../../seguridad/llaves-api';
import { clienteHttp, type ClienteHttp } from './cliente-http';

export interface CuentaDePrueba {
  cuentaId: string;
  secreto: string;
  http: ClienteHttp;
}

/** A fresh account with its first test key, as `npm run cuenta:crear` makes one. */
export async function nuevaCuenta(
  db: Knex,
  url: string,
  nombre = 'Cuenta de prueba',
): Promise<CuentaDePrueba> {
  const c = await crearCuentaConLlave(db, nombre);
  return { cuentaId: c.cuenta.id, secreto: c.llave.secreto, http: clienteHttp(url, c.llave.secreto) };
}

/**
 * A live key written straight to the database: the first live key comes from the operator command once
 * live mode is unlocked (which needs certificates), and isolation tests need one now.
 */
export async function llaveLiveDirecta(db: Knex, cuentaId: string): Promise<string> {
  const m = generarLlave('live');
  await db('llaves_api').insert({
    id: nuevoId('llave'),
    cuenta_id: cuentaId,
    modo: 'live',
    nombre: 'live directa',
    prefijo: m.prefijo,
    hash: m.hash,
  });
  return m.secreto;
}

export const ORGANIZACION = {
  rfc: 'EKU9003173C9',
  nombre: 'ESCUELA KEMPER URGATE',
  regimen_fiscal: '601',
  codigo_postal: '42501',
} satisfies Esquema<'OrganizacionNueva'>;

export const CLIENTE = {
  rfc: 'MASO451221PM4',
  nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
  regimen_fiscal: '612',
  domicilio_fiscal: '80290',
  uso_cfdi: 'G03',
} satisfies Omit<Esquema<'ClienteNuevo'>, 'organizacion'>;

export const PRODUCTO = {
  descripcion: 'Servicio de consultoría',
  valor_unitario: '1500',
  clave_prod_serv: '80111600',
  clave_unidad: 'E48',
  unidad: 'Servicio',
  no_identificacion: 'CONS-01',
  objeto_imp: '02',
  impuestos_default: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
};

/**
 * Unlocks live mode the way the certificate endpoints will: onboarding complete plus an active, valid,
 * non-test CSD row on one of the account's organizations (written directly: no real CSD is at hand).
 */
export async function habilitarLive(db: Knex, cuentaId: string): Promise<void> {
  await db('cuentas').where({ id: cuentaId }).update({
    razon_social: 'CUENTA LIVE SA DE CV',
    rfc: 'EKU9003173C9',
    correo: 'live@example.com',
    terminos_aceptados_en: new Date(),
  });
  const orgId = nuevoId('org');
  await db('organizaciones').insert({
    id: orgId,
    cuenta_id: cuentaId,
    modo: 'test',
    rfc: `LIV${String(Date.now()).slice(-6)}AB1`,
    nombre: 'ORG LIVE',
    regimen_fiscal: '601',
    codigo_postal: '42501',
    color_acento: '#000000',
  });
  await db('certificados').insert({
    id: nuevoId('cert'),
    cuenta_id: cuentaId,
    modo: 'test',
    organizacion_id: orgId,
    no_certificado: '00001000000500000000',
    rfc: 'EKU9003173C9',
    valido_desde: new Date(Date.now() - 86_400_000),
    valido_hasta: new Date(Date.now() + 365 * 86_400_000),
    de_prueba: false,
    activo: true,
    cer: Buffer.from('x'),
    llave_cifrada: Buffer.from('x'),
    contrasena_cifrada: Buffer.from('x'),
    dek_cifrada: Buffer.from('x'),
    version_clave: 1,
  });
}
