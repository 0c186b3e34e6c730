import type { Knex } from 'knex';

// The same certificate uploaded twice to one organization is a conflict, not a second row.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('certificados', (t) => {
    t.string('nombre_titular', 300).notNullable().defaultTo('');
    t.unique(['organizacion_id', 'no_certificado']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('certificados', (t) => {
    t.dropUnique(['organizacion_id', 'no_certificado']);
    t.dropColumn('nombre_titular');
  });
}
