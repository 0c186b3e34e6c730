import type { Knex } from 'knex';

/**
 * The resource a request created, written in the transaction that created it: a request whose answer was lost
 * after that commit (the database went away, the process died) is resumed by its retry instead of run again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotencia', (t) => {
    t.string('recurso', 40).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotencia', (t) => {
    t.dropColumn('recurso');
  });
}
