import type { Knex } from 'knex';

/**
 * Webhooks and their deliveries. `eventos_por_despachar` is the outbox queue: a row is written in the same
 * transaction as its event and deleted once every delivery of that event has a workflow. `avisos_certificados`
 * makes each certificate expiry event possible once, whatever the schedule does.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.string('id', 40).primary();
    t.string('cuenta_id', 40).notNullable().references('cuentas.id');
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('url', 2048).notNullable();
    t.json('eventos_suscritos').notNullable();
    t.boolean('activo').notNullable().defaultTo(true);
    // The signing secrets, sealed by the vault (one data key for both); the previous one only during a rotation.
    t.specificType('secreto_cifrado', 'BLOB').notNullable();
    t.specificType('secreto_anterior_cifrado', 'BLOB').nullable();
    t.specificType('dek_cifrada', 'BLOB').notNullable();
    t.integer('version_clave').notNullable();
    t.timestamp('secreto_anterior_hasta', { precision: 3 }).nullable();
    // Deleted webhooks keep their row so their deliveries' log still names them.
    t.timestamp('eliminado_en', { precision: 3 }).nullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('actualizado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['cuenta_id', 'modo', 'id']);
  });

  await knex.schema.createTable('entregas', (t) => {
    t.string('id', 40).primary();
    t.string('cuenta_id', 40).notNullable().references('cuentas.id');
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('evento_id', 40).notNullable().references('eventos.id');
    t.string('webhook_id', 40).notNullable().references('webhooks.id');
    // 0 for the delivery the event caused, 1, 2… for each resend requested through the API.
    t.integer('numero').notNullable();
    t.enum('estado', ['pendiente', 'entregada', 'fallida', 'cancelada']).notNullable();
    t.integer('intentos').notNullable().defaultTo(0);
    t.timestamp('proximo_intento_en', { precision: 3 }).nullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('actualizado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.unique(['evento_id', 'webhook_id', 'numero']);
    t.index(['cuenta_id', 'modo', 'webhook_id', 'id']);
    t.index(['cuenta_id', 'modo', 'evento_id', 'id']);
    t.index(['webhook_id', 'estado']);
  });

  await knex.schema.createTable('entregas_intentos', (t) => {
    t.string('entrega_id', 40).notNullable().references('entregas.id');
    t.integer('numero').notNullable();
    t.timestamp('iniciado_en', { precision: 3 }).notNullable();
    t.integer('status_http').nullable();
    t.integer('latencia_ms').notNullable();
    t.json('error').nullable();
    t.text('respuesta').notNullable();
    t.primary(['entrega_id', 'numero']);
  });

  await knex.schema.createTable('eventos_por_despachar', (t) => {
    t.string('evento_id', 40).primary().references('eventos.id');
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['creado_en']);
  });

  await knex.schema.createTable('avisos_certificados', (t) => {
    t.string('certificado_id', 40).notNullable().references('certificados.id');
    t.enum('tipo', ['certificado.por_vencer', 'certificado.vencido']).notNullable();
    t.string('evento_id', 40).notNullable().references('eventos.id');
    t.primary(['certificado_id', 'tipo']);
  });
  await knex.schema.alterTable('certificados', (t) => t.index(['activo', 'valido_hasta']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('certificados', (t) => t.dropIndex(['activo', 'valido_hasta']));
  for (const t of [
    'avisos_certificados',
    'eventos_por_despachar',
    'entregas_intentos',
    'entregas',
    'webhooks',
  ]) {
    await knex.schema.dropTable(t);
  }
}
