import type { Knex } from 'knex';

/**
 * An organization's logo, shown on its self-invoicing portal: the image as uploaded (PNG or JPEG, at most
 * 256 KB), one per organization, in a table of its own so that reading an organization never carries the bytes.
 * Scoped by account and mode like every business row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('logos_organizacion', (t) => {
    t.string('organizacion_id', 40).primary().references('organizaciones.id');
    t.string('cuenta_id', 40).notNullable().references('cuentas.id');
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('tipo', 20).notNullable();
    // MEDIUMBLOB: a BLOB holds 64 KB, the logo up to 256 KB.
    t.specificType('datos', 'MEDIUMBLOB').notNullable();
    t.integer('bytes').notNullable();
    t.specificType('sha256', 'CHAR(64)').notNullable();
    t.timestamp('actualizado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['cuenta_id', 'modo', 'organizacion_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('logos_organizacion');
}
