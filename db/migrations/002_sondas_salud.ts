import type { Knex } from 'knex';

// Rows written by the health-probe workflow: proof that API → Temporal → worker → MySQL works end to end.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sondas_salud', (t) => {
    t.string('id', 64).primary();
    t.string('worker', 255).notNullable();
    t.string('chromium', 255).nullable();
    t.string('chromium_error', 500).nullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['creado_en']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sondas_salud');
}
