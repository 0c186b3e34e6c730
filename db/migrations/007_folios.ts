import type { Knex } from 'knex';

// Automatic folios: one counter per organization and series, so two invoices never seal identical XML.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('folios', (t) => {
    t.string('organizacion_id', 40).notNullable().references('organizaciones.id');
    t.string('serie', 25).notNullable();
    t.bigInteger('ultimo').notNullable();
    t.primary(['organizacion_id', 'serie']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('folios');
}
