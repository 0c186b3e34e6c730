import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('cuentas', (t) => {
    t.string('id', 40).primary();
    t.string('nombre', 255).notNullable();
    t.json('datos').nullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('actualizado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
  });
  await knex.schema.createTable('llaves_api', (t) => {
    t.string('id', 40).primary();
    t.string('cuenta_id', 40).notNullable().references('cuentas.id');
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('nombre', 255).notNullable();
    t.string('prefijo', 24).notNullable();
    // SHA-256 of the whole secret: high-entropy keys need no slow hash, and lookup stays one index hit.
    t.specificType('hash', 'BINARY(32)').notNullable().unique();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('revocada_en', { precision: 3 }).nullable();
    t.index(['cuenta_id', 'modo']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('llaves_api');
  await knex.schema.dropTable('cuentas');
}
