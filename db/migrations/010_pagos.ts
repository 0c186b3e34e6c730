import type { Knex } from 'knex';

/**
 * Payments of PPD invoices. `pagos` holds the request as received and what became of it; `pagos_facturas` is
 * the ledger: one row per (payment, paid invoice) with the instalment and the balances before and after.
 * An invoice's balance is its total minus the `imp_pagado` of its vigente rows; nothing else stores it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pagos', (t) => {
    t.string('id', 40).primary();
    t.string('cuenta_id', 40).notNullable().references('cuentas.id');
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('organizacion_id', 40).notNullable().references('organizaciones.id');
    t.enum('estado', ['registrando', 'registrado', 'rechazado']).notNullable();
    // The request as validated by the API; the ledger activity reads it (workflows carry ids only).
    t.json('solicitud').notNullable();
    t.json('error').nullable();
    t.string('factura_pago_id', 40).nullable().unique();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('actualizado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['cuenta_id', 'modo', 'id']);
    t.index(['cuenta_id', 'modo', 'organizacion_id', 'id']);
  });

  await knex.schema.createTable('pagos_facturas', (t) => {
    t.string('pago_id', 40).notNullable().references('pagos.id');
    t.string('factura_id', 40).notNullable().references('facturas.id');
    t.string('cuenta_id', 40).notNullable();
    t.enum('modo', ['test', 'live']).notNullable();
    t.integer('num_parcialidad').notNullable();
    t.string('uuid', 36).notNullable();
    t.string('moneda', 3).notNullable();
    // Decimals of the invoice's currency (c_Moneda): the amounts are shown with them.
    t.tinyint('decimales').notNullable();
    t.string('equivalencia', 25).nullable();
    t.decimal('imp_saldo_anterior', 24, 6).notNullable();
    t.decimal('imp_pagado', 24, 6).notNullable();
    t.decimal('imp_saldo_insoluto', 24, 6).notNullable();
    t.string('objeto_imp', 2).notNullable();
    // A cancelled payment CFDI gives its amounts back: its rows stop counting but stay as history.
    t.boolean('vigente').notNullable().defaultTo(true);
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.primary(['pago_id', 'factura_id']);
    t.index(['factura_id', 'vigente']);
  });
  // Two vigente rows of one invoice never share an instalment number, whatever the code does.
  await knex.raw(
    'ALTER TABLE pagos_facturas ADD COLUMN parcialidad_vigente INT AS (IF(vigente, num_parcialidad, NULL)) STORED',
  );
  await knex.raw(
    'ALTER TABLE pagos_facturas ADD UNIQUE INDEX pagos_facturas_parcialidad_unica (factura_id, parcialidad_vigente)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('pagos_facturas');
  await knex.schema.dropTable('pagos');
}
