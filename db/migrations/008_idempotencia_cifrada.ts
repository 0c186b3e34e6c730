import type { Knex } from 'knex';

// Stored answers are replayed verbatim and some carry secrets (an API key's `secreto`): they are kept
// encrypted with the vault like every other secret. Plain answers stored before this change, if any,
// are dropped: a retry of one of those requests runs again instead of replaying a secret kept in clear.
export async function up(knex: Knex): Promise<void> {
  await knex('idempotencia').whereNotNull('cuerpo').delete();
  await knex.schema.alterTable('idempotencia', (t) => {
    t.dropColumn('cuerpo');
  });
  await knex.schema.alterTable('idempotencia', (t) => {
    t.specificType('cuerpo_cifrado', 'LONGBLOB').nullable();
    t.specificType('dek_cifrada', 'BLOB').nullable();
    t.integer('version_clave').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex('idempotencia').whereNotNull('cuerpo_cifrado').delete();
  await knex.schema.alterTable('idempotencia', (t) => {
    t.dropColumn('cuerpo_cifrado');
    t.dropColumn('dek_cifrada');
    t.dropColumn('version_clave');
  });
  await knex.schema.alterTable('idempotencia', (t) => {
    t.specificType('cuerpo', 'LONGTEXT').nullable();
  });
}
