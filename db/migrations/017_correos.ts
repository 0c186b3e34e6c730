import type { Knex } from 'knex';

/**
 * Email of invoices to their receivers. Each email is a row before its workflow starts, so none is lost: an
 * automatic one is keyed by the event that caused it (one email per event, however often the outbox runs), a
 * resend by its own id. The organization's address is the Reply-To; automatic email can be turned off.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizaciones', (t) => {
    t.string('correo', 254).nullable();
    t.boolean('correo_automatico').notNullable().defaultTo(true);
  });
  await knex.schema.createTable('correos', (t) => {
    t.string('id', 40).primary();
    t.string('cuenta_id', 40).notNullable().references('cuentas.id');
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('factura_id', 40).notNullable().references('facturas.id');
    // The event of an automatic email; null for a resend.
    t.string('evento_id', 40).nullable().unique().references('eventos.id');
    t.enum('motivo', ['timbrado', 'cancelacion', 'reenvio']).notNullable();
    t.json('destinatarios').notNullable();
    t.enum('estado', ['pendiente', 'enviado', 'fallido']).notNullable();
    t.integer('intentos').notNullable().defaultTo(0);
    // The SMTP server's last answer (or the connection error), as the email log shows it.
    t.string('respuesta_smtp', 1000).nullable();
    t.json('error').nullable();
    t.timestamp('ultimo_intento_en', { precision: 3 }).nullable();
    t.timestamp('enviado_en', { precision: 3 }).nullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('actualizado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['cuenta_id', 'modo', 'id']);
    t.index(['cuenta_id', 'modo', 'factura_id', 'id']);
    t.index(['cuenta_id', 'modo', 'estado', 'id']);
    t.index(['estado', 'intentos', 'creado_en']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('correos');
  await knex.schema.alterTable('organizaciones', (t) => {
    t.dropColumn('correo_automatico');
    t.dropColumn('correo');
  });
}
