import { borrarBase, crearKnex, partesUrl, recrearBase, type Knex } from '../../db/conexion';
import { migrar } from '../../db/migraciones';
import * as m014 from '../../db/migrations/014_eventos_actor_recursos';

// Its own database: the migration is taken down and up again over events written before it.
const BASE = `cfdi_test_migracion_014_${process.pid}`;
const servidor = partesUrl(process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/cfdi').servidor;
const urlBase = new URL(BASE, servidor).toString();

let db: Knex;

beforeAll(async () => {
  await recrearBase(urlBase);
  // One connection: the foreign-key switch below is per session.
  db = crearKnex(urlBase, { min: 1, max: 1 });
  await migrar(db);
});

afterAll(async () => {
  await db?.destroy();
  await borrarBase(urlBase);
});

const renglonLibro = (pago_id: string, factura_id: string, num_parcialidad: number) => ({
  pago_id,
  factura_id,
  cuenta_id: 'cta_1',
  modo: 'test',
  num_parcialidad,
  uuid: '6E737601-8CC4-4A05-888B-DAB72E7BAD7F',
  moneda: 'MXN',
  decimales: 2,
  imp_saldo_anterior: '100',
  imp_pagado: '10',
  imp_saldo_insoluto: '90',
  objeto_imp: '02',
});

it('014 relaciona los eventos anteriores con sus facturas y pagos (datos y libro), por cuenta y modo', async () => {
  await m014.down(db);
  // Only the relation is under test: the rows it reads are written without their parents.
  await db.raw('SET FOREIGN_KEY_CHECKS = 0');
  const evento = (id: string, cuenta_id: string, tipo: string, datos: object) => ({
    id,
    cuenta_id,
    modo: 'test',
    tipo,
    datos: JSON.stringify(datos),
  });
  await db('eventos').insert([
    evento('evt_1', 'cta_1', 'factura.creada', { id: 'fac_a', objeto: 'factura' }),
    evento('evt_2', 'cta_1', 'pago.creado', {
      id: 'pago_p',
      factura_pago: 'fac_c',
      facturas_pagadas: [{ factura: 'fac_a' }, { factura: 'fac_b' }],
    }),
    evento('evt_3', 'cta_1', 'factura.timbrada', { id: 'fac_c', pago: 'pago_p' }),
    evento('evt_4', 'cta_1', 'certificado.vencido', { id: 'cert_x' }),
    evento('evt_5', 'cta_2', 'factura.creada', { id: 'fac_z', pago: null }),
  ]);
  await db('pagos_facturas').insert([renglonLibro('pago_p', 'fac_a', 1), renglonLibro('pago_p', 'fac_b', 1)]);
  await db.raw('SET FOREIGN_KEY_CHECKS = 1');

  await m014.up(db);

  const filas = await db('eventos_recursos').orderBy(['evento_id', 'recurso_id']);
  expect(filas.map((f) => `${f.evento_id} ${f.cuenta_id} ${f.modo} ${f.recurso_id}`)).toEqual([
    'evt_1 cta_1 test fac_a',
    'evt_2 cta_1 test fac_a',
    'evt_2 cta_1 test fac_b',
    'evt_2 cta_1 test fac_c',
    'evt_2 cta_1 test pago_p',
    // The payment CFDI's event, also about the invoices its payment paid (from the ledger).
    'evt_3 cta_1 test fac_a',
    'evt_3 cta_1 test fac_b',
    'evt_3 cta_1 test fac_c',
    'evt_3 cta_1 test pago_p',
    'evt_4 cta_1 test cert_x',
    'evt_5 cta_2 test fac_z',
  ]);
  // Nobody recorded who wrote them: the new columns stay null (the table refuses UPDATE anyway).
  expect(await db('eventos').whereNotNull('actor').orWhereNotNull('solicitud_id')).toEqual([]);
});
