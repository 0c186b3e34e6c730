import type { Knex } from 'knex';

const ts = (t: Knex.CreateTableBuilder, knex: Knex) => {
  t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
  t.timestamp('actualizado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
};

/** Every business row carries cuenta_id and modo: every query is scoped by both. */
const alcance = (t: Knex.CreateTableBuilder) => {
  t.string('cuenta_id', 40).notNullable().references('cuentas.id');
  t.enum('modo', ['test', 'live']).notNullable();
};

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('cuentas', (t) => {
    t.string('razon_social', 300).nullable();
    t.string('rfc', 13).nullable();
    t.string('correo', 254).nullable();
    t.string('telefono', 30).nullable();
    t.string('sitio_web', 300).nullable();
    t.timestamp('terminos_aceptados_en', { precision: 3 }).nullable();
  });
  await knex.schema.alterTable('llaves_api', (t) => {
    t.timestamp('ultimo_uso_en', { precision: 3 }).nullable();
  });

  await knex.schema.createTable('idempotencia', (t) => {
    t.string('cuenta_id', 40).notNullable();
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('clave', 255).notNullable();
    // SHA-256 of method, path and body: the same key with another request is refused.
    t.specificType('huella', 'BINARY(32)').notNullable();
    t.enum('estado', ['en_curso', 'completada']).notNullable();
    t.integer('status').nullable();
    t.specificType('cuerpo', 'LONGTEXT').nullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('actualizado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.primary(['cuenta_id', 'modo', 'clave']);
    t.index(['creado_en']);
  });

  await knex.schema.createTable('organizaciones', (t) => {
    t.string('id', 40).primary();
    alcance(t);
    t.string('rfc', 13).notNullable();
    t.string('nombre', 300).notNullable();
    t.string('regimen_fiscal', 3).notNullable();
    t.string('codigo_postal', 5).notNullable();
    t.string('color_acento', 7).notNullable();
    ts(t, knex);
    t.unique(['cuenta_id', 'modo', 'rfc']);
    t.index(['cuenta_id', 'modo', 'id']);
  });

  await knex.schema.createTable('clientes', (t) => {
    t.string('id', 40).primary();
    alcance(t);
    t.string('organizacion_id', 40).notNullable().references('organizaciones.id');
    t.string('rfc', 13).notNullable();
    t.string('nombre', 300).notNullable();
    t.string('regimen_fiscal', 3).notNullable();
    t.string('domicilio_fiscal', 5).notNullable();
    t.string('uso_cfdi', 4).notNullable();
    t.string('correo', 254).nullable();
    // Uniqueness of active RFCs per organization; NULL (deleted or generic RFC) never collides.
    t.string('rfc_unico', 13).nullable();
    t.timestamp('eliminado_en', { precision: 3 }).nullable();
    ts(t, knex);
    t.unique(['organizacion_id', 'rfc_unico']);
    t.index(['cuenta_id', 'modo', 'id']);
    t.index(['cuenta_id', 'modo', 'organizacion_id', 'rfc']);
  });

  await knex.schema.createTable('productos', (t) => {
    t.string('id', 40).primary();
    alcance(t);
    t.string('organizacion_id', 40).notNullable().references('organizaciones.id');
    t.string('descripcion', 1000).notNullable();
    t.decimal('valor_unitario', 24, 6).notNullable();
    t.string('clave_prod_serv', 8).notNullable();
    t.string('clave_unidad', 3).notNullable();
    t.string('unidad', 20).nullable();
    t.string('no_identificacion', 100).nullable();
    t.string('objeto_imp', 2).notNullable();
    t.json('impuestos_default').notNullable();
    t.timestamp('eliminado_en', { precision: 3 }).nullable();
    ts(t, knex);
    t.index(['cuenta_id', 'modo', 'id']);
    t.index(['cuenta_id', 'modo', 'organizacion_id']);
  });

  // CSD certificates (filled by the certificate endpoints); the live-mode requirement reads it.
  await knex.schema.createTable('certificados', (t) => {
    t.string('id', 40).primary();
    alcance(t);
    t.string('organizacion_id', 40).notNullable().references('organizaciones.id');
    t.string('no_certificado', 20).notNullable();
    t.string('rfc', 13).notNullable();
    t.timestamp('valido_desde', { precision: 3 }).notNullable();
    t.timestamp('valido_hasta', { precision: 3 }).notNullable();
    // Issued by the SAT's test CA: fine for test mode, never enough to unlock live mode.
    t.boolean('de_prueba').notNullable();
    t.boolean('activo').notNullable().defaultTo(false);
    t.specificType('cer', 'MEDIUMBLOB').notNullable();
    t.specificType('llave_cifrada', 'BLOB').notNullable();
    t.specificType('contrasena_cifrada', 'BLOB').notNullable();
    t.specificType('dek_cifrada', 'BLOB').notNullable();
    t.integer('version_clave').notNullable();
    ts(t, knex);
    t.index(['cuenta_id', 'modo', 'id']);
    t.index(['organizacion_id', 'activo']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['certificados', 'productos', 'clientes', 'organizaciones', 'idempotencia']) {
    await knex.schema.dropTable(t);
  }
  await knex.schema.alterTable('llaves_api', (t) => t.dropColumn('ultimo_uso_en'));
  await knex.schema.alterTable('cuentas', (t) => {
    for (const c of ['razon_social', 'rfc', 'correo', 'telefono', 'sitio_web', 'terminos_aceptados_en'])
      t.dropColumn(c);
  });
}
