import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('facturas', (t) => {
    t.string('id', 40).primary();
    t.string('cuenta_id', 40).notNullable().references('cuentas.id');
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('organizacion_id', 40).notNullable().references('organizaciones.id');
    t.string('cliente_id', 40).nullable();
    t.enum('tipo', ['ingreso', 'egreso', 'pago']).notNullable();
    t.enum('estado', ['borrador', 'timbrada', 'cancelada']).notNullable();
    // Everything the CFDI is built from, computed once at creation (snapshots of client and products).
    t.json('documento').notNullable();
    t.decimal('total', 24, 6).notNullable();
    t.string('metodo_pago', 3).nullable();
    // Sealed once and kept: a retried stamping sends these exact bytes, so the PAC can recognise them.
    t.specificType('xml_sellado', 'LONGTEXT').nullable();
    t.specificType('xml_timbrado', 'LONGTEXT').nullable();
    t.string('uuid', 36).nullable().unique();
    t.string('fecha_timbrado', 19).nullable();
    t.string('no_certificado', 20).nullable();
    t.string('no_certificado_sat', 20).nullable();
    t.enum('timbrado_estado', ['no_solicitado', 'pendiente', 'timbrada', 'fallido']).notNullable();
    t.integer('timbrado_intentos').notNullable().defaultTo(0);
    t.json('timbrado_error').nullable();
    t.json('cancelacion').nullable();
    t.specificType('pdf', 'MEDIUMBLOB').nullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('actualizado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['cuenta_id', 'modo', 'id']);
    t.index(['cuenta_id', 'modo', 'organizacion_id', 'id']);
    t.index(['cuenta_id', 'modo', 'estado', 'id']);
  });

  await knex.schema.createTable('eventos', (t) => {
    t.string('id', 40).primary();
    t.string('cuenta_id', 40).notNullable().references('cuentas.id');
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('tipo', 40).notNullable();
    t.json('datos').notNullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['cuenta_id', 'modo', 'id']);
    t.index(['cuenta_id', 'modo', 'tipo', 'id']);
  });
  // The log is immutable by construction: the database itself refuses every change and deletion.
  for (const op of ['UPDATE', 'DELETE']) {
    await knex.raw(`
      CREATE TRIGGER eventos_sin_${op.toLowerCase()} BEFORE ${op} ON eventos FOR EACH ROW
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'eventos es inmutable'`);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS eventos_sin_update');
  await knex.raw('DROP TRIGGER IF EXISTS eventos_sin_delete');
  await knex.schema.dropTable('eventos');
  await knex.schema.dropTable('facturas');
}
