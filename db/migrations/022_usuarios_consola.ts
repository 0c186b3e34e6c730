import type { Knex } from 'knex';

/**
 * The console's people: users of an account with a role, and their sessions. Users sign in by email alone, so an
 * email names one user across accounts. A session is kept by the hash of its token (the cookie holds the token):
 * a copy of this table opens nobody's session. Failed sign-ins count in `fallos_autenticacion` like the API's.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('usuarios', (t) => {
    t.string('id', 40).primary();
    t.string('cuenta_id', 40).notNullable().references('cuentas.id');
    t.string('correo', 254).notNullable().unique();
    t.enum('rol', ['admin', 'finanzas', 'operaciones']).notNullable();
    t.string('contrasena_hash', 200).notNullable();
    // A password printed by `usuario:crear` is good for one sign-in: the user must choose their own.
    t.boolean('debe_cambiar_contrasena').notNullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('actualizado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['cuenta_id', 'id']);
  });
  await knex.schema.createTable('sesiones_consola', (t) => {
    t.specificType('hash', 'BINARY(32)').primary();
    t.string('usuario_id', 40).notNullable().references('usuarios.id');
    // The test/live switch belongs to the session: two tabs of one user share it, two people never do.
    t.enum('modo', ['test', 'live']).notNullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable();
    t.timestamp('vence_en', { precision: 3 }).notNullable();
    t.index(['usuario_id']);
    t.index(['vence_en']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sesiones_consola');
  await knex.schema.dropTable('usuarios');
}
