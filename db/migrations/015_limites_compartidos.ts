import type { Knex } from 'knex';

/**
 * The API's limits, shared by every replica: the token bucket of each API key and the failed authentications of
 * each client address. Times and tokens are integers (epoch milliseconds, thousandths of a token), so one
 * statement updates a bucket exactly on MySQL 8 and MariaDB alike. No foreign keys: this is passing state.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('limites_llaves', (t) => {
    t.string('cuenta_id', 40).notNullable();
    t.string('llave_id', 40).notNullable();
    t.bigInteger('milifichas').notNullable();
    t.bigInteger('actualizado_ms').notNullable();
    t.primary(['cuenta_id', 'llave_id']);
  });
  await knex.schema.createTable('fallos_autenticacion', (t) => {
    // An IPv4 address or an IPv6 /64 (api/middleware/limite.ts, claveDeDireccion).
    t.string('direccion', 64).primary();
    t.bigInteger('inicio_ms').notNullable();
    t.integer('fallos').notNullable();
    t.index(['inicio_ms']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('fallos_autenticacion');
  await knex.schema.dropTable('limites_llaves');
}
